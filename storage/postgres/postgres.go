package postgres

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/earshot-dev/earshot/storage/internal/pagecache"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/webhook"
)

// ErrSchemaTooNew is wrapped by Open's error when the database was
// migrated by a newer build of this package than the running one.
var ErrSchemaTooNew = errors.New("postgres: database schema is newer than this build supports")

// Store is a driver.Store, driver.UploadStore and webhook.Queue in
// one schema of a PostgreSQL database. It is safe for concurrent use by
// several goroutines, and any number of Stores, in one process or many,
// may share the schema: claims lock rows with FOR UPDATE SKIP LOCKED, and
// every lease check is part of the statement that writes.
type Store struct {
	pool     *pgxpool.Pool
	schema   string
	borrowed bool // New's caller keeps the pool

	closed    atomic.Bool
	closeOnce sync.Once

	// pages are ListPage's pages, kept while the snapshot is the same
	// (page.go).
	pages pagecache.Cache
	// reads batches GetUnlessSummary's reads (read.go, readbatch.go),
	// snapshots ListPage's reads of the snapshot (page.go).
	reads     batcher[readQuery, *driver.Record]
	snapshots batcher[struct{}, string]
}

var (
	_ driver.Store       = (*Store)(nil)
	_ driver.UploadStore = (*Store)(nil)
	_ webhook.Queue      = (*Store)(nil)
)

// Open connects to the database of cfg.URL, creates cfg.Schema when it is
// missing, and brings the schema's tables to SchemaVersion. Several
// processes may Open the same database at once: the migration runs in one
// transaction under an advisory lock, so it is applied exactly once. A
// schema migrated by a newer build is refused with an error wrapping
// ErrSchemaTooNew. ctx bounds the connection and the migration; the
// returned Store does not keep it.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	pc, err := poolConfig(cfg)
	if err != nil {
		return nil, err
	}
	secrets := append([]string{pc.ConnConfig.Password}, passwordCandidates(cfg.URL)...)
	schema := cfg.Schema
	if schema == "" {
		schema = DefaultSchema
	}
	where := fmt.Sprintf("%s@%s:%d/%s (schema %s)", pc.ConnConfig.User, pc.ConnConfig.Host, pc.ConnConfig.Port, pc.ConnConfig.Database, schema)
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, redact(fmt.Errorf("postgres: %s: %w", where, err), secrets...)
	}
	if err := migrate(ctx, pool, schema); err != nil {
		pool.Close()
		return nil, redact(fmt.Errorf("postgres: %s: %w", where, err), secrets...)
	}
	return &Store{pool: pool, schema: schema}, nil
}

// Schema returns the PostgreSQL schema the store's tables are in.
func (s *Store) Schema() string { return s.schema }

// Close implements driver.Store: it waits for statements in progress
// and closes every connection. Later calls of any method return an error
// wrapping transcribe.ErrClosed; closing twice is nil.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		if !s.borrowed {
			s.pool.Close()
		}
	})
	return nil
}

