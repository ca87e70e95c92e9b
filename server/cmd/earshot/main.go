package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/earshot-dev/earshot/adapters/isolate"
)

func main() {
	// First: in a worker process started by an isolated engine, Main
	// serves that engine and never returns.
	isolate.Main()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
