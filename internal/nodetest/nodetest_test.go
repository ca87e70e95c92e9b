package nodetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEnsure(t *testing.T) {
	t.Parallel()
	// Installed already: nothing runs.
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "node_modules", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "node_modules", "x", "package.json"), []byte(`{"name":"x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ensure(dir, "x"); err != nil {
		t.Errorf("installed package: %v", err)
	}
	// Missing, and npm ci cannot install it (no package.json): the error
	// names the directory and carries npm's output.
	empty := t.TempDir()
	err := ensure(empty, "x")
	if err == nil || !strings.Contains(err.Error(), "npm ci in "+empty) {
		t.Errorf("no package.json: %v", err)
	}
}

func TestDirIsAbsolute(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "node_modules", "y"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "node_modules", "y", "package.json"), []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	rel, err := filepath.Rel(wd, dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := Dir(t, rel, "y"); got != dir {
		t.Errorf("Dir(%q) = %q, want %q", rel, got, dir)
	}
}
