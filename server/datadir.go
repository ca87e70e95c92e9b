package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// dataDir is the data directory, locked by this process, with the secrets
// configured or kept in it and the temporary directory.
type dataDir struct {
	unlock func()
	key    []byte            // the content key: EARSHOT_ENCRYPTION_KEY, or encryption.key here
	keys   map[string]string // API key → project: EARSHOT_API_KEYS, or the development key
	devKey string            // the development key (dev-api-key here); "" with EARSHOT_API_KEYS
	// tmp (absolute) holds every temporary file: downloads, ffmpeg
	// intermediates of redacted audio; tmp/eu the EU region's.
	tmp string
}

// openDataDir creates the data directory (0700) and locks it, so that a
// second process on it fails with a *DataDirError; reads the content key
// and the API keys, generating and keeping them in the directory when
// they are not configured; and makes the temporary directories inside it
// (each Service sweeps what a crashed run left in its own).
func openDataDir(cfg *Config) (*dataDir, error) {
	if err := os.MkdirAll(cfg.Data, 0o700); err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	unlock, err := lockDataDir(cfg.Data)
	if err != nil {
		return nil, err
	}
	d := &dataDir{unlock: unlock}
	ok := false
	defer func() {
		if !ok {
			unlock()
		}
	}()
	if d.key, err = contentKey(cfg); err != nil {
		return nil, err
	}
	if d.keys, d.devKey, err = apiKeys(cfg); err != nil {
		return nil, err
	}
	if d.tmp, err = filepath.Abs(filepath.Join(cfg.Data, "tmp")); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(d.tmp, "eu"), 0o700); err != nil {
		return nil, err
	}
	ok = true
	return d, nil
}

// close releases the data directory's lock.
func (d *dataDir) close() { d.unlock() }

// lockDataDir takes an exclusive lock on the data directory, so a second
// process cannot run on it (its SQLite database may be shared, but its
// temporary files and upload fragments are swept at start as this
// process's own).
func lockDataDir(dir string) (unlock func(), err error) {
	path := filepath.Join(dir, "LOCK")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("data directory lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &DataDirError{Dir: dir}
		}
		return nil, fmt.Errorf("data directory lock: %w", err)
	}
	return func() { f.Close() }, nil
}
