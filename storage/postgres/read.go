package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/earshot-dev/earshot/transcribe"
)

var _ transcribe.ReadStore = (*Store)(nil)

// withExtra scans one more column after the ones it is asked for.
type withExtra struct {
	pgx.Row
	extra any
}

func (w withExtra) Scan(dest ...any) error { return w.Row.Scan(append(dest, w.extra)...) }

// GetUnlessSummary implements transcribe.ReadStore: one statement, which
// compares the stored summary (a small column of the row) and leaves the
// data (the large one, TOASTed apart) unread and unsent when it matches.
func (s *Store) GetUnlessSummary(ctx context.Context, id string, summary []byte) (*transcribe.Record, error) {
	if !storable(id) {
		return nil, fmt.Errorf("postgres: transcript %q: %w", id, transcribe.ErrNotFound)
	}
	if s.closed.Load() {
		return nil, errClosed("GetUnlessSummary")
	}
	if len(summary) == 0 {
		summary = nil // NULL: equal to nothing
	}
	var same bool
	r, err := readRecord(withExtra{s.pool.QueryRow(ctx, `SELECT `+summaryCols+`,
		CASE WHEN summary = $2 THEN NULL ELSE data END, coalesce(summary = $2, false)
		FROM transcripts WHERE id = $1`, id, summary), &same}, true)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("postgres: transcript %s: %w", id, transcribe.ErrNotFound)
	}
	if err != nil {
		return nil, s.fail("reading transcript "+id, err)
	}
	switch {
	case same:
		r.Data = nil
	case r.Data == nil:
		r.Data = []byte{}
	}
	return r, nil
}
