package server

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"flag"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

// Main parses args and the environment and runs the server until SIGINT
// or SIGTERM.
func Main(args []string) error {
	cfg, err := ParseConfig(args)
	if errors.Is(err, flag.ErrHelp) {
		return nil // the help went to standard output
	}
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	return Run(ctx, cfg)
}

// Run runs the server described by cfg until ctx is done, then shuts it
// down gracefully. It takes the steps the package documentation lists,
// in that order; when one fails, what the steps before it opened is
// closed (last first), and no worker has claimed a job.
func Run(ctx context.Context, cfg *Config) error {
	return run(ctx, cfg, openLocalEngines)
}

// run is Run with the local engines' step given: openLocalEngines, or in
// tests a stand-in for pocketsphinx.
func run(ctx context.Context, cfg *Config, openLocal func(context.Context, *Config, *slog.Logger) (*localEngines, error)) error {
	log, err := setUp(cfg)
	if err != nil {
		return err
	}
	data, err := openDataDir(cfg)
	if err != nil {
		return err
	}
	defer data.close()
	stores, err := openStores(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer stores.close()
	local, err := openLocal(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer local.close()
	lns, err := openListeners(cfg, data.key, stores.eu != nil)
	if err != nil {
		return err
	}
	defer lns.close()
	ops, err := newOps(cfg.MetricsAddr, log)
	if err != nil {
		return err
	}
	defer ops.close()
	engines, err := openEngines(cfg, local, ops)
	if err != nil {
		return err
	}
	stages, err := stageOptions(cfg, data.tmp, log)
	if err != nil {
		return err
	}
	base := serviceBase{key: data.key, engines: engines.list, media: local.media, stages: stages,
		worker: processID(), ops: ops, log: log}
	regions, err := buildServices(cfg, base, stores, lns, data.tmp)
	if err != nil {
		return err
	}
	acc, err := newAccess(cfg, data.keys)
	if err != nil {
		return err
	}
	rt, err := buildRealtime(cfg, acc, engines.stream, stages.Text, stores.main.rtState, base.worker, ops, log)
	if err != nil {
		return err
	}
	defer rt.close()
	front, err := buildHTTP(cfg, acc, regions, rt, engines.list, data.key, ops, log)
	if err != nil {
		return err
	}
	return serve(ctx, cfg, log, &running{stores: stores, lns: lns, regions: regions, engines: engines,
		rt: rt, front: front, ops: ops, worker: base.worker, devKey: data.devKey})
}

// setUp makes the server's logger (also slog's default) and checks the
// storage settings: ParseConfig checks them too, and a Config built by
// hand gets the same checks (and the EU defaults) here.
func setUp(cfg *Config) (*slog.Logger, error) {
	log, err := newLogger(os.Stderr, cfg.LogFormat, cfg.LogLevel)
	if err != nil {
		return nil, err
	}
	slog.SetDefault(log)
	if err := cfg.checkStorage(); err != nil {
		return nil, err
	}
	return log, nil
}

// deriveKey derives a purpose-bound key from the content key, so each part
// (webhook sealing, URL signing) has its own.
func deriveKey(content []byte, purpose string) []byte {
	m := hmac.New(sha256.New, content)
	m.Write([]byte("earshot " + purpose))
	return m.Sum(nil)
}