// migrations[i] moves the schema from version i to i+1. A released
// migration is never edited; changes are new entries.
var migrations = []string{
	// Version 1. Identifiers that are sorted (ids) use the "C" collation:
	// byte order, the same on every server whatever its locale. Sealed
	// content does not compress, so its columns skip TOAST compression
	// (STORAGE EXTERNAL). A zero time is stored as -infinity, which sorts
	// before every time: an unset lease is expired, an unset NextAttempt
	// is due.
	`CREATE TABLE transcripts (
		seq            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
		id             text COLLATE "C" NOT NULL UNIQUE,
		project_id     text COLLATE "C" NOT NULL,
		status         text        NOT NULL,
		deleted        boolean     NOT NULL DEFAULT false,
		created        timestamptz NOT NULL,
		completed      timestamptz NOT NULL DEFAULT '-infinity',
		lease_owner    text        NOT NULL DEFAULT '',
		lease_until    timestamptz NOT NULL DEFAULT '-infinity',
		claims         integer     NOT NULL DEFAULT 0,
		failures       integer     NOT NULL DEFAULT 0,
		webhook_status integer     NOT NULL DEFAULT 0,
		summary        bytea       NOT NULL DEFAULT '',
		data           bytea       NOT NULL DEFAULT ''
	);
	ALTER TABLE transcripts ALTER COLUMN summary SET STORAGE EXTERNAL, ALTER COLUMN data SET STORAGE EXTERNAL;
	CREATE INDEX transcripts_by_project ON transcripts (project_id, seq);
	CREATE INDEX transcripts_claimable ON transcripts (seq) WHERE NOT deleted AND status IN ('queued', 'processing');

	CREATE TABLE uploads (
		id            text COLLATE "C" PRIMARY KEY,
		project_id    text COLLATE "C" NOT NULL,
		size          bigint      NOT NULL,
		created       timestamptz NOT NULL,
		transcript_id text COLLATE "C" NOT NULL DEFAULT ''
	);
	CREATE INDEX uploads_by_age ON uploads (created, id);
	CREATE INDEX uploads_unattached_by_age ON uploads (created, id) WHERE transcript_id = '';

	CREATE TABLE deliveries (
		id            text COLLATE "C" PRIMARY KEY,
		transcript_id text COLLATE "C" NOT NULL,
		attempts      integer     NOT NULL DEFAULT 0,
		next_attempt  timestamptz NOT NULL,
		done          boolean     NOT NULL DEFAULT false,
		lease_owner   text        NOT NULL DEFAULT '',
		lease_until   timestamptz NOT NULL DEFAULT '-infinity',
		data          bytea       NOT NULL DEFAULT ''
	);
	ALTER TABLE deliveries ALTER COLUMN data SET STORAGE EXTERNAL;
	CREATE INDEX deliveries_pending ON deliveries (next_attempt, id) WHERE NOT done;
	CREATE INDEX deliveries_finished ON deliveries (next_attempt, id) WHERE done;`,

	// Version 2: the realtime state (RealtimeState). Tokens are kept by
	// their SHA-256 only; a used token names its session. Session options
	// are JSON (sample rate, encoding, word boost, flags).
	`CREATE TABLE realtime_tokens (
		hash       text COLLATE "C" PRIMARY KEY,
		project_id text COLLATE "C" NOT NULL,
		expires    timestamptz NOT NULL,
		session_id text COLLATE "C" NOT NULL DEFAULT ''
	);
	CREATE INDEX realtime_tokens_unused ON realtime_tokens (project_id, expires) WHERE session_id = '';

	CREATE TABLE realtime_sessions (
		id                   text COLLATE "C" PRIMARY KEY,
		project_id           text COLLATE "C" NOT NULL,
		token_hash           text COLLATE "C" NOT NULL DEFAULT '',
		options              jsonb       NOT NULL,
		started              timestamptz NOT NULL,
		expires_at           timestamptz NOT NULL,
		state                text        NOT NULL,
		owner                text        NOT NULL DEFAULT '',
		attached             boolean     NOT NULL DEFAULT false,
		lease_until          timestamptz NOT NULL DEFAULT '-infinity',
		detached_at          timestamptz NOT NULL DEFAULT '-infinity',
		audio_samples        bigint      NOT NULL DEFAULT 0,
		silence_threshold_us bigint      NOT NULL DEFAULT 0,
		resumes              integer     NOT NULL DEFAULT 0,
		ended_at             timestamptz NOT NULL DEFAULT '-infinity',
		purge_after          timestamptz NOT NULL,
		version              bigint      NOT NULL DEFAULT 1
	);
	CREATE INDEX realtime_sessions_purge ON realtime_sessions (purge_after);`,

	// Version 3: the outbox flag (driver.Record.NotifyPending): a
	// final result whose webhooks are not all queued yet, written with the
	// result in one UPDATE and found again through a partial index.
	`ALTER TABLE transcripts ADD COLUMN notify_pending boolean NOT NULL DEFAULT false;
	CREATE INDEX transcripts_notify_pending ON transcripts (completed, seq) WHERE notify_pending;`,
}

// SchemaVersion is the schema version this build writes.
var SchemaVersion = len(migrations)

// migrationLockKey is the advisory lock serializing migrations of schema
// in one database; other schemas migrate without waiting.
func migrationLockKey(schema string) int64 {
	h := fnv.New64a()
	h.Write([]byte("earshot/storage/postgres migrate " + schema))
	return int64(h.Sum64())
}

// migrate creates schema when missing and applies the migrations it lacks,
// recording each version in schema_migrations, all in one transaction
// under a transaction-scoped advisory lock: concurrent openers wait, then
// find the work done. Nothing is left half-applied; a failure rolls
// everything back.
func migrate(ctx context.Context, pool *pgxpool.Pool, schema string) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLockKey(schema)); err != nil {
		return fmt.Errorf("waiting for the migration lock: %w", err)
	}
	ident := pgx.Identifier{schema}.Sanitize()
	// CREATE SCHEMA IF NOT EXISTS checks the CREATE privilege on the
	// database even when the schema exists, so look first: a role that
	// may only use an existing schema can still open it.
	var exists bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_namespace WHERE nspname = $1)`, schema).Scan(&exists); err != nil {
		return fmt.Errorf("looking up schema %s: %w", schema, err)
	}
	if !exists {
		if _, err := tx.Exec(ctx, `CREATE SCHEMA `+ident); err != nil {
			return fmt.Errorf("creating schema %s: %w", schema, err)
		}
	}
	// The connection's search_path named the schema before it existed;
	// setting it again makes this transaction create the tables there.
	if _, err := tx.Exec(ctx, `SET LOCAL search_path TO `+ident); err != nil {
		return err
	}
	// Look before creating here too: CREATE TABLE IF NOT EXISTS needs the
	// CREATE privilege on the schema even when the table exists, and a
	// role with only USAGE and row privileges may open a migrated schema.
	var tracked bool
	if err := tx.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, ident+".schema_migrations").Scan(&tracked); err != nil {
		return fmt.Errorf("looking up schema_migrations: %w", err)
	}
	if !tracked {
		if _, err := tx.Exec(ctx, `CREATE TABLE schema_migrations (
			version    integer     PRIMARY KEY,
			applied_at timestamptz NOT NULL DEFAULT now()
		)`); err != nil {
			return fmt.Errorf("creating schema_migrations: %w", err)
		}
	}
	var version int
	if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&version); err != nil {
		return fmt.Errorf("reading schema_migrations: %w", err)
	}
	if version > len(migrations) {
		return fmt.Errorf("schema version %d, this build knows up to %d: %w", version, len(migrations), ErrSchemaTooNew)
	}
	if version == len(migrations) {
		return nil // up to date; the rollback releases the lock
	}
	for v := version; v < len(migrations); v++ {
		if _, err := tx.Exec(ctx, migrations[v]); err != nil {
			return fmt.Errorf("migrating schema %s to version %d: %w", schema, v+1, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version) VALUES ($1)`, v+1); err != nil {
			return fmt.Errorf("recording schema version %d: %w", v+1, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("committing the migration: %w", err)
	}
	return nil
}

