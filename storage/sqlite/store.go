package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math"
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

// migrations[i] moves the schema from version i to i+1.
var migrations = []string{
	`CREATE TABLE transcripts (
		seq         INTEGER PRIMARY KEY AUTOINCREMENT,
		id          TEXT    NOT NULL UNIQUE,
		project_id  TEXT    NOT NULL,
		status      TEXT    NOT NULL,
		deleted     INTEGER NOT NULL DEFAULT 0,
		created     INTEGER NOT NULL,
		completed   INTEGER NOT NULL,
		lease_owner TEXT    NOT NULL DEFAULT '',
		lease_until INTEGER NOT NULL,
		data        BLOB    NOT NULL
	);
	CREATE INDEX transcripts_project ON transcripts (project_id, seq);
	CREATE INDEX transcripts_active ON transcripts (seq) WHERE deleted = 0 AND status IN ('queued', 'processing');
	CREATE TABLE uploads (
		id         TEXT    PRIMARY KEY,
		project_id TEXT    NOT NULL,
		size       INTEGER NOT NULL,
		created    INTEGER NOT NULL
	) WITHOUT ROWID;
	CREATE TABLE deliveries (
		id            TEXT    PRIMARY KEY,
		transcript_id TEXT    NOT NULL,
		attempts      INTEGER NOT NULL,
		next_attempt  INTEGER NOT NULL,
		done          INTEGER NOT NULL DEFAULT 0,
		lease_owner   TEXT    NOT NULL DEFAULT '',
		lease_until   INTEGER NOT NULL,
		data          BLOB    NOT NULL
	);
	CREATE INDEX deliveries_due ON deliveries (next_attempt, id) WHERE done = 0;`,
	// Version 2: uploads remember the transcript using them, and unused
	// ones are found by age for expiry.
	`ALTER TABLE uploads ADD COLUMN transcript_id TEXT NOT NULL DEFAULT '';
	CREATE INDEX uploads_unattached ON uploads (created, id) WHERE transcript_id = '';`,
	// Version 3: claim and engine-crash counts, the webhook status as plain
	// metadata, the sealed list entry apart from the sealed transcript;
	// every upload by age (the janitor reconciles attached ones too); done
	// deliveries by age for purging.
	`ALTER TABLE transcripts ADD COLUMN claims INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE transcripts ADD COLUMN failures INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE transcripts ADD COLUMN webhook_status INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE transcripts ADD COLUMN summary BLOB NOT NULL DEFAULT x'';
	CREATE INDEX uploads_created ON uploads (created, id);
	CREATE INDEX deliveries_done ON deliveries (next_attempt, id) WHERE done = 1;`,
	// Version 4: the sealed transcript (data) becomes the last column. A
	// column after a large value can only be reached by walking that
	// value's whole chain of overflow pages, so with summary after data a
	// list page read every listed transcript in full; now it stops before
	// the first overflow page. The table is rebuilt (SQLite cannot reorder
	// columns) and keeps its AUTOINCREMENT sequence.
	`CREATE TABLE transcripts_v4 (
		seq            INTEGER PRIMARY KEY AUTOINCREMENT,
		id             TEXT    NOT NULL UNIQUE,
		project_id     TEXT    NOT NULL,
		status         TEXT    NOT NULL,
		deleted        INTEGER NOT NULL DEFAULT 0,
		created        INTEGER NOT NULL,
		completed      INTEGER NOT NULL,
		lease_owner    TEXT    NOT NULL DEFAULT '',
		lease_until    INTEGER NOT NULL,
		claims         INTEGER NOT NULL DEFAULT 0,
		failures       INTEGER NOT NULL DEFAULT 0,
		webhook_status INTEGER NOT NULL DEFAULT 0,
		summary        BLOB    NOT NULL DEFAULT x'',
		data           BLOB    NOT NULL
	);
	INSERT INTO transcripts_v4 (seq, id, project_id, status, deleted, created, completed, lease_owner, lease_until, claims, failures, webhook_status, summary, data) SELECT seq, id, project_id, status, deleted, created, completed, lease_owner, lease_until, claims, failures, webhook_status, summary, data FROM transcripts ORDER BY seq;
	DELETE FROM sqlite_sequence WHERE name = 'transcripts_v4';
	INSERT INTO sqlite_sequence (name, seq) SELECT 'transcripts_v4', seq FROM sqlite_sequence WHERE name = 'transcripts';
	DROP TABLE transcripts;
	ALTER TABLE transcripts_v4 RENAME TO transcripts;
	CREATE INDEX transcripts_project ON transcripts (project_id, seq);
	CREATE INDEX transcripts_active ON transcripts (seq) WHERE deleted = 0 AND status IN ('queued', 'processing');`,
}

