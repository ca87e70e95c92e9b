// Package buildtest builds a Go program once per test binary for tests
// that run it as a separate process (the reference server driven over
// loopback by the SDKs, the browser and the cluster tests).
//
// Binary(tb, pkg) runs `go build` with CGO_ENABLED=0 (the build the
// project ships) on pkg — a package path, or "." for the test's own
// package — into a fresh temporary directory, and returns the
// executable's path. Tests and benchmarks asking for the same pkg at once
// share one build; a failed build fails each of them with the compiler's
// output.
package buildtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// builds maps a working directory and package to its build, a
// sync.OnceValues of goBuild.
var builds sync.Map

// Binary returns the path of pkg built with CGO_ENABLED=0.
func Binary(tb testing.TB, pkg string) string {
	tb.Helper()
	wd, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	build, _ := builds.LoadOrStore(wd+"\x00"+pkg, sync.OnceValues(func() (string, error) { return goBuild(pkg) }))
	path, err := build.(func() (string, error))()
	if err != nil {
		tb.Fatal(err)
	}
	return path
}

func goBuild(pkg string) (string, error) {
	dir, err := os.MkdirTemp("", "earshot-bin-*")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, filepath.Base(filepath.Clean(pkg)))
	if pkg == "." {
		path = filepath.Join(dir, "program")
	}
	cmd := exec.Command("go", "build", "-o", path, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
	}
	return path, nil
}
