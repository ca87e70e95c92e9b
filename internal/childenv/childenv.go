// Package childenv builds the environment of the programs Earshot starts:
// ffmpeg (transcribe/media) and the engine worker processes
// (adapters/isolate). They parse untrusted media, so they get only what
// they need to run, never the server's secrets (EARSHOT_API_KEYS,
// EARSHOT_ENCRYPTION_KEY, database URLs, S3 and LLM keys, ...), which a
// compromised decoder could otherwise read from its own environment or
// /proc/<pid>/environ.
package childenv

import (
	"os"
	"strings"
)

// Passed lists the variables Minimal copies from the parent when they are
// set: where programs and libraries are found (PATH, LD_LIBRARY_PATH),
// HOME, TMPDIR and TZ, and the Go runtime's own settings for a child that
// is a Go program (GOMAXPROCS, GOGC, GOMEMLIMIT, GODEBUG, GOTRACEBACK, and
// GOCOVERDIR for coverage builds).
var Passed = []string{
	"PATH", "LD_LIBRARY_PATH", "HOME", "TMPDIR", "TZ",
	"GOMAXPROCS", "GOGC", "GOMEMLIMIT", "GODEBUG", "GOTRACEBACK", "GOCOVERDIR",
}

// Minimal returns the environment for a child process: the variables in
// Passed that the parent has, LANG=C and LC_ALL=C (so that a child's
// messages and number formats do not depend on the host's locale), then
// extra ("KEY=value" entries, which win over the former). Nothing else of
// the parent's environment is passed.
func Minimal(extra ...string) []string {
	env := make([]string, 0, len(Passed)+2+len(extra))
	for _, k := range Passed {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	env = append(env, "LANG=C", "LC_ALL=C")
	for _, e := range extra {
		k, _, _ := strings.Cut(e, "=")
		env = drop(env, k)
		env = append(env, e)
	}
	return env
}

// drop removes key's entries from env.
func drop(env []string, key string) []string {
	out := env[:0]
	for _, e := range env {
		if k, _, _ := strings.Cut(e, "="); k != key {
			out = append(out, e)
		}
	}
	return out
}
