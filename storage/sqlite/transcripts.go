package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/earshot-dev/earshot/storage/internal/sqlqueue"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// sealed transcript (data), which List does not return, and which is the
// table's last column so that reading the others never touches it.
const (
	recordCols = listCols + `, data`
	listCols   = `seq, id, project_id, status, deleted, created, completed, lease_owner, lease_until, claims, failures, webhook_status, notify_pending, summary`
)

type scanner interface{ Scan(dest ...any) error }

// scanRecord reads recordCols, or listCols when withData is false.
func scanRecord(sc scanner, withData bool) (*driver.Record, error) {
	if !withData {
		return scanRecordInto(sc, nil)
	}
	var data []byte
	r, err := scanRecordInto(sc, &data)
	if r != nil {
		r.Data = data
	}
	return r, err
}

// scanRecordInto scans a record, its data column (the last) into data
// when data is not nil.
func scanRecordInto(sc scanner, data any) (*driver.Record, error) {
	var (
		r                            driver.Record
		status                       string
		deleted, pending             int
		created, completed, leaseEnd int64
	)
	dest := []any{&r.Seq, &r.ID, &r.ProjectID, &status, &deleted, &created, &completed, &r.LeaseOwner, &leaseEnd,
		&r.Claims, &r.Failures, &r.WebhookStatus, &pending, &r.Summary}
	if data != nil {
		dest = append(dest, data)
	}
	if err := sc.Scan(dest...); err != nil {
		return nil, err
	}
	r.Status = transcribe.Status(status)
	r.Deleted, r.NotifyPending = deleted != 0, pending != 0
	r.Created, r.Completed, r.LeaseUntil = decTime(created), decTime(completed), decTime(leaseEnd)
	return &r, nil
}

// recordTimes encodes the three times of r.
func recordTimes(r *driver.Record) (created, completed, leaseUntil int64, err error) {
	if created, err = encTime("Created", r.Created); err != nil {
		return
	}
	if completed, err = encTime("Completed", r.Completed); err != nil {
		return
	}
	leaseUntil, err = encTime("LeaseUntil", r.LeaseUntil)
	return
}

// Create implements driver.Store.
func (s *Store) Create(ctx context.Context, r *driver.Record) error {
	if r == nil || r.ID == "" {
		return errors.New("sqlite: Create: record id is empty")
	}
	created, completed, leaseUntil, err := recordTimes(r)
	if err != nil {
		return err
	}
	var seq int64
	err = s.db.QueryRowContext(ctx, `INSERT INTO transcripts
		(id, project_id, status, deleted, created, completed, lease_owner, lease_until, claims, failures, webhook_status, notify_pending, summary, data)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO NOTHING
		RETURNING seq`,
		r.ID, r.ProjectID, string(r.Status), boolInt(r.Deleted), created, completed, r.LeaseOwner, leaseUntil,
		r.Claims, r.Failures, r.WebhookStatus, boolInt(r.NotifyPending), nonNil(r.Summary), nonNil(r.Data)).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("sqlite: transcript %s: %w", r.ID, transcribe.ErrExists)
	}
	if err != nil {
		return fmt.Errorf("sqlite: creating transcript %s: %w", r.ID, err)
	}
	r.Seq = seq
	return nil
}

// Get implements driver.Store.
//
// Data, the largest part of a GET (a few hundred KB for an hour of
// audio), is scanned as sql.RawBytes and kept: modernc's driver hands out
// every blob as a slice of its own, allocated for that row
// (conn.columnBlob in v1.60.1) and never reused, so database/sql's copy
// of it would only double the bytes to allocate and collect.
// TestGetDataIsOwned checks that the slice survives later reads.
func (s *Store) Get(ctx context.Context, id string) (*driver.Record, error) {
	rows, err := s.get.QueryContext(ctx, id)
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
	var data sql.RawBytes
	r, err := scanRecordInto(rows, &data)
	if err != nil {
		return nil, fmt.Errorf("sqlite: reading transcript %s: %w", id, err)
	}
	r.Data = data
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("sqlite: reading transcript %s: %w", id, err)
	}
	return r, nil
}

