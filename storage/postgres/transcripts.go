package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/earshot-dev/earshot/storage/internal/sqlqueue"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// summaryCols are the columns List reads: everything but the sealed
// transcript. recordCols add it.
const (
	summaryCols = `seq, id, project_id, status, deleted, created, completed, lease_owner, lease_until, claims, failures, webhook_status, notify_pending, summary`
	recordCols  = summaryCols + `, data`
)

// readRecord scans summaryCols, and data when full.
func readRecord(row pgx.Row, full bool) (*driver.Record, error) {
	var (
		r                        driver.Record
		status                   string
		created, done, leaseTill pgtype.Timestamptz
	)
	dst := []any{&r.Seq, &r.ID, &r.ProjectID, &status, &r.Deleted, &created, &done, &r.LeaseOwner, &leaseTill,
		&r.Claims, &r.Failures, &r.WebhookStatus, &r.NotifyPending, &r.Summary}
	if full {
		dst = append(dst, &r.Data)
	}
	if err := row.Scan(dst...); err != nil {
		return nil, err
	}
	r.Status = transcribe.Status(status)
	r.Created, r.Completed, r.LeaseUntil = unstamp(created), unstamp(done), unstamp(leaseTill)
	return &r, nil
}

// recordStamps encodes the stored times of r.
func recordStamps(r *driver.Record) (created, completed, leaseUntil pgtype.Timestamptz, err error) {
	if created, err = stamp("Created", r.Created); err != nil {
		return
	}
	if completed, err = stamp("Completed", r.Completed); err != nil {
		return
	}
	leaseUntil, err = stamp("LeaseUntil", r.LeaseUntil)
	return
}

// checkRecord rejects what the table cannot hold, naming the field.
func checkRecord(op string, r *driver.Record) error {
	if r == nil {
		return fmt.Errorf("postgres: %s: nil record", op)
	}
	if r.ID == "" {
		return fmt.Errorf("postgres: %s: record id is empty", op)
	}
	for _, f := range [][2]string{{"ID", r.ID}, {"ProjectID", r.ProjectID}, {"Status", string(r.Status)}, {"LeaseOwner", r.LeaseOwner}} {
		if err := checkText(f[0], f[1]); err != nil {
			return err
		}
	}
	return nil
}

// Create implements driver.Store: one INSERT ... ON CONFLICT DO
// NOTHING RETURNING seq, so a taken id is told apart without an error
// from the server. Seq comes from an identity column (gaps are possible:
// a refused insert uses a number).
func (s *Store) Create(ctx context.Context, r *driver.Record) error {
	if err := checkRecord("Create", r); err != nil {
		return err
	}
	created, completed, leaseUntil, err := recordStamps(r)
	if err != nil {
		return err
	}
	if s.closed.Load() {
		return errClosed("Create")
	}
	var seq int64
	err = s.pool.QueryRow(ctx, `INSERT INTO transcripts
		(id, project_id, status, deleted, created, completed, lease_owner, lease_until, claims, failures, webhook_status, notify_pending, summary, data)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
		ON CONFLICT (id) DO NOTHING
		RETURNING seq`,
		r.ID, r.ProjectID, string(r.Status), r.Deleted, created, completed, r.LeaseOwner, leaseUntil,
		r.Claims, r.Failures, r.WebhookStatus, r.NotifyPending, bytea(r.Summary), bytea(r.Data)).Scan(&seq)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("postgres: transcript %s: %w", r.ID, transcribe.ErrExists)
	}
	if err != nil {
		return s.fail("creating transcript "+r.ID, err)
	}
	r.Seq = seq
	return nil
}

// Get implements driver.Store.
func (s *Store) Get(ctx context.Context, id string) (*driver.Record, error) {
	if !storable(id) {
		return nil, fmt.Errorf("postgres: transcript %q: %w", id, transcribe.ErrNotFound)
	}
	if s.closed.Load() {
		return nil, errClosed("Get")
	}
	r, err := readRecord(s.pool.QueryRow(ctx, `SELECT `+recordCols+` FROM transcripts WHERE id = $1`, id), true)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("postgres: transcript %s: %w", id, transcribe.ErrNotFound)
	}
	if err != nil {
		return nil, s.fail("reading transcript "+id, err)
	}
	return r, nil
}

