// Command server is Earshot's reference server: the AssemblyAI v2 REST and
// realtime API on embedded defaults (SQLite and files in the data
// directory, Debian's pocketsphinx as the recognizer) or on PostgreSQL and
// S3 for several processes, optionally with the EU region on a second
// listener, and OpenAI's audio API on /v1; configured by
// EARSHOT_* environment variables or flags of the same meaning (-h lists
// them). SIGINT and SIGTERM shut it down gracefully; jobs cut off resume
// after the next start. The assembly lives in server, which the
// earshot command's serve shares.
package main

import (
	"fmt"
	"os"

	"github.com/earshot-dev/earshot/adapters/isolate"
	refserver "github.com/earshot-dev/earshot/server"
)

func main() {
	// In a re-executed engine worker this runs the worker and never
	// returns (adapters/isolate).
	isolate.Main()
	if err := refserver.Main(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "earshot:", err)
		os.Exit(1)
	}
}
