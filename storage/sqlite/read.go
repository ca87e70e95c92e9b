package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"github.com/earshot-dev/earshot/transcribe"
)

var _ transcribe.ReadStore = (*Store)(nil)

// readStmts are the statements of the read path, prepared on first use.
type readStmts struct {
	once sync.Once
	err  error
	// unless is GetUnlessSummary's: the record, then its data unless the
	// stored summary is ?2 (then an empty blob), then whether it was.
	unless *sql.Stmt
}

// readStmts returns the read statements, preparing them the first time.
func (s *Store) readStmts() (*readStmts, error) {
	rs := &s.read
	rs.once.Do(func() {
		rs.unless, rs.err = s.db.Prepare(`SELECT ` + listCols + `,
			CASE WHEN summary = ?2 THEN x'' ELSE data END, coalesce(summary = ?2, 0)
			FROM transcripts WHERE id = ?1`)
	})
	return rs, rs.err
}

// close closes the statements prepared.
func (rs *readStmts) close() {
	rs.once.Do(func() { rs.err = errors.New("sqlite: the store is closed") })
	if rs.unless != nil {
		rs.unless.Close()
	}
}

// withExtra scans one more column after the ones it is asked for.
type withExtra struct {
	scanner
	extra any
}

func (w withExtra) Scan(dest ...any) error { return w.scanner.Scan(append(dest, w.extra)...) }

// GetUnlessSummary implements transcribe.ReadStore: one statement, which
// compares the stored summary (a small column of the row) and leaves the
// data (the large one, in overflow pages) unread when it matches.
func (s *Store) GetUnlessSummary(ctx context.Context, id string, summary []byte) (*transcribe.Record, error) {
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
		data sql.RawBytes // owned: see Get
		same bool
	)
	r, err := scanRecordInto(withExtra{rows, &same}, &data)
	if err != nil {
		return nil, fmt.Errorf("sqlite: reading transcript %s: %w", id, err)
	}
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