// SchemaVersion is the schema version this package writes.
var SchemaVersion = len(migrations)

// migrate brings the schema to SchemaVersion inside one immediate
// transaction, so concurrent openers serialize.
func migrate(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("starting migration: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("creating schema_version: %w", err)
	}
	var version int
	switch err := tx.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&version); {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (0)`); err != nil {
			return err
		}
	case err != nil:
		return fmt.Errorf("reading schema_version: %w", err)
	}
	if version > len(migrations) {
		return fmt.Errorf("database schema version %d is newer than this build supports (%d)", version, len(migrations))
	}
	for v := version; v < len(migrations); v++ {
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			return fmt.Errorf("migrating schema to version %d: %w", v+1, err)
		}
	}
	if version < len(migrations) {
		if _, err := tx.ExecContext(ctx, `UPDATE schema_version SET version = ?`, len(migrations)); err != nil {
			return err
		}
	}
	return tx.Commit()
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
	return s.db.Close()
}

// Times are stored as UTC unix nanoseconds; the zero time as math.MinInt64,
// which sorts before every other time, so "before now" comparisons treat
// an unset lease as expired and an unset NextAttempt as due.
const zeroTime = math.MinInt64

// minTime and maxTime bound the times a unix-nanosecond integer holds.
var (
	minTime = time.Unix(0, math.MinInt64+1)
	maxTime = time.Unix(0, math.MaxInt64)
)

func encTime(field string, t time.Time) (int64, error) {
	if t.IsZero() {
		return zeroTime, nil
	}
	if t.Before(minTime) || t.After(maxTime) {
		return 0, fmt.Errorf("sqlite: %s %v is outside the storable range (years 1678 to 2262)", field, t)
	}
	return t.UnixNano(), nil
}

func decTime(n int64) time.Time {
	if n == zeroTime {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// recordCols are the columns of a whole record; listCols leave out the
// sealed transcript (data), which List does not return, and which is the
// table's last column so that reading the others never touches it.
const (
	recordCols = listCols + `, data`
	listCols   = `seq, id, project_id, status, deleted, created, completed, lease_owner, lease_until, claims, failures, webhook_status, summary`
)

type scanner interface{ Scan(dest ...any) error }

// scanRecord reads recordCols, or listCols when withData is false.
func scanRecord(sc scanner, withData bool) (*transcribe.Record, error) {
	if !withData {
		return scanRecordInto(sc, nil)
	}
	var data []byte
	r, err := scanRecordInto(sc, &data)
	if r != nil {
		r.Data = data
	}
	return r, err
}

// scanRecordInto scans a record, its data column (the last) into data
// when data is not nil.
func scanRecordInto(sc scanner, data any) (*transcribe.Record, error) {
	var (
		r                            transcribe.Record
		status                       string
		deleted                      int
		created, completed, leaseEnd int64
	)
	dest := []any{&r.Seq, &r.ID, &r.ProjectID, &status, &deleted, &created, &completed, &r.LeaseOwner, &leaseEnd,
		&r.Claims, &r.Failures, &r.WebhookStatus, &r.Summary}
	if data != nil {
		dest = append(dest, data)
	}
	if err := sc.Scan(dest...); err != nil {
		return nil, err
	}
	r.Status = transcribe.Status(status)
	r.Deleted = deleted != 0
	r.Created, r.Completed, r.LeaseUntil = decTime(created), decTime(completed), decTime(leaseEnd)
	return &r, nil
}

// recordTimes encodes the three times of r.
func recordTimes(r *transcribe.Record) (created, completed, leaseUntil int64, err error) {
	if created, err = encTime("Created", r.Created); err != nil {
		return
	}
	if completed, err = encTime("Completed", r.Completed); err != nil {
		return
	}
	leaseUntil, err = encTime("LeaseUntil", r.LeaseUntil)
	return
}

// Create implements transcribe.Store.
func (s *Store) Create(ctx context.Context, r *transcribe.Record) error {
	if r == nil || r.ID == "" {
		return errors.New("sqlite: Create: record id is empty")
	}
	created, completed, leaseUntil, err := recordTimes(r)
	if err != nil {
		return err
	}
	var seq int64
	err = s.db.QueryRowContext(ctx, `INSERT INTO transcripts
		(id, project_id, status, deleted, created, completed, lease_owner, lease_until, claims, failures, webhook_status, summary, data)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO NOTHING
		RETURNING seq`,
		r.ID, r.ProjectID, string(r.Status), boolInt(r.Deleted), created, completed, r.LeaseOwner, leaseUntil,
		r.Claims, r.Failures, r.WebhookStatus, nonNil(r.Summary), nonNil(r.Data)).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("sqlite: transcript %s: %w", r.ID, transcribe.ErrExists)
	}
	if err != nil {
		return fmt.Errorf("sqlite: creating transcript %s: %w", r.ID, err)
	}
	r.Seq = seq
	return nil
}

// Get implements transcribe.Store.
//
// Data, the largest part of a GET (a few hundred KB for an hour of
// audio), is scanned as sql.RawBytes and kept: modernc's driver hands out
// every blob as a slice of its own, allocated for that row
// (conn.columnBlob in v1.60.1) and never reused, so database/sql's copy
// of it would only double the bytes to allocate and collect.
// TestGetDataIsOwned checks that the slice survives later reads.
func (s *Store) Get(ctx context.Context, id string) (*transcribe.Record, error) {
	rows, err := s.get.QueryContext(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("sqlite: reading transcript %s: %w", id, err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("sqlite: reading transcript %s: %w", id, err)
		}
		return nil, fmt.Errorf("sqlite: transcript %s: %w", id, transcribe.ErrNotFound)
	}
	var data sql.RawBytes
	r, err := scanRecordInto(rows, &data)
	if err != nil {
		return nil, fmt.Errorf("sqlite: reading transcript %s: %w", id, err)
	}
	r.Data = data
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("sqlite: reading transcript %s: %w", id, err)
	}
	return r, nil
}

// Update implements transcribe.Store. The lease check and the write are
// one statement.
func (s *Store) Update(ctx context.Context, r *transcribe.Record) error {
	if r == nil {
		return errors.New("sqlite: Update: nil record")
	}
	_, completed, leaseUntil, err := recordTimes(&transcribe.Record{Completed: r.Completed, LeaseUntil: r.LeaseUntil})
	if err != nil {
		return err
	}
	res, err := s.db.ExecContext(ctx, `UPDATE transcripts SET
		status = ?, deleted = ?, completed = ?, lease_owner = ?, lease_until = ?, failures = ?, summary = ?, data = ?
		WHERE id = ? AND (? = '' OR lease_owner = ?)`,
		string(r.Status), boolInt(r.Deleted), completed, r.LeaseOwner, leaseUntil, r.Failures, nonNil(r.Summary), nonNil(r.Data),
		r.ID, r.LeaseOwner, r.LeaseOwner)
	if err != nil {
		return fmt.Errorf("sqlite: updating transcript %s: %w", r.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("sqlite: updating transcript %s: %w", r.ID, err)
	} else if n == 1 {
		if r.Deleted {
			// Push the overwrite into the database file and empty the WAL,
			// where the old page images would otherwise stay until the next
			// checkpoint. Best effort: a busy reader delays it to the next.
			_, _ = s.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
		}
		return nil
	}
	return s.missOrLost(ctx, "transcripts", "transcript", r.ID, r.LeaseOwner)
}

// missOrLost explains an UPDATE that matched no row: the id is absent
// (ErrNotFound) or leased by someone else (ErrLeaseLost).
func (s *Store) missOrLost(ctx context.Context, table, what, id, owner string) error {
	var cur string
	err := s.db.QueryRowContext(ctx, `SELECT lease_owner FROM `+table+` WHERE id = ?`, id).Scan(&cur)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("sqlite: %s %s: %w", what, id, transcribe.ErrNotFound)
	case err != nil:
		return fmt.Errorf("sqlite: reading %s %s: %w", what, id, err)
	}
	return fmt.Errorf("sqlite: %s %s is leased by %q, not %q: %w", what, id, cur, owner, transcribe.ErrLeaseLost)
}

// List implements transcribe.Store. Limit <= 0 means no limit. With
// AfterID set, the Limit oldest matching records newer than it are
// selected and returned newest first. The cursors are resolved inside the
// query; a cursor that is not one of the project's records is
// ErrNotFound.
func (s *Store) List(ctx context.Context, q transcribe.ListQuery) ([]*transcribe.Record, error) {
	if q.ProjectID == "" {
		return nil, errors.New("sqlite: List: ProjectID is required")
	}
	for _, id := range []string{q.BeforeID, q.AfterID} {
		if id == "" {
			continue
		}
		var one int
		err := s.db.QueryRowContext(ctx, `SELECT 1 FROM transcripts WHERE id = ? AND project_id = ?`, id, q.ProjectID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("sqlite: transcript %s in project %s: %w", id, q.ProjectID, transcribe.ErrNotFound)
		}
		if err != nil {
			return nil, fmt.Errorf("sqlite: listing transcripts: %w", err)
		}
	}
	query, args, err := listSQL(q)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: listing transcripts: %w", err)
	}
	defer rows.Close()
	out := []*transcribe.Record{}
	for rows.Next() {
		r, err := scanRecord(rows, false)
		if err != nil {
			return nil, fmt.Errorf("sqlite: listing transcripts: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: listing transcripts: %w", err)
	}
	if q.AfterID != "" {
		slices.Reverse(out)
	}
	return out, nil
}

// listSQL builds List's query.
func listSQL(q transcribe.ListQuery) (string, []any, error) {
	var (
		where = []string{"project_id = ?"}
		args  = []any{q.ProjectID}
	)
	if !q.IncludeDeleted {
		where = append(where, "deleted = 0")
	}
	if q.Status != "" {
		where, args = append(where, "status = ?"), append(args, string(q.Status))
	}
	if !q.CreatedFrom.IsZero() {
		n, err := encTime("CreatedFrom", q.CreatedFrom)
		if err != nil {
			return "", nil, err
		}
		where, args = append(where, "created >= ?"), append(args, n)
	}
	if !q.CreatedBefore.IsZero() {
		n, err := encTime("CreatedBefore", q.CreatedBefore)
		if err != nil {
			return "", nil, err
		}
		where, args = append(where, "created < ?"), append(args, n)
	}
	if q.BeforeID != "" {
		where, args = append(where, "seq < (SELECT seq FROM transcripts WHERE id = ?)"), append(args, q.BeforeID)
	}
	if q.AfterID != "" {
		where, args = append(where, "seq > (SELECT seq FROM transcripts WHERE id = ?)"), append(args, q.AfterID)
	}
	order := "DESC"
	if q.AfterID != "" {
		order = "ASC"
	}
	limit := int64(-1)
	if q.Limit > 0 {
		limit = int64(q.Limit)
	}
	args = append(args, limit)
	return `SELECT ` + listCols + ` FROM transcripts WHERE ` + strings.Join(where, " AND ") +
		` ORDER BY seq ` + order + ` LIMIT ?`, args, nil
}

// claimJobSQL claims the oldest claimable record; the transcripts_active
// index holds only queued and processing records, so the scan skips the
// finished ones.
const claimJobSQL = `UPDATE transcripts
		SET status = 'processing', lease_owner = ?, lease_until = ?, claims = claims + 1
		WHERE seq = (
			SELECT seq FROM transcripts
			WHERE deleted = 0 AND status IN ('queued', 'processing') AND (status = 'queued' OR lease_until < ?)
			ORDER BY seq LIMIT 1)
		RETURNING ` + recordCols

// leaseWindow encodes a claim's "now" and the end of its lease.
func leaseWindow(now time.Time, lease time.Duration) (nowN, until int64, err error) {
	if nowN, err = encTime("now", now); err != nil {
		return 0, 0, err
	}
	until, err = encTime("lease end", now.Add(lease))
	return nowN, until, err
}

// ClaimJob implements transcribe.Store with one UPDATE ... WHERE seq =
// (SELECT ...) RETURNING statement: SQLite runs it under the database's
// write lock, so claims are atomic across connections and processes.
func (s *Store) ClaimJob(ctx context.Context, c transcribe.Claim) (*transcribe.Record, error) {
	if c.Owner == "" {
		return nil, errors.New("sqlite: ClaimJob: owner is empty")
	}
	nowN, until, err := leaseWindow(c.Now, c.Lease)
	if err != nil {
		return nil, err
	}
	r, err := scanRecord(s.db.QueryRowContext(ctx, claimJobSQL, c.Owner, until, nowN), true)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlite: %w", transcribe.ErrNoJob)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: claiming a job: %w", err)
	}
	return r, nil
}

// ExtendLease implements transcribe.Store.
func (s *Store) ExtendLease(ctx context.Context, l transcribe.Lease) error {
	id, owner := l.ID, l.Owner
	n, err := encTime("until", l.Until)
	if err != nil {
		return err
	}
	if owner == "" {
		return s.missOrLost(ctx, "transcripts", "transcript", id, owner)
	}
	res, err := s.db.ExecContext(ctx, `UPDATE transcripts SET lease_until = ? WHERE id = ? AND lease_owner = ?`, n, id, owner)
	if err != nil {
		return fmt.Errorf("sqlite: extending the lease of %s: %w", id, err)
	}
	if k, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("sqlite: extending the lease of %s: %w", id, err)
	} else if k == 1 {
		return nil
	}
	return s.missOrLost(ctx, "transcripts", "transcript", id, owner)
}

// SetWebhookStatus implements transcribe.Store.
func (s *Store) SetWebhookStatus(ctx context.Context, id string, code int) error {
	res, err := s.db.ExecContext(ctx, `UPDATE transcripts SET webhook_status = ? WHERE id = ?`, code, id)
	if err != nil {
		return fmt.Errorf("sqlite: recording the webhook status of %s: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("sqlite: recording the webhook status of %s: %w", id, err)
	} else if n == 0 {
		return fmt.Errorf("sqlite: transcript %s: %w", id, transcribe.ErrNotFound)
	}
	return nil
}

// CreateUpload implements transcribe.UploadStore; an id already present gives
// an error wrapping transcribe.ErrExists.
func (s *Store) CreateUpload(ctx context.Context, u *transcribe.Upload) error {
	if u == nil || u.ID == "" {
		return errors.New("sqlite: CreateUpload: upload id is empty")
	}
	created, err := encTime("Created", u.Created)
	if err != nil {
		return err
	}
	res, err := s.db.ExecContext(ctx, `INSERT INTO uploads (id, project_id, size, created, transcript_id) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (id) DO NOTHING`, u.ID, u.ProjectID, u.Size, created, u.TranscriptID)
	if err != nil {
		return fmt.Errorf("sqlite: creating upload %s: %w", u.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("sqlite: creating upload %s: %w", u.ID, err)
	} else if n == 0 {
		return fmt.Errorf("sqlite: upload %s: %w", u.ID, transcribe.ErrExists)
	}
	return nil
}

// GetUpload implements transcribe.UploadStore.
func (s *Store) GetUpload(ctx context.Context, id string) (*transcribe.Upload, error) {
	var (
		u       transcribe.Upload
		created int64
	)
	err := s.db.QueryRowContext(ctx, `SELECT id, project_id, size, created, transcript_id FROM uploads WHERE id = ?`, id).
		Scan(&u.ID, &u.ProjectID, &u.Size, &created, &u.TranscriptID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlite: upload %s: %w", id, transcribe.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: reading upload %s: %w", id, err)
	}
	u.Created = decTime(created)
	return &u, nil
}

// DeleteUpload implements transcribe.UploadStore.
func (s *Store) DeleteUpload(ctx context.Context, id string) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM uploads WHERE id = ?`, id); err != nil {
		return fmt.Errorf("sqlite: deleting upload %s: %w", id, err)
	}
	return nil
}

