package postgres

import (
	"context"
	"errors"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"
)

// lazyTable is a table created on first use (CREATE TABLE IF NOT EXISTS,
// in the store's schema), not by a numbered migration: idempotency_keys
// and lemur_responses are independent of the other tables, and a
// database that never needs one never gets it.
type lazyTable struct {
	name  string   // the table, for errors
	what  string   // what it holds, for errClosed
	ddl   string   // CREATE TABLE IF NOT EXISTS ... and its indexes
	ready sync.Map // *Store -> struct{}: the table exists in its database
}

// ensureTable creates t in s's database unless s already did.
func (s *Store) ensureTable(ctx context.Context, t *lazyTable) error {
	if _, ok := t.ready.Load(s); ok {
		return nil
	}
	if s.closed.Load() {
		return errClosed(t.what)
	}
	var err error
	for range 3 {
		// Two processes creating the table at once can collide in the
		// catalog (unique_violation on pg_type, duplicate_table); the
		// loser finds it made on the next try.
		if _, err = s.pool.Exec(ctx, t.ddl); err == nil {
			t.ready.Store(s, struct{}{})
			return nil
		}
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || (pe.Code != "23505" && pe.Code != "42P07") {
			break
		}
	}
	return s.fail("creating the "+t.name+" table", err)
}
