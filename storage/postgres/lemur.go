package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

var _ driver.LeMURStore = (*Store)(nil)

// lemurTables is the lemur_responses table, created on first use (a
// lazyTable): a database whose servers never answer a LeMUR request never
// gets it.
var lemurTables = &lazyTable{name: "lemur_responses", what: "LeMUR responses", ddl: `CREATE TABLE IF NOT EXISTS lemur_responses (
		request_id text COLLATE "C" NOT NULL PRIMARY KEY,
		project_id text COLLATE "C" NOT NULL,
		created    timestamptz      NOT NULL,
		data       bytea            NOT NULL
	);
	CREATE INDEX IF NOT EXISTS lemur_responses_by_created ON lemur_responses (created)`}

func (s *Store) lemurTable(ctx context.Context) error { return s.ensureTable(ctx, lemurTables) }

// PutLeMUR implements driver.LeMURStore.
func (s *Store) PutLeMUR(ctx context.Context, r *driver.LeMURRecord) error {
	for _, f := range [][2]string{{"ProjectID", r.ProjectID}, {"RequestID", r.RequestID}} {
		if err := checkText("LeMUR "+f[0], f[1]); err != nil {
			return err
		}
	}
	created, err := stamp("Created", r.Created)
	if err != nil {
		return err
	}
	if err := s.lemurTable(ctx); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO lemur_responses (request_id, project_id, created, data)
		VALUES ($1, $2, $3, $4) ON CONFLICT (request_id) DO NOTHING`, r.RequestID, r.ProjectID, created, bytea(r.Data))
	if err != nil {
		return s.fail("storing LeMUR request "+r.RequestID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("postgres: LeMUR request %s: %w", r.RequestID, transcribe.ErrExists)
	}
	return nil
}

// GetLeMUR implements driver.LeMURStore.
func (s *Store) GetLeMUR(ctx context.Context, projectID, requestID string) (*driver.LeMURRecord, error) {
	if !storable(projectID) || !storable(requestID) {
		return nil, fmt.Errorf("postgres: LeMUR request %q: %w", requestID, transcribe.ErrNotFound)
	}
	if err := s.lemurTable(ctx); err != nil {
		return nil, err
	}
	r := &driver.LeMURRecord{ProjectID: projectID, RequestID: requestID}
	var ts pgtype.Timestamptz
	err := s.pool.QueryRow(ctx, `SELECT created, data FROM lemur_responses WHERE request_id = $1 AND project_id = $2`,
		requestID, projectID).Scan(&ts, &r.Data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("postgres: LeMUR request %s: %w", requestID, transcribe.ErrNotFound)
	}
	if err != nil {
		return nil, s.fail("reading LeMUR request "+requestID, err)
	}
	r.Created = unstamp(ts)
	return r, nil
}

// DeleteLeMUR implements driver.LeMURStore.
func (s *Store) DeleteLeMUR(ctx context.Context, projectID, requestID string) (bool, error) {
	if !storable(projectID) || !storable(requestID) {
		return false, nil // never stored
	}
	if err := s.lemurTable(ctx); err != nil {
		return false, err
	}
	tag, err := s.pool.Exec(ctx, `DELETE FROM lemur_responses WHERE request_id = $1 AND project_id = $2`, requestID, projectID)
	if err != nil {
		return false, s.fail("deleting LeMUR request "+requestID, err)
	}
	return tag.RowsAffected() > 0, nil
}

// SweepLeMUR implements driver.LeMURStore.
func (s *Store) SweepLeMUR(ctx context.Context, before time.Time) (int, error) {
	b, err := stamp("before", before)
	if err != nil {
		return 0, err
	}
	if err := s.lemurTable(ctx); err != nil {
		return 0, err
	}
	tag, err := s.pool.Exec(ctx, `DELETE FROM lemur_responses WHERE created < $1`, b)
	if err != nil {
		return 0, s.fail("sweeping LeMUR responses", err)
	}
	return int(tag.RowsAffected()), nil
}