// AttachUpload implements transcribe.UploadStore with one conditional
// UPDATE, so two transcripts can never both take an upload.
func (s *Store) AttachUpload(ctx context.Context, uploadID, transcriptID string) error {
	res, err := s.db.ExecContext(ctx, `UPDATE uploads SET transcript_id = ?
		WHERE id = ? AND (? = '' OR transcript_id = '' OR transcript_id = ?)`, transcriptID, uploadID, transcriptID, transcriptID)
	if err != nil {
		return fmt.Errorf("sqlite: attaching upload %s: %w", uploadID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("sqlite: attaching upload %s: %w", uploadID, err)
	} else if n == 1 {
		return nil
	}
	u, err := s.GetUpload(ctx, uploadID)
	if err != nil {
		return err
	}
	return fmt.Errorf("sqlite: upload %s is used by transcript %s: %w", uploadID, u.TranscriptID, transcribe.ErrExists)
}

// ListUploads implements transcribe.UploadStore. It reads an index in
// (created, id) order and never sorts.
func (s *Store) ListUploads(ctx context.Context, q transcribe.UploadQuery) ([]*transcribe.Upload, error) {
	query, args, err := listUploadsSQL(q)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: listing uploads: %w", err)
	}
	defer rows.Close()
	var out []*transcribe.Upload
	for rows.Next() {
		var (
			u       transcribe.Upload
			created int64
		)
		if err := rows.Scan(&u.ID, &u.ProjectID, &u.Size, &created, &u.TranscriptID); err != nil {
			return nil, fmt.Errorf("sqlite: listing uploads: %w", err)
		}
		u.Created = decTime(created)
		out = append(out, &u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: listing uploads: %w", err)
	}
	return out, nil
}

// listUploadsSQL builds the ListUploads statement. A cutoff past the
// storable range selects every upload; one before it selects those with a
// zero Created, which sort first.
func listUploadsSQL(q transcribe.UploadQuery) (string, []any, error) {
	var where []string
	var args []any
	if q.Unattached {
		where = append(where, "transcript_id = ''")
	}
	switch b := q.CreatedBefore; {
	case b.IsZero(), b.After(maxTime):
	case b.Before(minTime):
		where, args = append(where, "created < ?"), append(args, int64(math.MinInt64+1))
	default:
		where, args = append(where, "created < ?"), append(args, b.UnixNano())
	}
	if q.AfterID != "" {
		after, err := encTime("AfterCreated", q.AfterCreated)
		if err != nil {
			return "", nil, err
		}
		where, args = append(where, "(created, id) > (?, ?)"), append(args, after, q.AfterID)
	}
	query := `SELECT id, project_id, size, created, transcript_id FROM uploads`
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, " AND ")
	}
	query += ` ORDER BY created, id`
	if q.Limit > 0 {
		query += ` LIMIT ?`
		args = append(args, q.Limit)
	}
	return query, args, nil
}

