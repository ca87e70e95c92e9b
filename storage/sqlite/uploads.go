package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// CreateUpload implements driver.UploadStore; an id already present gives
// an error wrapping transcribe.ErrExists.
func (s *Store) CreateUpload(ctx context.Context, u *driver.Upload) error {
	if u == nil || u.ID == "" {
		return errors.New("sqlite: CreateUpload: upload id is empty")
	}
	created, err := encTime("Created", u.Created)
	if err != nil {
		return err
	}
	res, err := s.db.ExecContext(ctx, `INSERT INTO uploads (id, project_id, size, created, transcript_id) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (id) DO NOTHING`, u.ID, u.ProjectID, u.Size, created, u.TranscriptID)
	if err != nil {
		return fmt.Errorf("sqlite: creating upload %s: %w", u.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("sqlite: creating upload %s: %w", u.ID, err)
	} else if n == 0 {
		return fmt.Errorf("sqlite: upload %s: %w", u.ID, transcribe.ErrExists)
	}
	return nil
}

// GetUpload implements driver.UploadStore.
func (s *Store) GetUpload(ctx context.Context, id string) (*driver.Upload, error) {
	var (
		u       driver.Upload
		created int64
	)
	err := s.db.QueryRowContext(ctx, `SELECT id, project_id, size, created, transcript_id FROM uploads WHERE id = ?`, id).
		Scan(&u.ID, &u.ProjectID, &u.Size, &created, &u.TranscriptID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlite: upload %s: %w", id, transcribe.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: reading upload %s: %w", id, err)
	}
	u.Created = decTime(created)
	return &u, nil
}

// DeleteUpload implements driver.UploadStore.
func (s *Store) DeleteUpload(ctx context.Context, id string) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM uploads WHERE id = ?`, id); err != nil {
		return fmt.Errorf("sqlite: deleting upload %s: %w", id, err)
	}
	return nil
}

// AttachUpload implements driver.UploadStore with one conditional
// UPDATE, so two transcripts can never both take an upload.
func (s *Store) AttachUpload(ctx context.Context, uploadID, transcriptID string) error {
	res, err := s.db.ExecContext(ctx, `UPDATE uploads SET transcript_id = ?
		WHERE id = ? AND (? = '' OR transcript_id = '' OR transcript_id = ?)`, transcriptID, uploadID, transcriptID, transcriptID)
	if err != nil {
		return fmt.Errorf("sqlite: attaching upload %s: %w", uploadID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("sqlite: attaching upload %s: %w", uploadID, err)
	} else if n == 1 {
		return nil
	}
	u, err := s.GetUpload(ctx, uploadID)
	if err != nil {
		return err
	}
	return fmt.Errorf("sqlite: upload %s is used by transcript %s: %w", uploadID, u.TranscriptID, transcribe.ErrExists)
}

// ListUploads implements driver.UploadStore. It reads an index in
// (created, id) order and never sorts.
func (s *Store) ListUploads(ctx context.Context, q driver.UploadQuery) ([]*driver.Upload, error) {
	query, args, err := listUploadsSQL(q)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: listing uploads: %w", err)
	}
	defer rows.Close()
	var out []*driver.Upload
	for rows.Next() {
		var (
			u       driver.Upload
			created int64
		)
		if err := rows.Scan(&u.ID, &u.ProjectID, &u.Size, &created, &u.TranscriptID); err != nil {
			return nil, fmt.Errorf("sqlite: listing uploads: %w", err)
		}
		u.Created = decTime(created)
		out = append(out, &u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: listing uploads: %w", err)
	}
	return out, nil
}

// listUploadsSQL builds the ListUploads statement. A cutoff past the
// storable range selects every upload; one before it selects those with a
// zero Created, which sort first.
func listUploadsSQL(q driver.UploadQuery) (string, []any, error) {
	var where []string
	var args []any
	if q.Unattached {
		where = append(where, "transcript_id = ''")
	}
	switch b := q.CreatedBefore; {
	case b.IsZero(), b.After(maxTime):
	case b.Before(minTime):
		where, args = append(where, "created < ?"), append(args, int64(math.MinInt64+1))
	default:
		where, args = append(where, "created < ?"), append(args, b.UnixNano())
	}
	if q.AfterID != "" {
		after, err := encTime("AfterCreated", q.AfterCreated)
		if err != nil {
			return "", nil, err
		}
		where, args = append(where, "(created, id) > (?, ?)"), append(args, after, q.AfterID)
	}
	query := `SELECT id, project_id, size, created, transcript_id FROM uploads`
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, " AND ")
	}
	query += ` ORDER BY created, id`
	if q.Limit > 0 {
		query += ` LIMIT ?`
		args = append(args, q.Limit)
	}
	return query, args, nil
}
