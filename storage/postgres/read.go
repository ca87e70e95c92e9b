package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/earshot-dev/earshot/transcribe"
)

var _ transcribe.ReadStore = (*Store)(nil)

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
	var (
		r             = &transcribe.Record{ID: id}
		status        string
		created, done pgtype.Timestamptz
		same          bool
	)
	err := s.pool.QueryRow(ctx, `SELECT project_id, status, deleted, created, completed, webhook_status, summary,
		CASE WHEN summary = $2 THEN NULL ELSE data END, coalesce(summary = $2, false)
		FROM transcripts WHERE id = $1`, id, summary).
		Scan(&r.ProjectID, &status, &r.Deleted, &created, &done, &r.WebhookStatus, &r.Summary, &r.Data, &same)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("postgres: transcript %s: %w", id, transcribe.ErrNotFound)
	}
	if err != nil {
		return nil, s.fail("reading transcript "+id, err)
	}
	r.Status = transcribe.Status(status)
	r.Created, r.Completed = unstamp(created), unstamp(done)
	switch {
	case same:
		r.Data = nil
	case r.Data == nil:
		r.Data = []byte{}
	}
	return r, nil
}
