package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

const uploadCols = `id, project_id, size, created, transcript_id`

func readUpload(row pgx.Row) (*driver.Upload, error) {
	var (
		u       driver.Upload
		created pgtype.Timestamptz
	)
	if err := row.Scan(&u.ID, &u.ProjectID, &u.Size, &created, &u.TranscriptID); err != nil {
		return nil, err
	}
	u.Created = unstamp(created)
	return &u, nil
}

// CreateUpload implements driver.UploadStore.
func (s *Store) CreateUpload(ctx context.Context, u *driver.Upload) error {
	if u == nil || u.ID == "" {
		return errors.New("postgres: CreateUpload: upload id is empty")
	}
	for _, f := range [][2]string{{"ID", u.ID}, {"ProjectID", u.ProjectID}, {"TranscriptID", u.TranscriptID}} {
		if err := checkText("upload "+f[0], f[1]); err != nil {
			return err
		}
	}
	created, err := stamp("Created", u.Created)
	if err != nil {
		return err
	}
	if s.closed.Load() {
		return errClosed("CreateUpload")
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO uploads (`+uploadCols+`) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (id) DO NOTHING`, u.ID, u.ProjectID, u.Size, created, u.TranscriptID)
	if err != nil {
		return s.fail("creating upload "+u.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("postgres: upload %s: %w", u.ID, transcribe.ErrExists)
	}
	return nil
}

// GetUpload implements driver.UploadStore.
func (s *Store) GetUpload(ctx context.Context, id string) (*driver.Upload, error) {
	if !storable(id) {
		return nil, fmt.Errorf("postgres: upload %q: %w", id, transcribe.ErrNotFound)
	}
	if s.closed.Load() {
		return nil, errClosed("GetUpload")
	}
	u, err := readUpload(s.pool.QueryRow(ctx, `SELECT `+uploadCols+` FROM uploads WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("postgres: upload %s: %w", id, transcribe.ErrNotFound)
	}
	if err != nil {
		return nil, s.fail("reading upload "+id, err)
	}
	return u, nil
}

// AttachUpload implements driver.UploadStore with one conditional
// UPDATE (so two transcripts never both take an upload: the second waits
// for the first's row lock, then finds the upload taken), which also
// reads the current user for the refusal.
func (s *Store) AttachUpload(ctx context.Context, uploadID, transcriptID string) error {
	if !storable(uploadID) {
		return fmt.Errorf("postgres: upload %q: %w", uploadID, transcribe.ErrNotFound)
	}
	if err := checkText("transcript id", transcriptID); err != nil {
		return err
	}
	if s.closed.Load() {
		return errClosed("AttachUpload")
	}
	var (
		took bool
		user *string
	)
	err := s.pool.QueryRow(ctx, `WITH took AS (
			UPDATE uploads SET transcript_id = $2
			WHERE id = $1 AND ($2 = '' OR transcript_id = '' OR transcript_id = $2)
			RETURNING 1)
		SELECT EXISTS (SELECT FROM took), (SELECT transcript_id FROM uploads WHERE id = $1)`,
		uploadID, transcriptID).Scan(&took, &user)
	switch {
	case err != nil:
		return s.fail("attaching upload "+uploadID, err)
	case took:
		return nil
	case user == nil:
		return fmt.Errorf("postgres: upload %s: %w", uploadID, transcribe.ErrNotFound)
	case *user == "" || *user == transcriptID:
		// The statement's snapshot predates a concurrent attach that won.
		return fmt.Errorf("postgres: upload %s was just taken by another transcript: %w", uploadID, transcribe.ErrExists)
	}
	return fmt.Errorf("postgres: upload %s is used by transcript %s: %w", uploadID, *user, transcribe.ErrExists)
}

// DeleteUpload implements driver.UploadStore.
func (s *Store) DeleteUpload(ctx context.Context, id string) error {
	if !storable(id) {
		return nil // never stored
	}
	if s.closed.Load() {
		return errClosed("DeleteUpload")
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM uploads WHERE id = $1`, id); err != nil {
		return s.fail("deleting upload "+id, err)
	}
	return nil
}

// ListUploads implements driver.UploadStore. It reads an index in
// (created, id) order (uploads_unattached_by_age when Unattached) and
// never sorts.
func (s *Store) ListUploads(ctx context.Context, q driver.UploadQuery) ([]*driver.Upload, error) {
	if q.AfterID != "" && !storable(q.AfterID) {
		return nil, fmt.Errorf("postgres: ListUploads: %w", checkText("AfterID", q.AfterID))
	}
	if s.closed.Load() {
		return nil, errClosed("ListUploads")
	}
	query, args := uploadsQuery(q)
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, s.fail("listing uploads", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*driver.Upload, error) { return readUpload(row) })
	if err != nil {
		return nil, s.fail("listing uploads", err)
	}
	return out, nil
}

// uploadsQuery builds ListUploads' statement. A cutoff PostgreSQL cannot
// hold is clamped to an infinity; uploads with a zero Created (stored as
// -infinity) sort first.
func uploadsQuery(q driver.UploadQuery) (string, []any) {
	var (
		where []string
		args  []any
	)
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if q.Unattached {
		where = append(where, `transcript_id = ''`)
	}
	if !q.CreatedBefore.IsZero() {
		where = append(where, `created < `+arg(bound(q.CreatedBefore)))
	}
	if q.AfterID != "" {
		where = append(where, `(created, id) > (`+arg(bound(q.AfterCreated))+`, `+arg(q.AfterID)+`)`)
	}
	query := `SELECT ` + uploadCols + ` FROM uploads`
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, ` AND `)
	}
	query += ` ORDER BY created, id`
	if q.Limit > 0 {
		query += ` LIMIT ` + arg(int64(q.Limit))
	}
	return query, args
}
