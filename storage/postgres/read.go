package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

var _ driver.ReadStore = (*Store)(nil)

// readQuery is a read of GetUnlessSummary.
type readQuery struct {
	id      string
	summary []byte // nil: none
}

// GetUnlessSummary implements driver.ReadStore: one statement, which
// compares the stored summary (a small column of the row) and leaves the
// data (the large one, TOASTed apart) unread and unsent when it matches.
// Confirmations (reads with a summary) that come while another runs
// share the next statement (readbatch.go): one statement answers a batch
// of them.
func (s *Store) GetUnlessSummary(ctx context.Context, id string, summary []byte) (*driver.Record, error) {
	if !storable(id) {
		return nil, fmt.Errorf("postgres: transcript %q: %w", id, transcribe.ErrNotFound)
	}
	if s.closed.Load() {
		return nil, errClosed("GetUnlessSummary")
	}
	if len(summary) == 0 {
		summary = nil // NULL: equal to nothing
	}
	q := readQuery{id, summary}
	var (
		r   *driver.Record
		err error
	)
	if summary == nil {
		// A read of the data (the caller holds none) runs alone: it is
		// the rare, long one, and no batch waits for it.
		var rs []*driver.Record
		if rs, err = s.readRecords(ctx, []readQuery{q}); err == nil {
			r = rs[0]
		}
	} else {
		r, err = s.reads.do(ctx, q, s.readRecords)
	}
	if err != nil {
		return nil, s.fail("reading transcript "+id, err)
	}
	if r == nil {
		return nil, fmt.Errorf("postgres: transcript %s: %w", id, transcribe.ErrNotFound)
	}
	return r, nil
}

// batchStatements counts the statements that answered more than one
// read (for tests).
var batchStatements atomic.Int64

// readRecords answers qs (nil for a record that does not exist): one
// statement for one read, one for a batch.
func (s *Store) readRecords(ctx context.Context, qs []readQuery) ([]*driver.Record, error) {
	out := make([]*driver.Record, len(qs))
	scan := func(row pgx.Row) error {
		var (
			r             driver.Record
			n             int
			status        string
			created, done pgtype.Timestamptz
			same          bool
		)
		if err := row.Scan(&n, &r.ProjectID, &status, &r.Deleted, &created, &done, &r.WebhookStatus, &r.Summary, &r.Data, &same); err != nil {
			return err
		}
		if n < 0 || n >= len(qs) {
			return fmt.Errorf("row of read %d in a batch of %d", n, len(qs))
		}
		r.ID, r.Status = qs[n].id, transcribe.Status(status)
		r.Created, r.Completed = unstamp(created), unstamp(done)
		switch {
		case same:
			r.Data = nil
		case r.Data == nil:
			r.Data = []byte{}
		}
		out[n] = &r
		return nil
	}
	if len(qs) == 1 {
		err := scan(s.pool.QueryRow(ctx, `SELECT 0, project_id, status, deleted, created, completed, webhook_status, summary,
			CASE WHEN summary = $2 THEN NULL ELSE data END, coalesce(summary = $2, false)
			FROM transcripts WHERE id = $1`, qs[0].id, qs[0].summary))
		if errors.Is(err, pgx.ErrNoRows) {
			return out, nil
		}
		return out, err
	}
	batchStatements.Add(1)
	ids, sums := make([]string, len(qs)), make([][]byte, len(qs))
	for i, q := range qs {
		ids[i], sums[i] = q.id, q.summary
	}
	rows, err := s.pool.Query(ctx, `SELECT q.n - 1, t.project_id, t.status, t.deleted, t.created, t.completed, t.webhook_status, t.summary,
		CASE WHEN t.summary = q.s THEN NULL ELSE t.data END, coalesce(t.summary = q.s, false)
		FROM unnest($1::text[], $2::bytea[]) WITH ORDINALITY AS q(id, s, n)
		JOIN transcripts t ON t.id = q.id`, ids, sums)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return nil, err
		}
	}
	return out, rows.Err()
}