// Update implements driver.Store. The lease check and the write are
// one UPDATE; the same statement reads the row's owner, so a refusal
// tells ErrNotFound from ErrLeaseLost without a second round trip.
func (s *Store) Update(ctx context.Context, r *driver.Record) error {
	if err := checkRecord("Update", r); err != nil {
		return err
	}
	_, completed, leaseUntil, err := recordStamps(r)
	if err != nil {
		return err
	}
	if s.closed.Load() {
		return errClosed("Update")
	}
	var (
		changed bool
		owner   *string
	)
	err = s.pool.QueryRow(ctx, `WITH changed AS (
			UPDATE transcripts SET status = $2, deleted = $3, completed = $4, lease_owner = $5, lease_until = $6,
				failures = $7, summary = $8, data = $9, notify_pending = $10
			WHERE id = $1 AND ($5 = '' OR lease_owner = $5)
			RETURNING 1)
		SELECT EXISTS (SELECT FROM changed), (SELECT lease_owner FROM transcripts WHERE id = $1)`,
		r.ID, string(r.Status), r.Deleted, completed, r.LeaseOwner, leaseUntil, r.Failures, bytea(r.Summary), bytea(r.Data), r.NotifyPending,
	).Scan(&changed, &owner)
	if err != nil {
		return s.fail("updating transcript "+r.ID, err)
	}
	if changed {
		return nil
	}
	return lostOrMissing("transcript", r.ID, r.LeaseOwner, owner)
}

// List implements driver.Store: one SELECT on the (project_id, seq)
// index, the cursors resolved inside it. Only an empty page with a cursor
// costs a second query, to tell an unknown cursor (ErrNotFound) from an
// empty page.
func (s *Store) List(ctx context.Context, q driver.ListQuery) ([]*driver.Record, error) {
	if q.ProjectID == "" {
		return nil, errors.New("postgres: List: ProjectID is required")
	}
	for _, f := range [][2]string{{"ProjectID", q.ProjectID}, {"Status", string(q.Status)}} {
		if err := checkText(f[0], f[1]); err != nil {
			return nil, err
		}
	}
	for _, id := range []string{q.BeforeID, q.AfterID} {
		if id != "" && !storable(id) {
			return nil, fmt.Errorf("postgres: cursor %q in project %s: %w", id, q.ProjectID, transcribe.ErrNotFound)
		}
	}
	if s.closed.Load() {
		return nil, errClosed("List")
	}
	query, args := listQuery(q)
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, s.fail("listing transcripts", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*driver.Record, error) {
		return readRecord(row, false)
	})
	if err != nil {
		return nil, s.fail("listing transcripts", err)
	}
	if len(out) == 0 && (q.BeforeID != "" || q.AfterID != "") {
		var found int
		err := s.pool.QueryRow(ctx, `SELECT count(*) FROM transcripts WHERE project_id = $1 AND id = ANY($2)`,
			q.ProjectID, slices.DeleteFunc([]string{q.BeforeID, q.AfterID}, func(id string) bool { return id == "" })).Scan(&found)
		if err != nil {
			return nil, s.fail("looking up the list cursor", err)
		}
		want := 1
		if q.BeforeID != "" && q.AfterID != "" && q.BeforeID != q.AfterID {
			want = 2
		}
		if found < want {
			return nil, fmt.Errorf("postgres: cursor %q/%q is not a transcript of project %s: %w", q.BeforeID, q.AfterID, q.ProjectID, transcribe.ErrNotFound)
		}
	}
	if q.AfterID != "" {
		slices.Reverse(out)
	}
	if out == nil {
		out = []*driver.Record{}
	}
	return out, nil
}