// Update implements driver.Store. The lease check and the write are
// one statement.
func (s *Store) Update(ctx context.Context, r *driver.Record) error {
	if r == nil {
		return errors.New("sqlite: Update: nil record")
	}
	_, completed, leaseUntil, err := recordTimes(&driver.Record{Completed: r.Completed, LeaseUntil: r.LeaseUntil})
	if err != nil {
		return err
	}
	res, err := s.db.ExecContext(ctx, `UPDATE transcripts SET
		status = ?, deleted = ?, completed = ?, lease_owner = ?, lease_until = ?, failures = ?, notify_pending = ?, summary = ?, data = ?
		WHERE id = ? AND (? = '' OR lease_owner = ?)`,
		string(r.Status), boolInt(r.Deleted), completed, r.LeaseOwner, leaseUntil, r.Failures, boolInt(r.NotifyPending), nonNil(r.Summary), nonNil(r.Data),
		r.ID, r.LeaseOwner, r.LeaseOwner)
	if err != nil {
		return fmt.Errorf("sqlite: updating transcript %s: %w", r.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("sqlite: updating transcript %s: %w", r.ID, err)
	} else if n == 1 {
		if r.Deleted {
			// Push the overwrite into the database file and empty the WAL,
			// where the old page images would otherwise stay until the next
			// checkpoint. Best effort: a busy reader delays it to the next.
			_, _ = s.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
		}
		return nil
	}
	return s.missOrLost(ctx, jobs, r.ID, r.LeaseOwner)
}

// List implements driver.Store. Limit <= 0 means no limit. With
// AfterID set, the Limit oldest matching records newer than it are
// selected and returned newest first. The cursors are resolved inside the
// query; a cursor that is not one of the project's records is
// ErrNotFound.
func (s *Store) List(ctx context.Context, q driver.ListQuery) ([]*driver.Record, error) {
	if q.ProjectID == "" {
		return nil, errors.New("sqlite: List: ProjectID is required")
	}
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
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: listing transcripts: %w", err)
	}
	defer rows.Close()
	out := []*driver.Record{}
	for rows.Next() {
		r, err := scanRecord(rows, false)
		if err != nil {
			return nil, fmt.Errorf("sqlite: listing transcripts: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: listing transcripts: %w", err)
	}
	if q.AfterID != "" {
		slices.Reverse(out)
	}
	return out, nil
}

// listSQL builds List's query.
func listSQL(q driver.ListQuery) (string, []any, error) {
	var (
		where = []string{"project_id = ?"}
		args  = []any{q.ProjectID}
	)
	if !q.IncludeDeleted {
		where = append(where, "deleted = 0")
	}
	if q.Status != "" {
		where, args = append(where, "status = ?"), append(args, string(q.Status))
	}
	if !q.CreatedFrom.IsZero() {
		n, err := encTime("CreatedFrom", q.CreatedFrom)
		if err != nil {
			return "", nil, err
		}
		where, args = append(where, "created >= ?"), append(args, n)
	}
	if !q.CreatedBefore.IsZero() {
		n, err := encTime("CreatedBefore", q.CreatedBefore)
		if err != nil {
			return "", nil, err
		}
		where, args = append(where, "created < ?"), append(args, n)
	}
	if q.BeforeID != "" {
		where, args = append(where, "seq < (SELECT seq FROM transcripts WHERE id = ?)"), append(args, q.BeforeID)
	}
	if q.AfterID != "" {
		where, args = append(where, "seq > (SELECT seq FROM transcripts WHERE id = ?)"), append(args, q.AfterID)
	}
	order := "DESC"
	if q.AfterID != "" {
		order = "ASC"
	}
	limit := int64(-1)
	if q.Limit > 0 {
		limit = int64(q.Limit)
	}
	args = append(args, limit)
	return `SELECT ` + listCols + ` FROM transcripts WHERE ` + strings.Join(where, " AND ") +
		` ORDER BY seq ` + order + ` LIMIT ?`, args, nil
}

// SetWebhookStatus implements driver.Store.
func (s *Store) SetWebhookStatus(ctx context.Context, id string, code int) error {
	res, err := s.db.ExecContext(ctx, `UPDATE transcripts SET webhook_status = ? WHERE id = ?`, code, id)
	if err != nil {
		return fmt.Errorf("sqlite: recording the webhook status of %s: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("sqlite: recording the webhook status of %s: %w", id, err)
	} else if n == 0 {
		return fmt.Errorf("sqlite: transcript %s: %w", id, transcribe.ErrNotFound)
	}
	return nil
}

// ListNotifyPending implements driver.Store (through the partial
// index transcripts_notify_pending).
func (s *Store) ListNotifyPending(ctx context.Context, completedBefore time.Time, limit int) ([]*driver.Record, error) {
	before, err := encTime("completedBefore", completedBefore)
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = -1
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+recordCols+` FROM transcripts
		WHERE notify_pending = 1 AND completed < ? ORDER BY completed, seq LIMIT ?`, before, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: listing pending notifications: %w", err)
	}
	defer rows.Close()
	var out []*driver.Record
	for rows.Next() {
		r, err := scanRecord(rows, true)
		if err != nil {
			return nil, fmt.Errorf("sqlite: listing pending notifications: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: listing pending notifications: %w", err)
	}
	return out, nil
}

// ClearNotifyPending implements driver.Store.
func (s *Store) ClearNotifyPending(ctx context.Context, id string) error {
	res, err := s.db.ExecContext(ctx, `UPDATE transcripts SET notify_pending = 0 WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("sqlite: clearing the outbox flag of %s: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("sqlite: clearing the outbox flag of %s: %w", id, err)
	} else if n == 0 {
		return fmt.Errorf("sqlite: transcript %s: %w", id, transcribe.ErrNotFound)
	}
	return nil
}

// jobs is the job queue (sqlqueue.Jobs).
var jobs = sqlqueue.Jobs(sqlqueue.SQLite, recordCols)

// ClaimJob implements driver.Store.
func (s *Store) ClaimJob(ctx context.Context, c driver.Claim) (*driver.Record, error) {
	return claim(ctx, s, jobs, c, func(sc scanner) (*driver.Record, error) { return scanRecord(sc, true) })
}

// ExtendLease implements driver.Store.
func (s *Store) ExtendLease(ctx context.Context, l driver.Lease) error {
	return s.extend(ctx, jobs, l)
}
