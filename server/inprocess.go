package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// ErrDataDirInUse means another process (or another server in this
// process) holds the data directory's lock: one data directory serves one
// server at a time.
var ErrDataDirInUse = errors.New("server: data directory in use")

// DataDirError reports a data directory that another server holds.
type DataDirError struct {
	Dir string // the data directory
}

func (e *DataDirError) Error() string {
	return fmt.Sprintf("data directory %s is in use by another earshot process (it holds %s); give each process its own EARSHOT_DATA",
		e.Dir, filepath.Join(e.Dir, "LOCK"))
}

// Unwrap returns ErrDataDirInUse.
func (e *DataDirError) Unwrap() error { return ErrDataDirInUse }

// CheckDataDir reports whether a server could take dir now: nil when the
// directory does not exist yet or its lock is free, a *DataDirError
// (wrapping ErrDataDirInUse) when a running server holds it. It takes the
// lock only for the moment of the check, so a server that starts right
// after it still wins; Run then fails with its own message.
func CheckDataDir(dir string) error {
	f, err := os.OpenFile(filepath.Join(dir, "LOCK"), os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("data directory lock: %w", err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return &DataDirError{Dir: dir}
		}
		return fmt.Errorf("data directory lock: %w", err)
	}
	return syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}

// InProcess is a reference server running inside the calling process, as
// the earshot command runs one when no server URL is given. Its methods
// are safe for concurrent use.
type InProcess struct {
	// Addr is the address it listens on (host:port).
	Addr string
	// URL is its base URL, http:// or https:// plus Addr.
	URL string

	cancel context.CancelFunc
	done   chan struct{}
	err    error // Run's result, set before done closes
}

// StartInProcess runs Run(ctx, cfg) in a new goroutine and returns once
// the server listens and its workers run, or with Run's error if it stops
// before that. cfg.Ready is still called. The data directory is checked
// first (CheckDataDir), so a directory held by a running server gives a
// *DataDirError. Cancelling ctx or calling Close stops the server.
//
// A typical in-process configuration: Addr "127.0.0.1:0" (a free port),
// Quiet, APIKeys with a key generated for this run, LogLevel "error".
func StartInProcess(ctx context.Context, cfg *Config) (*InProcess, error) {
	if cfg == nil {
		return nil, errors.New("server: StartInProcess needs a Config (ParseConfig(nil) gives the defaults)")
	}
	if err := CheckDataDir(cfg.Data); err != nil {
		return nil, err
	}
	c := *cfg
	ready := make(chan string, 1)
	userReady := cfg.Ready
	c.Ready = func(addr string) {
		if userReady != nil {
			userReady(addr)
		}
		ready <- addr
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &InProcess{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		s.err = Run(ctx, &c)
	}()
	select {
	case addr := <-ready:
		s.Addr = addr
		scheme := "http"
		if c.TLSCert != "" {
			scheme = "https"
		}
		s.URL = scheme + "://" + addr
		return s, nil
	case <-s.done:
		cause := context.Cause(ctx)
		cancel()
		if s.err == nil {
			// Run returns nil only after its context ended.
			return nil, fmt.Errorf("server: stopped before it was ready: %w", cause)
		}
		return nil, s.err
	}
}

// Close stops the server gracefully (running jobs get up to Run's
// shutdown grace and resume after the next start if cut off) and returns
// Run's error. Calling it again returns the same result.
func (s *InProcess) Close() error {
	s.cancel()
	<-s.done
	return s.err
}

// Done is closed once the server has stopped, by Close or on its own.
func (s *InProcess) Done() <-chan struct{} { return s.done }