// listQuery builds List's statement. With AfterID the rows are read
// oldest first (the Limit oldest newer than the cursor) and List reverses
// them. LIMIT NULL is no limit.
func listQuery(q driver.ListQuery) (string, []any) {
	var (
		b    strings.Builder
		args = []any{q.ProjectID}
	)
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	b.WriteString(`SELECT ` + summaryCols + ` FROM transcripts WHERE project_id = $1`)
	if !q.IncludeDeleted {
		b.WriteString(` AND NOT deleted`)
	}
	if q.Status != "" {
		b.WriteString(` AND status = ` + arg(string(q.Status)))
	}
	if !q.CreatedFrom.IsZero() {
		b.WriteString(` AND created >= ` + arg(bound(q.CreatedFrom)))
	}
	if !q.CreatedBefore.IsZero() {
		b.WriteString(` AND created < ` + arg(bound(q.CreatedBefore)))
	}
	if q.BeforeID != "" {
		b.WriteString(` AND seq < (SELECT seq FROM transcripts WHERE project_id = $1 AND id = ` + arg(q.BeforeID) + `)`)
	}
	if q.AfterID != "" {
		b.WriteString(` AND seq > (SELECT seq FROM transcripts WHERE project_id = $1 AND id = ` + arg(q.AfterID) + `)`)
	}
	if q.AfterID != "" {
		b.WriteString(` ORDER BY seq`)
	} else {
		b.WriteString(` ORDER BY seq DESC`)
	}
	var limit *int64
	if q.Limit > 0 {
		n := int64(q.Limit)
		limit = &n
	}
	b.WriteString(` LIMIT ` + arg(limit))
	return b.String(), args
}

// jobs is the job queue (sqlqueue.Jobs).
var jobs = sqlqueue.Jobs(sqlqueue.Postgres, recordCols)

// ClaimJob implements driver.Store.
func (s *Store) ClaimJob(ctx context.Context, c driver.Claim) (*driver.Record, error) {
	return claim(ctx, s, jobs, c, func(row pgx.Row) (*driver.Record, error) { return readRecord(row, true) })
}

// ExtendLease implements driver.Store. An absent id is ErrNotFound.
func (s *Store) ExtendLease(ctx context.Context, l driver.Lease) error {
	return s.extend(ctx, jobs, l)
}

// SetWebhookStatus implements driver.Store.
func (s *Store) SetWebhookStatus(ctx context.Context, id string, code int) error {
	if !storable(id) {
		return fmt.Errorf("postgres: transcript %q: %w", id, transcribe.ErrNotFound)
	}
	if s.closed.Load() {
		return errClosed("SetWebhookStatus")
	}
	tag, err := s.pool.Exec(ctx, `UPDATE transcripts SET webhook_status = $2 WHERE id = $1`, id, code)
	if err != nil {
		return s.fail("recording the webhook status of "+id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("postgres: transcript %s: %w", id, transcribe.ErrNotFound)
	}
	return nil
}

// ListNotifyPending implements driver.Store (through the partial
// index transcripts_notify_pending).
func (s *Store) ListNotifyPending(ctx context.Context, completedBefore time.Time, limit int) ([]*driver.Record, error) {
	before, err := stamp("completedBefore", completedBefore)
	if err != nil {
		return nil, err
	}
	if s.closed.Load() {
		return nil, errClosed("ListNotifyPending")
	}
	var lim *int
	if limit > 0 {
		lim = &limit
	}
	rows, err := s.pool.Query(ctx, `SELECT `+recordCols+` FROM transcripts
		WHERE notify_pending AND completed < $1 ORDER BY completed, seq LIMIT $2`, before, lim)
	if err != nil {
		return nil, s.fail("listing pending notifications", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*driver.Record, error) {
		return readRecord(row, true)
	})
	if err != nil {
		return nil, s.fail("listing pending notifications", err)
	}
	return out, nil
}

// ClearNotifyPending implements driver.Store.
func (s *Store) ClearNotifyPending(ctx context.Context, id string) error {
	if !storable(id) {
		return fmt.Errorf("postgres: transcript %q: %w", id, transcribe.ErrNotFound)
	}
	if s.closed.Load() {
		return errClosed("ClearNotifyPending")
	}
	tag, err := s.pool.Exec(ctx, `UPDATE transcripts SET notify_pending = false WHERE id = $1`, id)
	if err != nil {
		return s.fail("clearing the outbox flag of "+id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("postgres: transcript %s: %w", id, transcribe.ErrNotFound)
	}
	return nil
}
