package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

var _ driver.LeMURStore = (*Store)(nil)

// lemurTables is the lemur_responses table, created on first use (a
// lazyTable): a database whose server never answers a LeMUR request
// never gets it.
var lemurTables = &lazyTable{name: "lemur_responses", ddl: `CREATE TABLE IF NOT EXISTS lemur_responses (
		request_id TEXT    NOT NULL PRIMARY KEY,
		project_id TEXT    NOT NULL,
		created    INTEGER NOT NULL,
		data       BLOB    NOT NULL
	);
	CREATE INDEX IF NOT EXISTS lemur_responses_by_created ON lemur_responses (created)`}

func (s *Store) lemurTable(ctx context.Context) error { return s.ensureTable(ctx, lemurTables) }

// PutLeMUR implements driver.LeMURStore.
func (s *Store) PutLeMUR(ctx context.Context, r *driver.LeMURRecord) error {
	created, err := encTime("Created", r.Created)
	if err != nil {
		return err
	}
	if err := s.lemurTable(ctx); err != nil {
		return err
	}
	res, err := s.db.ExecContext(ctx, `INSERT INTO lemur_responses (request_id, project_id, created, data)
		VALUES (?, ?, ?, ?) ON CONFLICT (request_id) DO NOTHING`, r.RequestID, r.ProjectID, created, nonNil(r.Data))
	if err != nil {
		return fmt.Errorf("sqlite: storing LeMUR request %s: %w", r.RequestID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("sqlite: LeMUR request %s: %w", r.RequestID, transcribe.ErrExists)
	}
	return nil
}

// GetLeMUR implements driver.LeMURStore.
func (s *Store) GetLeMUR(ctx context.Context, projectID, requestID string) (*driver.LeMURRecord, error) {
	if err := s.lemurTable(ctx); err != nil {
		return nil, err
	}
	r := &driver.LeMURRecord{ProjectID: projectID, RequestID: requestID}
	var created int64
	err := s.db.QueryRowContext(ctx, `SELECT created, data FROM lemur_responses WHERE request_id = ? AND project_id = ?`,
		requestID, projectID).Scan(&created, &r.Data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlite: LeMUR request %s: %w", requestID, transcribe.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: reading LeMUR request %s: %w", requestID, err)
	}
	r.Created = decTime(created)
	return r, nil
}

// DeleteLeMUR implements driver.LeMURStore.
func (s *Store) DeleteLeMUR(ctx context.Context, projectID, requestID string) (bool, error) {
	if err := s.lemurTable(ctx); err != nil {
		return false, err
	}
	res, err := s.db.ExecContext(ctx, `DELETE FROM lemur_responses WHERE request_id = ? AND project_id = ?`, requestID, projectID)
	if err != nil {
		return false, fmt.Errorf("sqlite: deleting LeMUR request %s: %w", requestID, err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// SweepLeMUR implements driver.LeMURStore.
func (s *Store) SweepLeMUR(ctx context.Context, before time.Time) (int, error) {
	b, err := encTime("before", before)
	if err != nil {
		return 0, err
	}
	if err := s.lemurTable(ctx); err != nil {
		return 0, err
	}
	res, err := s.db.ExecContext(ctx, `DELETE FROM lemur_responses WHERE created < ?`, b)
	if err != nil {
		return 0, fmt.Errorf("sqlite: sweeping LeMUR responses: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
