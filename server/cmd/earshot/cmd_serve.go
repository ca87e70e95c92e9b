package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/earshot-dev/earshot/server"
)

func serveCommand() *command {
	return &command{
		name:    "serve",
		args:    "[server flags]",
		summary: "run the reference server (earshot serve -h lists its flags)",
		setup: func(c *cli, fs *flag.FlagSet) func(context.Context, []string) error {
			return func(ctx context.Context, args []string) error {
				cfg, err := server.ParseConfig(args)
				if errors.Is(err, flag.ErrHelp) {
					return nil
				}
				if err != nil {
					return usageErrorf("serve: %v", flagError(err))
				}
				if err := server.CheckDataDir(cfg.Data); err != nil {
					return failf(exitUnavailable, "serve: %v: stop that server first, or give this one another --data", err)
				}
				if err := server.Run(ctx, cfg); err != nil {
					if errors.Is(err, server.ErrDataDirInUse) {
						return failf(exitUnavailable, "serve: %v", err)
					}
					return fmt.Errorf("serve: %w", err)
				}
				return nil
			}
		},
		passArgs: true,
	}
}

func versionCommand() *command {
	return &command{
		name:    "version",
		summary: "print the version",
		setup: func(c *cli, fs *flag.FlagSet) func(context.Context, []string) error {
			return func(ctx context.Context, args []string) error {
				if len(args) != 0 {
					return usageErrorf("version takes no arguments")
				}
				_, err := fmt.Fprintf(c.stdout, "earshot %s (%s, %s/%s)\n", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
				return err
			}
		},
	}
}

// version is the module version the binary was built from: v1.2.3 for
// go install ...@v1.2.3, or devel plus the commit for a build in a clone.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	v := "devel"
	if rev != "" {
		v += "-" + rev[:min(12, len(rev))]
	}
	if dirty {
		v += "-dirty"
	}
	return v
}
