package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

var _ driver.PageStore = (*Store)(nil)

// pageRow renders one record of a page as a string: its numbers and the
// byte lengths of its strings in decimal, comma-terminated, then the
// strings themselves (status, id, summary). Binary-safe, whatever an id
// or a summary holds.
const pageRow = `printf('%d,%d,%d,%d,%d,%d,', seq, created, completed, octet_length(status), octet_length(id), octet_length(summary))
	|| status || id || summary`

// ListPage implements driver.PageStore: List's query (the same
// filters and order), its rows concatenated into one value by SQLite, so
// a page of 200 costs one row and one column through the driver instead
// of 200 rows of 14 columns (each column read takes the connection's
// mutex twice in modernc's driver). Pages are kept while the database
// does not change (pageCache): a repeated page costs one PRAGMA.
func (s *Store) ListPage(ctx context.Context, q driver.ListQuery) ([]driver.Record, error) {
	if q.ProjectID == "" {
		return nil, errors.New("sqlite: ListPage: ProjectID is required")
	}
	c := &s.read.cache
	v, verr := c.dataVersion(ctx, s.path)
	if verr == nil {
		if recs, ok := c.Get(v, q); ok {
			return recs, nil
		}
	}
	recs, err := s.listPage(ctx, q)
	if err == nil && verr == nil {
		c.Put(v, q, recs)
	}
	return recs, err
}

// listPage reads a page from the database.
func (s *Store) listPage(ctx context.Context, q driver.ListQuery) ([]driver.Record, error) {
	for _, id := range []string{q.BeforeID, q.AfterID} {
		if id == "" {
			continue
		}
		var one int
		err := s.db.QueryRowContext(ctx, `SELECT 1 FROM transcripts WHERE id = ? AND project_id = ?`, id, q.ProjectID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("sqlite: transcript %s in project %s: %w", id, q.ProjectID, transcribe.ErrNotFound)
		}
		if err != nil {
			return nil, fmt.Errorf("sqlite: listing transcripts: %w", err)
		}
	}
	query, args, err := listSQL(q)
	if err != nil {
		return nil, err
	}
	st, err := s.pageStmt(ctx, `SELECT group_concat(`+pageRow+`, '') FROM (`+query+`)`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: listing transcripts: %w", err)
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: listing transcripts: %w", err)
	}
	defer rows.Close()
	var page sql.RawBytes
	if rows.Next() {
		if err := rows.Scan(&page); err != nil {
			return nil, fmt.Errorf("sqlite: listing transcripts: %w", err)
		}
	}
	out, err := parsePage(page, q.Limit)
	if err != nil {
		return nil, err
	}
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("sqlite: listing transcripts: %w", err)
	}
	// The order of an aggregate's inputs is not promised: put the page in
	// List's order, newest first.
	if !slices.IsSortedFunc(out, newestFirst) {
		slices.SortFunc(out, newestFirst)
	}
	return out, nil
}

func newestFirst(a, b driver.Record) int { return -cmpInt(a.Seq, b.Seq) }

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// parsePage reads the rows pageRow rendered. The strings it returns do
// not share page's memory (the driver's, reused on the next row).
func parsePage(page []byte, limit int) ([]driver.Record, error) {
	out := make([]driver.Record, 0, max(limit, 0))
	bad := func() ([]driver.Record, error) {
		return nil, fmt.Errorf("sqlite: listing transcripts: malformed page row %d", len(out))
	}
	// A row's strings (status and id) are one allocation.
	for len(page) > 0 {
		var n [6]int64
		for i := range n {
			j := 0
			for j < len(page) && page[j] != ',' {
				j++
			}
			if j == len(page) {
				return bad()
			}
			v, ok := parseInt(page[:j])
			if !ok || (i >= 3 && v < 0) {
				return bad()
			}
			n[i], page = v, page[j+1:]
		}
		size := n[3] + n[4] + n[5]
		if size > int64(len(page)) {
			return bad()
		}
		strs := string(page[:n[3]+n[4]])
		r := driver.Record{Seq: n[0], Created: decTime(n[1]), Completed: decTime(n[2]),
			Status: transcribe.Status(strs[:n[3]]), ID: strs[n[3]:]}
		r.Summary = append([]byte(nil), page[n[3]+n[4]:size]...)
		page = page[size:]
		out = append(out, r)
	}
	return out, nil
}

// parseInt reads a decimal int64 as printf's %d writes it.
func parseInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v), true
	}
	if v > 1<<63-1 {
		return 0, false
	}
	return int64(v), true
}
