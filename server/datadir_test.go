package server

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// openDataDir locks the directory (a second open is refused with a
// *DataDirError until the first is closed), keeps a generated content key
// and development key there, and makes the temporary directories.
func TestOpenDataDir(t *testing.T) {
	cfg := &Config{Data: filepath.Join(t.TempDir(), "data")}
	d, err := openDataDir(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.key) != 32 || len(d.keys) != 1 || d.devKey == "" || d.keys[d.devKey] != "default" {
		t.Errorf("generated keys: content key of %d bytes, API keys %v, development key %q", len(d.key), d.keys, d.devKey)
	}
	if !filepath.IsAbs(d.tmp) {
		t.Errorf("temporary directory %q is not absolute", d.tmp)
	}
	for _, dir := range []string{d.tmp, filepath.Join(d.tmp, "eu")} {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			t.Errorf("%s: %v", dir, err)
		}
	}
	var held *DataDirError
	if _, err := openDataDir(cfg); !errors.As(err, &held) || !errors.Is(err, ErrDataDirInUse) || held.Dir != cfg.Data {
		t.Fatalf("second open: %v, want a *DataDirError for %s", err, cfg.Data)
	}
	d.close()

	// The same keys after a restart.
	again, err := openDataDir(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer again.close()
	if !bytes.Equal(again.key, d.key) || again.devKey != d.devKey {
		t.Error("the kept keys changed across a restart")
	}
}

// Configured keys are used as given (no development key); a bad one fails
// the step and leaves the directory unlocked.
func TestOpenDataDirConfigured(t *testing.T) {
	cfg := &Config{Data: t.TempDir(), EncryptionKey: testKey, APIKeys: testAPI}
	d, err := openDataDir(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if d.devKey != "" || d.keys["key-of-at-least-16-chars"] != "p1" || len(d.key) != 32 {
		t.Errorf("configured keys: %v, development key %q", d.keys, d.devKey)
	}
	if _, err := os.Stat(filepath.Join(cfg.Data, "dev-api-key")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a development key was kept beside EARSHOT_API_KEYS: %v", err)
	}
	d.close()

	for _, bad := range []*Config{
		{Data: cfg.Data, EncryptionKey: "not a key", APIKeys: testAPI},
		{Data: cfg.Data, EncryptionKey: testKey, APIKeys: "short:p"},
	} {
		if _, err := openDataDir(bad); err == nil || errors.Is(err, ErrDataDirInUse) {
			t.Errorf("%+v: %v, want a key error", bad, err)
		}
		if err := CheckDataDir(cfg.Data); err != nil {
			t.Errorf("the failed open left the directory locked: %v", err)
		}
	}
}

// A data directory whose database exists without its generated key is
// refused rather than given a new key that cannot read it.
func TestOpenDataDirLostKey(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "earshot.db"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := openDataDir(&Config{Data: dir}); err == nil || !strings.Contains(err.Error(), "encryption.key is missing but the database exists") {
		t.Fatalf("%v", err)
	}
}
