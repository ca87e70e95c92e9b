package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

var _ driver.ReadStore = (*Store)(nil)

// readStmts are the statements of the read path, prepared on first use.
type readStmts struct {
	once sync.Once
	err  error
	// unless is GetUnlessSummary's: readCols, then the data unless the
	// stored summary is ?2 (then an empty blob), then whether it was.
	unless *sql.Stmt

	mu     sync.Mutex
	closed bool
	// pages are ListPage's statements by their SQL (a few dozen shapes
	// at most: one per combination of filters).
	pages map[string]*sql.Stmt
	// cache is ListPage's cache of pages (pagecache.go).
	cache pageCache
}

// readStmts returns the read statements, preparing them the first time.
func (s *Store) readStmts() (*readStmts, error) {
	rs := &s.read
	rs.once.Do(func() {
		rs.unless, rs.err = s.db.Prepare(`SELECT ` + readCols + `,
			CASE WHEN summary = ?2 THEN x'' ELSE data END, coalesce(summary = ?2, 0)
			FROM transcripts WHERE id = ?1`)
	})
	return rs, rs.err
}

// errClosed is the error of a read after Close.
var errClosed = errors.New("sqlite: the store is closed")

// close closes the statements prepared and the page cache's connection.
func (rs *readStmts) close() {
	rs.once.Do(func() { rs.err = errClosed })
	if rs.unless != nil {
		rs.unless.Close()
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.closed = true
	for _, st := range rs.pages {
		st.Close()
	}
	rs.cache.close()
}

// pageStmt returns the prepared statement of query, preparing it the
// first time.
func (s *Store) pageStmt(ctx context.Context, query string) (*sql.Stmt, error) {
	rs := &s.read
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.closed {
		return nil, errClosed
	}
	if st, ok := rs.pages[query]; ok {
		return st, nil
	}
	st, err := s.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if rs.pages == nil {
		rs.pages = map[string]*sql.Stmt{}
	}
	rs.pages[query] = st
	return st, nil
}

// readCols are the columns GetUnlessSummary reads before the data.
const readCols = `project_id, status, deleted, created, completed, webhook_status, summary`

// GetUnlessSummary implements driver.ReadStore: one statement, which
// compares the stored summary (a small column of the row) and leaves the
// data (the large one, in overflow pages) unread when it matches. It
// reads the columns of a read alone: modernc's driver looks up the name
// and declared type of every column of every query.
func (s *Store) GetUnlessSummary(ctx context.Context, id string, summary []byte) (*driver.Record, error) {
	rs, err := s.readStmts()
	if err != nil {
		return nil, fmt.Errorf("sqlite: reading transcript %s: %w", id, err)
	}
	if len(summary) == 0 {
		summary = nil // NULL: equal to nothing
	}
	rows, err := rs.unless.QueryContext(ctx, id, summary)
	if err != nil {
		return nil, fmt.Errorf("sqlite: reading transcript %s: %w", id, err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("sqlite: reading transcript %s: %w", id, err)
		}
		return nil, fmt.Errorf("sqlite: transcript %s: %w", id, transcribe.ErrNotFound)
	}
	var (
		r                  = &driver.Record{ID: id}
		status             string
		deleted            int
		created, completed int64
		data               sql.RawBytes // owned: see Get
		same               bool
	)
	if err := rows.Scan(&r.ProjectID, &status, &deleted, &created, &completed, &r.WebhookStatus, &r.Summary, &data, &same); err != nil {
		return nil, fmt.Errorf("sqlite: reading transcript %s: %w", id, err)
	}
	r.Status, r.Deleted = transcribe.Status(status), deleted != 0
	r.Created, r.Completed = decTime(created), decTime(completed)
	switch {
	case same:
		r.Data = nil
	case data == nil:
		r.Data = []byte{}
	default:
		r.Data = data
	}
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("sqlite: reading transcript %s: %w", id, err)
	}
	return r, nil
}
