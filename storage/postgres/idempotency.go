package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/earshot-dev/earshot/transcribe/driver"
)

var _ driver.IdempotencyStore = (*Store)(nil)

// idemTables is the idempotency_keys table, created on first use (a
// lazyTable): a database that never sees an Idempotency-Key never gets it.
var idemTables = &lazyTable{name: "idempotency_keys", what: "idempotency keys", ddl: `CREATE TABLE IF NOT EXISTS idempotency_keys (
		project_id   text COLLATE "C" NOT NULL,
		kind         text COLLATE "C" NOT NULL,
		key          text COLLATE "C" NOT NULL,
		request_hash text        NOT NULL,
		resource_id  text        NOT NULL,
		created      timestamptz NOT NULL,
		PRIMARY KEY (project_id, kind, key)
	);
	CREATE INDEX IF NOT EXISTS idempotency_keys_by_created ON idempotency_keys (created)`}

func (s *Store) idemTable(ctx context.Context) error { return s.ensureTable(ctx, idemTables) }

// ClaimIdempotency implements driver.IdempotencyStore with one
// INSERT ... ON CONFLICT DO UPDATE ... WHERE created < notBefore: it
// stores r when the key is new or expired, and returns nothing when a
// live record exists, which a SELECT then reads (repeated in the rare
// case that the record expires or is deleted in between).
func (s *Store) ClaimIdempotency(ctx context.Context, r *driver.IdempotencyRecord, notBefore time.Time) (*driver.IdempotencyRecord, error) {
	for _, f := range [][2]string{{"ProjectID", r.ProjectID}, {"Kind", r.Kind}, {"Key", r.Key}, {"RequestHash", r.RequestHash}, {"ResourceID", r.ResourceID}} {
		if err := checkText("idempotency "+f[0], f[1]); err != nil {
			return nil, err
		}
	}
	created, err := stamp("Created", r.Created)
	if err != nil {
		return nil, err
	}
	nb, err := stamp("notBefore", notBefore)
	if err != nil {
		return nil, err
	}
	if err := s.idemTable(ctx); err != nil {
		return nil, err
	}
	for range 3 {
		tag, err := s.pool.Exec(ctx, `INSERT INTO idempotency_keys (project_id, kind, key, request_hash, resource_id, created)
			VALUES ($1, $2, $3, $4, $5, $6)
			ON CONFLICT (project_id, kind, key) DO UPDATE
				SET request_hash = EXCLUDED.request_hash, resource_id = EXCLUDED.resource_id, created = EXCLUDED.created
				WHERE idempotency_keys.created < $7`,
			r.ProjectID, r.Kind, r.Key, r.RequestHash, r.ResourceID, created, nb)
		if err != nil {
			return nil, s.fail("claiming an idempotency key", err)
		}
		if tag.RowsAffected() == 1 {
			c := *r
			return &c, nil
		}
		var (
			got driver.IdempotencyRecord
			ts  pgtype.Timestamptz
		)
		err = s.pool.QueryRow(ctx, `SELECT project_id, kind, key, request_hash, resource_id, created FROM idempotency_keys
			WHERE project_id = $1 AND kind = $2 AND key = $3 AND created >= $4`, r.ProjectID, r.Kind, r.Key, nb).
			Scan(&got.ProjectID, &got.Kind, &got.Key, &got.RequestHash, &got.ResourceID, &ts)
		if errors.Is(err, pgx.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, s.fail("reading an idempotency key", err)
		}
		got.Created = unstamp(ts)
		return &got, nil
	}
	return nil, fmt.Errorf("postgres: idempotency key of project %s keeps changing under this claim", r.ProjectID)
}

// DeleteIdempotency implements driver.IdempotencyStore.
func (s *Store) DeleteIdempotency(ctx context.Context, projectID, kind, key, resourceID string) error {
	for _, v := range []string{projectID, kind, key, resourceID} {
		if !storable(v) {
			return nil // never stored
		}
	}
	if err := s.idemTable(ctx); err != nil {
		return err
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM idempotency_keys WHERE project_id = $1 AND kind = $2 AND key = $3 AND resource_id = $4`,
		projectID, kind, key, resourceID); err != nil {
		return s.fail("deleting an idempotency key", err)
	}
	return nil
}

// SweepIdempotency implements driver.IdempotencyStore.
func (s *Store) SweepIdempotency(ctx context.Context, before time.Time) (int, error) {
	b, err := stamp("before", before)
	if err != nil {
		return 0, err
	}
	if err := s.idemTable(ctx); err != nil {
		return 0, err
	}
	tag, err := s.pool.Exec(ctx, `DELETE FROM idempotency_keys WHERE created < $1`, b)
	if err != nil {
		return 0, s.fail("sweeping idempotency keys", err)
	}
	return int(tag.RowsAffected()), nil
}
