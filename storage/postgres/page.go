package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

var _ driver.PageStore = (*Store)(nil)

// pageCols are the columns ListPage reads.
const pageCols = `seq, id, status, created, completed, summary`

// ListPage implements driver.PageStore: List's query (the same
// filters and order) reading the six columns of a list entry, each row
// scanned into a slice of records (no record allocated per row).
//
// Pages are kept (pagecache.Cache) under the server's current snapshot
// (pg_current_snapshot: the next transaction id and those in progress),
// read before the page is queried. While a later read gives the same
// snapshot, no transaction has started writing or ended since, in any
// process or database of the server, so the page is still what the
// query would return; any write changes it. A server that cannot tell
// (before PostgreSQL 13) is queried every time. Page reads that come
// while a snapshot is being read share the next read of it (readbatch.go):
// it starts after each of them was asked for, so it is as fresh as their
// own.
func (s *Store) ListPage(ctx context.Context, q driver.ListQuery) ([]driver.Record, error) {
	if q.ProjectID == "" {
		return nil, errors.New("postgres: ListPage: ProjectID is required")
	}
	if err := s.checkList(q); err != nil {
		return nil, err
	}
	ver, verr := s.snapshots.do(ctx, struct{}{}, s.snapshot)
	if verr == nil {
		if recs, ok := s.pages.Get(ver, q); ok {
			return recs, nil
		}
	}
	recs, err := s.listPage(ctx, q)
	if err == nil && verr == nil {
		s.pages.Put(ver, q, recs)
	}
	return recs, err
}

// snapshot reads the server's current snapshot once for every page read
// that asked for it (n of them: ListPage reads it through a batcher, so
// page reads that come while one runs share the next).
func (s *Store) snapshot(ctx context.Context, n []struct{}) ([]string, error) {
	var ver string
	if err := s.pool.QueryRow(ctx, `SELECT pg_current_snapshot()::text`).Scan(&ver); err != nil {
		return nil, err
	}
	out := make([]string, len(n))
	for i := range out {
		out[i] = ver
	}
	return out, nil
}

// listPage reads a page from the database.
func (s *Store) listPage(ctx context.Context, q driver.ListQuery) ([]driver.Record, error) {
	query, args := listQuery(q)
	query = `SELECT ` + pageCols + query[len(`SELECT `+summaryCols):]
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, s.fail("listing transcripts", err)
	}
	defer rows.Close()
	out := make([]driver.Record, 0, max(q.Limit, 0))
	var (
		status        string
		created, done pgtype.Timestamptz
	)
	for rows.Next() {
		out = append(out, driver.Record{})
		r := &out[len(out)-1]
		if err := rows.Scan(&r.Seq, &r.ID, &status, &created, &done, &r.Summary); err != nil {
			return nil, s.fail("listing transcripts", err)
		}
		r.Status = transcribe.Status(status)
		r.Created, r.Completed = unstamp(created), unstamp(done)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail("listing transcripts", err)
	}
	if err := s.checkCursors(ctx, q, len(out)); err != nil {
		return nil, err
	}
	if q.AfterID != "" {
		slices.Reverse(out)
	}
	return out, nil
}

// checkList is List's check of a query's fields.
func (s *Store) checkList(q driver.ListQuery) error {
	for _, f := range [][2]string{{"ProjectID", q.ProjectID}, {"Status", string(q.Status)}} {
		if err := checkText(f[0], f[1]); err != nil {
			return err
		}
	}
	for _, id := range []string{q.BeforeID, q.AfterID} {
		if id != "" && !storable(id) {
			return fmt.Errorf("postgres: cursor %q in project %s: %w", id, q.ProjectID, transcribe.ErrNotFound)
		}
	}
	if s.closed.Load() {
		return errClosed("ListPage")
	}
	return nil
}

// checkCursors is List's check that an empty page with a cursor has a
// cursor of the project's (else ErrNotFound).
func (s *Store) checkCursors(ctx context.Context, q driver.ListQuery, n int) error {
	if n > 0 || (q.BeforeID == "" && q.AfterID == "") {
		return nil
	}
	var found int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM transcripts WHERE project_id = $1 AND id = ANY($2)`,
		q.ProjectID, slices.DeleteFunc([]string{q.BeforeID, q.AfterID}, func(id string) bool { return id == "" })).Scan(&found)
	if err != nil {
		return s.fail("looking up the list cursor", err)
	}
	want := 1
	if q.BeforeID != "" && q.AfterID != "" && q.BeforeID != q.AfterID {
		want = 2
	}
	if found < want {
		return fmt.Errorf("postgres: cursor %q/%q is not a transcript of project %s: %w", q.BeforeID, q.AfterID, q.ProjectID, transcribe.ErrNotFound)
	}
	return nil
}
