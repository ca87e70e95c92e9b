package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/earshot-dev/earshot/transcribe/driver"
)

var _ driver.IdempotencyStore = (*Store)(nil)

// idemTables is the idempotency_keys table, created on first use (a
// lazyTable).
var idemTables = &lazyTable{name: "idempotency_keys", ddl: `CREATE TABLE IF NOT EXISTS idempotency_keys (
		project_id   TEXT    NOT NULL,
		kind         TEXT    NOT NULL,
		key          TEXT    NOT NULL,
		request_hash TEXT    NOT NULL,
		resource_id  TEXT    NOT NULL,
		created      INTEGER NOT NULL,
		PRIMARY KEY (project_id, kind, key)
	);
	CREATE INDEX IF NOT EXISTS idempotency_keys_by_created ON idempotency_keys (created)`}

func (s *Store) idemTable(ctx context.Context) error { return s.ensureTable(ctx, idemTables) }

// ClaimIdempotency implements driver.IdempotencyStore: one upsert
// that stores r when the key is new or expired, then the record in force.
func (s *Store) ClaimIdempotency(ctx context.Context, r *driver.IdempotencyRecord, notBefore time.Time) (*driver.IdempotencyRecord, error) {
	created, err := encTime("Created", r.Created)
	if err != nil {
		return nil, err
	}
	nb, err := encTime("notBefore", notBefore)
	if err != nil {
		return nil, err
	}
	if err := s.idemTable(ctx); err != nil {
		return nil, err
	}
	var (
		got driver.IdempotencyRecord
		ts  int64
	)
	// The upsert and the read are one statement's snapshot: RETURNING
	// gives the row as it stands after the statement, whether this claim
	// wrote it or not (the no-op update keeps the live record).
	err = s.db.QueryRowContext(ctx, `INSERT INTO idempotency_keys (project_id, kind, key, request_hash, resource_id, created)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6)
		ON CONFLICT (project_id, kind, key) DO UPDATE SET
			request_hash = CASE WHEN created < ?7 THEN excluded.request_hash ELSE request_hash END,
			resource_id  = CASE WHEN created < ?7 THEN excluded.resource_id ELSE resource_id END,
			created      = CASE WHEN created < ?7 THEN excluded.created ELSE created END
		RETURNING project_id, kind, key, request_hash, resource_id, created`,
		r.ProjectID, r.Kind, r.Key, r.RequestHash, r.ResourceID, created, nb).
		Scan(&got.ProjectID, &got.Kind, &got.Key, &got.RequestHash, &got.ResourceID, &ts)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlite: claiming an idempotency key: no row returned")
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: claiming an idempotency key: %w", err)
	}
	got.Created = decTime(ts)
	return &got, nil
}

// DeleteIdempotency implements driver.IdempotencyStore.
func (s *Store) DeleteIdempotency(ctx context.Context, projectID, kind, key, resourceID string) error {
	if err := s.idemTable(ctx); err != nil {
		return err
	}
	if _, err := s.db.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE project_id = ? AND kind = ? AND key = ? AND resource_id = ?`,
		projectID, kind, key, resourceID); err != nil {
		return fmt.Errorf("sqlite: deleting an idempotency key: %w", err)
	}
	return nil
}

// SweepIdempotency implements driver.IdempotencyStore.
func (s *Store) SweepIdempotency(ctx context.Context, before time.Time) (int, error) {
	b, err := encTime("before", before)
	if err != nil {
		return 0, err
	}
	if err := s.idemTable(ctx); err != nil {
		return 0, err
	}
	res, err := s.db.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE created < ?`, b)
	if err != nil {
		return 0, fmt.Errorf("sqlite: sweeping idempotency keys: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
