package sqlite

import (
	"context"
	"fmt"
	"sync"
)

// lazyTable is a table created on first use (CREATE TABLE IF NOT
// EXISTS), not by a numbered migration: idempotency_keys and
// lemur_responses are independent of the other tables, and a database
// that never needs one never gets it.
type lazyTable struct {
	name  string   // the table, for errors
	ddl   string   // CREATE TABLE IF NOT EXISTS ... and its indexes
	ready sync.Map // *Store -> struct{}: the table exists in its database
}

// ensureTable creates t in s's database unless s already did.
func (s *Store) ensureTable(ctx context.Context, t *lazyTable) error {
	if _, ok := t.ready.Load(s); ok {
		return nil
	}
	if _, err := s.db.ExecContext(ctx, t.ddl); err != nil {
		return fmt.Errorf("sqlite: creating the %s table: %w", t.name, err)
	}
	t.ready.Store(s, struct{}{})
	return nil
}
