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

	"github.com/earshot-dev/earshot/transcribe/driver"
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

// Store is a driver.Store in a SQLite database file. It is safe for
// concurrent use by several goroutines, and several Stores (in one process
// or in several) may share one file: every claim is a single atomic UPDATE.
type Store struct {
	db    *sql.DB
	owned bool // Open opened db; New's caller keeps it
	path  string
	// get is Get's statement, prepared once: a GET is the hottest read,
	// and preparing costs about a fifth of it.
	get *sql.Stmt
	// read holds the statements of the read path (read.go).
	read readStmts

	mu     sync.Mutex
	closed bool
}

var (
	_ driver.Store       = (*Store)(nil)
	_ driver.UploadStore = (*Store)(nil)
	_ webhook.Queue      = (*Store)(nil)
)

// DSN is the data source name Open gives database/sql's "sqlite" driver
// (modernc.org/sqlite) for cfg: WAL journal, foreign keys on, BEGIN
// IMMEDIATE transactions, cfg's busy timeout and synchronous level, and
// secure_delete. A caller that opens its own *sql.DB for New opens it
// with this string, so the store runs with the settings it relies on.
func DSN(cfg Config) (string, error) {
	cfg.setDefaults()
	if err := cfg.validate(); err != nil {
		return "", err
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
	return cfg.Path + "?" + q.Encode(), nil
}

// Open opens (creating and migrating when needed) the database at
// cfg.Path. The database runs in WAL mode with foreign keys on.
func Open(cfg Config) (*Store, error) {
	dsn, err := DSN(cfg)
	if err != nil {
		return nil, err
	}
	cfg.setDefaults()
	if err := createFile(cfg.Path); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlite: opening %s: %w", cfg.Path, err)
	}
	db.SetMaxOpenConns(cfg.MaxOpenConns)
	db.SetMaxIdleConns(cfg.MaxOpenConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	s, err := open(db, cfg.Path, cfg.BusyTimeout)
	if err != nil {
		db.Close()
		return nil, err
	}
	s.owned = true
	return s, nil
}

// New is a Store on db, a database the caller opened and keeps: with
// database/sql's "sqlite" driver of modernc.org/sqlite, on a file (DSN
// gives the string to open it with). New migrates the schema as Open does;
// the Store's Close leaves db open. A db that is not a file database on
// that driver, or whose connection lacks foreign keys or WAL, is refused
// with an error naming the setting.
func New(ctx context.Context, db *sql.DB) (*Store, error) {
	if db == nil {
		return nil, errors.New("sqlite: New: db is nil")
	}
	if _, ok := db.Driver().(*sqlite.Driver); !ok {
		return nil, fmt.Errorf("sqlite: New: db uses the driver %T; open it with database/sql's \"sqlite\" driver (modernc.org/sqlite)", db.Driver())
	}
	var path string
	if err := db.QueryRowContext(ctx, `SELECT file FROM pragma_database_list WHERE name = 'main'`).Scan(&path); err != nil {
		return nil, fmt.Errorf("sqlite: New: %w", err)
	}
	if path == "" {
		return nil, errors.New("sqlite: New: db is an in-memory or temporary database; give a file database (sqlite.DSN) or use storage/memory")
	}
	var fk int
	var journal string
	if err := db.QueryRowContext(ctx, `SELECT (SELECT foreign_keys FROM pragma_foreign_keys), (SELECT journal_mode FROM pragma_journal_mode)`).Scan(&fk, &journal); err != nil {
		return nil, fmt.Errorf("sqlite: New: %w", err)
	}
	if fk != 1 || !strings.EqualFold(journal, "wal") {
		return nil, fmt.Errorf("sqlite: New: db runs with foreign_keys=%d and journal_mode=%s; open it with sqlite.DSN (foreign keys on, WAL)", fk, journal)
	}
	return open(db, path, DefaultBusyTimeout)
}

// open migrates db's schema and prepares the Store's statements.
func open(db *sql.DB, path string, busy time.Duration) (*Store, error) {
	ctx, cancel := context.WithTimeout(context.Background(), busy+30*time.Second)
	defer cancel()
	// While another connection turns a new file into a WAL database or
	// recovers its WAL, SQLite reports SQLITE_BUSY at once instead of
	// calling the busy handler, so concurrent openers retry for up to
	// the busy timeout.
	deadline := time.Now().Add(max(busy, time.Second))
	for try := 0; ; try++ {
		err := migrate(ctx, db)
		if err == nil {
			break
		}
		if !isBusy(err) || time.Now().After(deadline) {
			return nil, fmt.Errorf("sqlite: %s: %w", path, err)
		}
		time.Sleep(time.Duration(5+try%5*5) * time.Millisecond)
	}
	get, err := db.PrepareContext(ctx, `SELECT `+recordCols+` FROM transcripts WHERE id = ?`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %s: %w", path, err)
	}
	return &Store{db: db, path: path, get: get}, nil
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

// Close implements driver.Store. Closing twice is nil.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.get.Close()
	s.read.close()
	if !s.owned {
		return nil
	}
	return s.db.Close()
}

// Times are stored as UTC unix nanoseconds; the zero time as math.MinInt64,