// The range of PostgreSQL's timestamptz, with a margin: 4713 BC to
// 294276 AD.
var (
	minTime = time.Date(-4712, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(294276, 1, 1, 0, 0, 0, 0, time.UTC)
)

var (
	negInf = pgtype.Timestamptz{InfinityModifier: pgtype.NegativeInfinity, Valid: true}
	posInf = pgtype.Timestamptz{InfinityModifier: pgtype.Infinity, Valid: true}
)

// stamp encodes a time to store: the zero time as -infinity, others to
// the microsecond (pgx truncates). A time PostgreSQL cannot hold is an
// error naming field.
func stamp(field string, t time.Time) (pgtype.Timestamptz, error) {
	if t.IsZero() {
		return negInf, nil
	}
	if t.Before(minTime) || !t.Before(maxTime) {
		return pgtype.Timestamptz{}, fmt.Errorf("postgres: %s %v is outside PostgreSQL's timestamp range (4713 BC to 294276 AD)", field, t)
	}
	return pgtype.Timestamptz{Time: t, Valid: true}, nil
}

// bound encodes a time a query compares with, clamping times PostgreSQL
// cannot hold to -infinity or +infinity; the zero time is -infinity, where
// zero times are stored.
func bound(t time.Time) pgtype.Timestamptz {
	switch {
	case t.IsZero(), t.Before(minTime):
		return negInf
	case !t.Before(maxTime):
		return posInf
	}
	return pgtype.Timestamptz{Time: t, Valid: true}
}

// unstamp decodes a stored time; -infinity (and NULL) is the zero time.
func unstamp(ts pgtype.Timestamptz) time.Time {
	if !ts.Valid || ts.InfinityModifier != pgtype.Finite {
		return time.Time{}
	}
	return ts.Time.UTC()
}

// leaseWindow encodes a claim's time and the end of its lease. A zero
// claim time is -infinity, as in storage/memory: only deliveries with a
// zero NextAttempt and no lease owner are due then.
func leaseWindow(now time.Time, lease time.Duration) (at, until pgtype.Timestamptz, err error) {
	if lease < 0 {
		return at, until, fmt.Errorf("postgres: lease %v is negative", lease)
	}
	if at, err = stamp("claim time", now); err != nil {
		return at, until, err
	}
	until, err = stamp("lease end", now.Add(lease))
	return at, until, err
}

// storable reports whether PostgreSQL's text type can hold s (valid UTF-8
// without NUL bytes). A lookup of a key it cannot hold finds nothing.
func storable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// checkText returns an error naming field when s cannot be stored.
func checkText(field, s string) error {
	if !storable(s) {
		return fmt.Errorf("postgres: %s %q is not valid UTF-8 without NUL bytes (PostgreSQL text cannot hold it)", field, s)
	}
	return nil
}

// bytea is b for a NOT NULL bytea column: pgx sends a nil slice as NULL.
func bytea(b []byte) []byte {
	if b != nil {
		return b
	}
	return []byte{}
}

// fail wraps a database error of operation op. After Close it wraps
// transcribe.ErrClosed too.
func (s *Store) fail(op string, err error) error {
	if s.closed.Load() {
		return fmt.Errorf("postgres: %s: %w (%w)", op, transcribe.ErrClosed, err)
	}
	return fmt.Errorf("postgres: %s: %w", op, err)
}

// errClosed is returned by every method called after Close.
func errClosed(op string) error {
	return fmt.Errorf("postgres: %s: store is closed: %w", op, transcribe.ErrClosed)
}

// lostOrMissing explains a conditional write that matched no row, from
// the row's current lease owner as the same statement saw it: nil owner
// means the row does not exist.
func lostOrMissing(what, id, owner string, cur *string) error {
	if cur == nil {
		return fmt.Errorf("postgres: %s %s: %w", what, id, transcribe.ErrNotFound)
	}
	return fmt.Errorf("postgres: %s %s is leased by %q, not %q: %w", what, id, *cur, owner, transcribe.ErrLeaseLost)
}