const deliveryCols = `id, transcript_id, attempts, next_attempt, done, lease_owner, lease_until, data`

func scanDelivery(sc scanner) (*webhook.Delivery, error) {
	var (
		d           webhook.Delivery
		done        int
		next, until int64
	)
	if err := sc.Scan(&d.ID, &d.TranscriptID, &d.Attempts, &next, &done, &d.LeaseOwner, &until, &d.Data); err != nil {
		return nil, err
	}
	d.Done = done != 0
	d.NextAttempt, d.LeaseUntil = decTime(next), decTime(until)
	return &d, nil
}

func deliveryTimes(d *webhook.Delivery) (next, until int64, err error) {
	if next, err = encTime("NextAttempt", d.NextAttempt); err != nil {
		return
	}
	until, err = encTime("LeaseUntil", d.LeaseUntil)
	return
}

// AddDelivery implements webhook.Queue.
func (s *Store) AddDelivery(ctx context.Context, d *webhook.Delivery) error {
	if d == nil || d.ID == "" {
		return errors.New("sqlite: AddDelivery: delivery id is empty")
	}
	next, until, err := deliveryTimes(d)
	if err != nil {
		return err
	}
	res, err := s.db.ExecContext(ctx, `INSERT INTO deliveries (`+deliveryCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO NOTHING`,
		d.ID, d.TranscriptID, d.Attempts, next, boolInt(d.Done), d.LeaseOwner, until, nonNil(d.Data))
	if err != nil {
		return fmt.Errorf("sqlite: adding delivery %s: %w", d.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("sqlite: adding delivery %s: %w", d.ID, err)
	} else if n == 0 {
		return fmt.Errorf("sqlite: delivery %s: %w", d.ID, transcribe.ErrExists)
	}
	return nil
}

// claimDeliverySQL claims the due delivery with the earliest NextAttempt.
const claimDeliverySQL = `UPDATE deliveries
		SET lease_owner = ?, lease_until = ?
		WHERE id = (
			SELECT id FROM deliveries
			WHERE done = 0 AND next_attempt <= ? AND (lease_owner = '' OR lease_until < ?)
			ORDER BY next_attempt, id LIMIT 1)
		RETURNING ` + deliveryCols

// ClaimDelivery implements webhook.Queue: the not-done delivery with
// the earliest NextAttempt at or before now whose lease is free (no owner)
// or expired (LeaseUntil before now); ties go to the smaller id. Atomic
// like ClaimJob.
func (s *Store) ClaimDelivery(ctx context.Context, c webhook.Claim) (*webhook.Delivery, error) {
	if c.Owner == "" {
		return nil, errors.New("sqlite: ClaimDelivery: owner is empty")
	}
	nowN, until, err := leaseWindow(c.Now, c.Lease)
	if err != nil {
		return nil, err
	}
	d, err := scanDelivery(s.db.QueryRowContext(ctx, claimDeliverySQL, c.Owner, until, nowN, nowN))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlite: %w", webhook.ErrNoDelivery)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: claiming a delivery: %w", err)
	}
	return d, nil
}

// UpdateDelivery implements webhook.Queue.
func (s *Store) UpdateDelivery(ctx context.Context, d *webhook.Delivery) error {
	if d == nil {
		return errors.New("sqlite: UpdateDelivery: nil delivery")
	}
	next, until, err := deliveryTimes(d)
	if err != nil {
		return err
	}
	res, err := s.db.ExecContext(ctx, `UPDATE deliveries SET
		attempts = ?, next_attempt = ?, done = ?, lease_owner = ?, lease_until = ?, data = ?
		WHERE id = ? AND lease_owner = ?`,
		d.Attempts, next, boolInt(d.Done), d.LeaseOwner, until, nonNil(d.Data),
		d.ID, d.LeaseOwner)
	if err != nil {
		return fmt.Errorf("sqlite: updating delivery %s: %w", d.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("sqlite: updating delivery %s: %w", d.ID, err)
	} else if n == 1 {
		return nil
	}
	return s.missOrLost(ctx, "deliveries", "delivery", d.ID, d.LeaseOwner)
}

// PurgeDeliveries implements webhook.Queue.
func (s *Store) PurgeDeliveries(ctx context.Context, doneBefore time.Time, limit int) (int, error) {
	before, err := encTime("doneBefore", doneBefore)
	if err != nil {
		return 0, err
	}
	if limit <= 0 {
		limit = -1
	}
	res, err := s.db.ExecContext(ctx, `DELETE FROM deliveries WHERE id IN (
		SELECT id FROM deliveries WHERE done = 1 AND next_attempt < ? ORDER BY next_attempt, id LIMIT ?)`, before, limit)
	if err != nil {
		return 0, fmt.Errorf("sqlite: purging deliveries: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("sqlite: purging deliveries: %w", err)
	}
	return int(n), nil
}
