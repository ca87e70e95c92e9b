package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

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
	// Version 5: the outbox flag (notify_pending: the final result's
	// webhooks are not all queued yet), written with the result in one
	// statement. It goes before summary and data for the reason of version
	// 4, so the table is rebuilt the same way.
	`CREATE TABLE transcripts_v5 (
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
		notify_pending INTEGER NOT NULL DEFAULT 0,
		summary        BLOB    NOT NULL DEFAULT x'',
		data           BLOB    NOT NULL
	);
	INSERT INTO transcripts_v5 (seq, id, project_id, status, deleted, created, completed, lease_owner, lease_until, claims, failures, webhook_status, summary, data) SELECT seq, id, project_id, status, deleted, created, completed, lease_owner, lease_until, claims, failures, webhook_status, summary, data FROM transcripts ORDER BY seq;
	DELETE FROM sqlite_sequence WHERE name = 'transcripts_v5';
	INSERT INTO sqlite_sequence (name, seq) SELECT 'transcripts_v5', seq FROM sqlite_sequence WHERE name = 'transcripts';
	DROP TABLE transcripts;
	ALTER TABLE transcripts_v5 RENAME TO transcripts;
	CREATE INDEX transcripts_project ON transcripts (project_id, seq);
	CREATE INDEX transcripts_active ON transcripts (seq) WHERE deleted = 0 AND status IN ('queued', 'processing');
	CREATE INDEX transcripts_notify_pending ON transcripts (completed, seq) WHERE notify_pending = 1;`,
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
