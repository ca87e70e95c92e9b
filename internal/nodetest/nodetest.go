// Package nodetest gives tests a directory of Node.js scripts with its
// npm packages installed: the official AssemblyAI and OpenAI JavaScript
// SDKs and playwright-core run from such directories (each with a
// committed package.json and package-lock.json) against real servers.
//
// Dir(t, "jstest", "assemblyai") returns the directory's absolute path
// after making sure node is installed and that node_modules holds the
// named package, running `npm ci` (from the committed lock file, so the
// versions are exact) when it does not: a fresh clone installs on first
// use. Installs of one directory happen once per test binary, also when
// parallel tests ask at once. A missing node or a failed install fails
// the test, naming what to install: CI never skips these tests.
package nodetest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// InstallTimeout bounds one npm ci.
const InstallTimeout = 3 * time.Minute

// installs maps a directory to its install, a sync.OnceValue of ensure.
var installs sync.Map

// Dir returns dir (relative to the test's package directory, or absolute)
// as an absolute path with node_modules/pkg installed.
func Dir(t testing.TB, dir, pkg string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is not installed: %s needs Node.js 20+ and npm (scripts/setup.sh installs them)", t.Name())
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	install, _ := installs.LoadOrStore(abs, sync.OnceValue(func() error { return ensure(abs, pkg) }))
	if err := install.(func() error)(); err != nil {
		t.Fatal(err)
	}
	return abs
}

// ensure runs npm ci in dir unless node_modules/pkg is there.
func ensure(dir, pkg string) error {
	if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json")); err == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), InstallTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm ci in %s: %v\n%s", dir, err, out)
	}
	return nil
}
