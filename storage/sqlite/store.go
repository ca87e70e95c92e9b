package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite" // registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/webhook"
)

// Config configures Open. Only Path is required; every other zero field
// takes its documented default.
type Config struct {
	// Path is the database file. It is created with mode 0600 (its parent
	// directories with 0700) when missing; SQLite gives the -wal and -shm
	// files beside it the same mode. Required.
	Path string
	// BusyTimeout is how long a statement waits for another connection or
	// process holding the write lock before failing. Default 5s.
	BusyTimeout time.Duration
	// MaxOpenConns bounds the connection pool of this handle. Default 4.
	MaxOpenConns int
	// Synchronous is SQLite's synchronous level: "FULL" (default; a
	// committed write survives power loss), "NORMAL" (faster in WAL mode;
	// survives a crash of the process but may lose the last commits on
	// power loss) or "EXTRA".
	Synchronous string
}

// Defaults applied by Open.
const (
	DefaultBusyTimeout  = 5 * time.Second
	DefaultMaxOpenConns = 4
	DefaultSynchronous  = "FULL"
)

func (c *Config) setDefaults() {
	if c.BusyTimeout == 0 {
		c.BusyTimeout = DefaultBusyTimeout
	}
	if c.MaxOpenConns == 0 {
		c.MaxOpenConns = DefaultMaxOpenConns
	}
	if c.Synchronous == "" {
		c.Synchronous = DefaultSynchronous
	}
	c.Synchronous = strings.ToUpper(c.Synchronous)
}

func (c *Config) validate() error {
	switch {
	case c.Path == "":
		return errors.New("sqlite: Config.Path is required")
	case c.Path == ":memory:" || strings.HasPrefix(c.Path, "file:"):
		return fmt.Errorf("sqlite: Config.Path %q: give a file path (in-memory and URI databases are not supported; use storage/memory)", c.Path)
	case strings.ContainsAny(c.Path, "?#\x00"):
		return fmt.Errorf("sqlite: Config.Path %q must not contain '?', '#' or NUL", c.Path)
	case c.BusyTimeout < 0:
		return fmt.Errorf("sqlite: Config.BusyTimeout %v is negative", c.BusyTimeout)
	case c.MaxOpenConns < 0:
		return fmt.Errorf("sqlite: Config.MaxOpenConns %d is negative", c.MaxOpenConns)
	case !slices.Contains([]string{"NORMAL", "FULL", "EXTRA"}, c.Synchronous):
		return fmt.Errorf("sqlite: Config.Synchronous %q must be NORMAL, FULL or EXTRA", c.Synchronous)
	}
	return nil
}

// Store is a transcribe.Store in a SQLite database file. It is safe for
// concurrent use by several goroutines, and several Stores (in one process
// or in several) may share one file: every claim is a single atomic UPDATE.
type Store struct {
	db   *sql.DB
	path string
	// get is Get's statement, prepared once: a GET is the hottest read,
	// and preparing costs about a fifth of it.
	get *sql.Stmt
	// read holds the statements of the read path (read.go).
	read readStmts

	mu     sync.Mutex
	closed bool
}

var (
	_ transcribe.Store       = (*Store)(nil)
	_ transcribe.UploadStore = (*Store)(nil)
	_ webhook.Queue          = (*Store)(nil)
)

// Open opens (creating and migrating when needed) the database at
// cfg.Path. The database runs in WAL mode with foreign keys on.
func Open(cfg Config) (*Store, error) {
	cfg.setDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if err := createFile(cfg.Path); err != nil {
		return nil, err
	}
	q := url.Values{}
	q.Set("_busy_timeout", strconv.FormatInt(cfg.BusyTimeout.Milliseconds(), 10))
	q.Set("_journal_mode", "WAL")
	q.Set("_foreign_keys", "1")
	q.Set("_synchronous", cfg.Synchronous)
	q.Set("_txlock", "immediate")
	// Freed and overwritten content is zeroed, so a deleted transcript's
	// (sealed) data does not linger in free pages.
	q.Add("_pragma", "secure_delete(1)")
	db, err := sql.Open("sqlite", cfg.Path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlite: opening %s: %w", cfg.Path, err)
	}
	db.SetMaxOpenConns(cfg.MaxOpenConns)
	db.SetMaxIdleConns(cfg.MaxOpenConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), cfg.BusyTimeout+30*time.Second)
	defer cancel()
	// While another connection turns a new file into a WAL database or
	// recovers its WAL, SQLite reports SQLITE_BUSY at once instead of
	// calling the busy handler, so concurrent openers retry for up to
	// BusyTimeout.
	deadline := time.Now().Add(max(cfg.BusyTimeout, time.Second))
	for try := 0; ; try++ {
		err = migrate(ctx, db)
		if err == nil {
			break
		}
		if !isBusy(err) || time.Now().After(deadline) {
			db.Close()
			return nil, fmt.Errorf("sqlite: %s: %w", cfg.Path, err)
		}
		time.Sleep(time.Duration(5+try%5*5) * time.Millisecond)
	}
	get, err := db.PrepareContext(ctx, `SELECT `+recordCols+` FROM transcripts WHERE id = ?`)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite: %s: %w", cfg.Path, err)
	}
	return &Store{db: db, path: cfg.Path, get: get}, nil
}

// isBusy reports whether err is SQLITE_BUSY or SQLITE_LOCKED (with any
// extended code).
func isBusy(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff
	return code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED
}

// createFile creates path with mode 0600 when it does not exist. An
// existing file is never opened here: closing a descriptor of a database
// file would drop the POSIX locks SQLite holds on it in this process.
func createFile(path string) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("sqlite: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("sqlite: creating the database directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil // created meanwhile by another opener
	}
	if err != nil {
		return fmt.Errorf("sqlite: creating the database: %w", err)
	}
	return f.Close()
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// Close implements transcribe.Store. Closing twice is nil.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.get.Close()
	s.read.close()
	return s.db.Close()
}

// Times are stored as UTC unix nanoseconds; the zero time as math.MinInt64,
