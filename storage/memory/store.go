package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/webhook"
)

// ErrClosed is returned by every method of a Store or BlobStore after Close.
var ErrClosed = errors.New("memory: store is closed")

// Store is an in-memory driver.Store, driver.UploadStore and
// webhook.Queue. The zero value is not usable; call New. It is safe for concurrent use by several goroutines. Records are
// copied on the way in and on the way out, so callers never share memory
// with the store. Nothing survives the process.
type Store struct {
	mu         sync.Mutex
	closed     bool
	seq        int64
	records    map[string]*driver.Record
	order      []*driver.Record // by Seq, ascending
	uploads    map[string]*driver.Upload
	deliveries map[string]*webhook.Delivery
}

var (
	_ driver.Store       = (*Store)(nil)
	_ driver.UploadStore = (*Store)(nil)
	_ webhook.Queue      = (*Store)(nil)
)

// New returns an empty Store.
func New() *Store {
	return &Store{
		records:    map[string]*driver.Record{},
		uploads:    map[string]*driver.Upload{},
		deliveries: map[string]*webhook.Delivery{},
	}
}

// lock takes the mutex and reports an error for a cancelled ctx or a
// closed store; on error the mutex is not held.
func (s *Store) lock(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	return nil
}

// utc drops the monotonic reading and the location so stored times compare
// and print the same whatever the caller passed.
func utc(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.Round(0).UTC()
}

func cloneRecord(r *driver.Record) *driver.Record {
	c := *r
	c.Created, c.Completed, c.LeaseUntil = utc(r.Created), utc(r.Completed), utc(r.LeaseUntil)
	c.Data = slices.Clone(r.Data)
	c.Summary = slices.Clone(r.Summary)
	return &c
}

func cloneDelivery(d *webhook.Delivery) *webhook.Delivery {
	c := *d
	c.NextAttempt, c.LeaseUntil = utc(d.NextAttempt), utc(d.LeaseUntil)
	c.Data = slices.Clone(d.Data)
	return &c
}

// Create implements driver.Store.
func (s *Store) Create(ctx context.Context, r *driver.Record) error {
	if r == nil || r.ID == "" {
		return errors.New("memory: Create: record id is empty")
	}
	if err := s.lock(ctx); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if _, ok := s.records[r.ID]; ok {
		return fmt.Errorf("memory: transcript %s: %w", r.ID, transcribe.ErrExists)
	}
	s.seq++
	c := cloneRecord(r)
	c.Seq = s.seq
	s.records[c.ID] = c
	s.order = append(s.order, c)
	r.Seq = c.Seq
	return nil
}

// Get implements driver.Store.
func (s *Store) Get(ctx context.Context, id string) (*driver.Record, error) {
	if err := s.lock(ctx); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	r, ok := s.records[id]
	if !ok {
		return nil, fmt.Errorf("memory: transcript %s: %w", id, transcribe.ErrNotFound)
	}
	return cloneRecord(r), nil
}

// Update implements driver.Store.
func (s *Store) Update(ctx context.Context, r *driver.Record) error {
	if r == nil {
		return errors.New("memory: Update: nil record")
	}
	if err := s.lock(ctx); err != nil {
		return err
	}
	defer s.mu.Unlock()
	cur, ok := s.records[r.ID]
	if !ok {
		return fmt.Errorf("memory: transcript %s: %w", r.ID, transcribe.ErrNotFound)
	}
	if r.LeaseOwner != "" && cur.LeaseOwner != r.LeaseOwner {
		return lost("transcript", r.ID, cur.LeaseOwner, r.LeaseOwner)
	}
	c := cloneRecord(r)
	// Update changes the record in place so that order keeps pointing at it.
	cur.Status, cur.Deleted, cur.Completed = c.Status, c.Deleted, c.Completed
	cur.LeaseOwner, cur.LeaseUntil, cur.Failures = c.LeaseOwner, c.LeaseUntil, c.Failures
	cur.NotifyPending, cur.Summary, cur.Data = c.NotifyPending, c.Summary, c.Data
	return nil
}

// ListNotifyPending implements driver.Store.
func (s *Store) ListNotifyPending(ctx context.Context, completedBefore time.Time, limit int) ([]*driver.Record, error) {
	if err := s.lock(ctx); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	var out []*driver.Record
	for _, r := range s.order {
		if r.NotifyPending && r.Completed.Before(completedBefore) {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b *driver.Record) int { return a.Completed.Compare(b.Completed) })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	for i, r := range out {
		out[i] = cloneRecord(r)
	}
	return out, nil
}

// ClearNotifyPending implements driver.Store.
func (s *Store) ClearNotifyPending(ctx context.Context, id string) error {
	if err := s.lock(ctx); err != nil {
		return err
	}
	defer s.mu.Unlock()
	r, ok := s.records[id]
	if !ok {
		return fmt.Errorf("memory: transcript %s: %w", id, transcribe.ErrNotFound)
	}
	r.NotifyPending = false
	return nil
}

// SetWebhookStatus implements driver.Store.
func (s *Store) SetWebhookStatus(ctx context.Context, id string, code int) error {
	if err := s.lock(ctx); err != nil {
		return err
	}
	defer s.mu.Unlock()
	r, ok := s.records[id]
	if !ok {
		return fmt.Errorf("memory: transcript %s: %w", id, transcribe.ErrNotFound)
	}
	r.WebhookStatus = code
	return nil
}

// matches reports whether r passes every filter of q except Limit; the
// cursors are given as Seq bounds (0: none).
func matches(r *driver.Record, q *driver.ListQuery, beforeSeq, afterSeq int64) bool {
	switch {
	case r.ProjectID != q.ProjectID:
		return false
	case r.Deleted && !q.IncludeDeleted:
		return false
	case q.Status != "" && r.Status != q.Status:
		return false
	case !q.CreatedFrom.IsZero() && r.Created.Before(q.CreatedFrom):
		return false
	case !q.CreatedBefore.IsZero() && !r.Created.Before(q.CreatedBefore):
		return false
	case beforeSeq > 0 && r.Seq >= beforeSeq:
		return false
	case afterSeq > 0 && r.Seq <= afterSeq:
		return false
	}
	return true
}

// List implements driver.Store. Records come newest (highest Seq)
// first, without Data. With AfterID set, the Limit oldest records newer
// than it are selected and then returned newest first. Limit <= 0 means
// no limit.
func (s *Store) List(ctx context.Context, q driver.ListQuery) ([]*driver.Record, error) {
	if q.ProjectID == "" {
		return nil, errors.New("memory: List: ProjectID is required")
	}
	if err := s.lock(ctx); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	var before, after int64
	for _, c := range []struct {
		id  string
		dst *int64
	}{{q.BeforeID, &before}, {q.AfterID, &after}} {
		if c.id == "" {
			continue
		}
		r, ok := s.records[c.id]
		if !ok || r.ProjectID != q.ProjectID {
			return nil, fmt.Errorf("memory: transcript %s in project %s: %w", c.id, q.ProjectID, transcribe.ErrNotFound)
		}
		*c.dst = r.Seq
	}
	var out []*driver.Record
	full := func() bool { return q.Limit > 0 && len(out) >= q.Limit }
	listed := func(r *driver.Record) *driver.Record {
		c := cloneRecord(r)
		c.Data = nil
		return c
	}
	if after > 0 {
		for _, r := range s.order {
			if full() {
				break
			}
			if matches(r, &q, before, after) {
				out = append(out, listed(r))
			}
		}
		slices.Reverse(out)
		return out, nil
	}
	for i := len(s.order) - 1; i >= 0 && !full(); i-- {
		if r := s.order[i]; matches(r, &q, before, after) {
			out = append(out, listed(r))
		}
	}
	return out, nil
}

// jobs is the job queue among the records: the oldest (lowest Seq) record
// that is queued, or processing with LeaseUntil before now, and not
// deleted. A claim makes it processing and counts the claim.
var jobs = &table[driver.Record]{
	what:  "transcript",
	empty: transcribe.ErrNoJob,
	get: func(s *Store, id string) (*driver.Record, bool) {
		r, ok := s.records[id]
		return r, ok
	},
	first: func(s *Store, now time.Time) *driver.Record {
		for _, r := range s.order {
			if !r.Deleted && (r.Status == transcribe.StatusQueued || (r.Status == transcribe.StatusProcessing && r.LeaseUntil.Before(now))) {
				return r
			}
		}
		return nil
	},
	lease: func(r *driver.Record) (*string, *time.Time) { return &r.LeaseOwner, &r.LeaseUntil },
	claimed: func(r *driver.Record) {
		r.Status = transcribe.StatusProcessing
		r.Claims++
	},
	clone: cloneRecord,
}

// ClaimJob implements driver.Store.
func (s *Store) ClaimJob(ctx context.Context, c driver.Claim) (*driver.Record, error) {
	return claim(ctx, s, jobs, c)
}

// ExtendLease implements driver.Store.
func (s *Store) ExtendLease(ctx context.Context, l driver.Lease) error {
	return extend(ctx, s, jobs, l)
}

// CreateUpload implements driver.UploadStore; an id already present gives
// an error wrapping transcribe.ErrExists.
func (s *Store) CreateUpload(ctx context.Context, u *driver.Upload) error {
	if u == nil || u.ID == "" {
		return errors.New("memory: CreateUpload: upload id is empty")
	}
	if err := s.lock(ctx); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if _, ok := s.uploads[u.ID]; ok {
		return fmt.Errorf("memory: upload %s: %w", u.ID, transcribe.ErrExists)
	}
	c := *u
	c.Created = utc(c.Created)
	s.uploads[u.ID] = &c
	return nil
}

// GetUpload implements driver.UploadStore.
func (s *Store) GetUpload(ctx context.Context, id string) (*driver.Upload, error) {
	if err := s.lock(ctx); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	u, ok := s.uploads[id]
	if !ok {
		return nil, fmt.Errorf("memory: upload %s: %w", id, transcribe.ErrNotFound)
	}
	c := *u
	return &c, nil
}

// DeleteUpload implements driver.UploadStore.
func (s *Store) DeleteUpload(ctx context.Context, id string) error {
	if err := s.lock(ctx); err != nil {
		return err
	}
	defer s.mu.Unlock()
	delete(s.uploads, id)
	return nil
}

// AttachUpload implements driver.UploadStore.
func (s *Store) AttachUpload(ctx context.Context, uploadID, transcriptID string) error {
	if err := s.lock(ctx); err != nil {
		return err
	}
	defer s.mu.Unlock()
	u, ok := s.uploads[uploadID]
	if !ok {
		return fmt.Errorf("memory: upload %s: %w", uploadID, transcribe.ErrNotFound)
	}
	if transcriptID != "" && u.TranscriptID != "" && u.TranscriptID != transcriptID {
		return fmt.Errorf("memory: upload %s is used by transcript %s: %w", uploadID, u.TranscriptID, transcribe.ErrExists)
	}
	u.TranscriptID = transcriptID
	return nil
}

// ListUploads implements driver.UploadStore.
func (s *Store) ListUploads(ctx context.Context, q driver.UploadQuery) ([]*driver.Upload, error) {
	if err := s.lock(ctx); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	var out []*driver.Upload
	for _, u := range s.uploads {
		switch {
		case q.Unattached && u.TranscriptID != "":
		case !q.CreatedBefore.IsZero() && !u.Created.Before(q.CreatedBefore):
		case q.AfterID != "" && (u.Created.Before(q.AfterCreated) || (u.Created.Equal(q.AfterCreated) && u.ID <= q.AfterID)):
		default:
			c := *u
			out = append(out, &c)
		}
	}
	slices.SortFunc(out, func(a, b *driver.Upload) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, nil
}

// AddDelivery implements webhook.Queue.
func (s *Store) AddDelivery(ctx context.Context, d *webhook.Delivery) error {
	if d == nil || d.ID == "" {
		return errors.New("memory: AddDelivery: delivery id is empty")
	}
	if err := s.lock(ctx); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if _, ok := s.deliveries[d.ID]; ok {
		return fmt.Errorf("memory: delivery %s: %w", d.ID, transcribe.ErrExists)
	}
	s.deliveries[d.ID] = cloneDelivery(d)
	return nil
}

// deliveries is the queue of webhook deliveries: the not-done delivery
// with the earliest NextAttempt at or before now whose lease is free (no
// owner) or expired (LeaseUntil before now); ties go to the smaller id.
var deliveries = &table[webhook.Delivery]{
	what:  "delivery",
	empty: webhook.ErrNoDelivery,
	get: func(s *Store, id string) (*webhook.Delivery, bool) {
		d, ok := s.deliveries[id]
		return d, ok
	},
	first: func(s *Store, now time.Time) *webhook.Delivery {
		var best *webhook.Delivery
		for _, d := range s.deliveries {
			if d.Done || d.NextAttempt.After(now) || (d.LeaseOwner != "" && !d.LeaseUntil.Before(now)) {
				continue
			}
			if best == nil || d.NextAttempt.Before(best.NextAttempt) || (d.NextAttempt.Equal(best.NextAttempt) && d.ID < best.ID) {
				best = d
			}
		}
		return best
	},
	lease: func(d *webhook.Delivery) (*string, *time.Time) { return &d.LeaseOwner, &d.LeaseUntil },
	clone: cloneDelivery,
}

// ClaimDelivery implements webhook.Queue.
func (s *Store) ClaimDelivery(ctx context.Context, c webhook.Claim) (*webhook.Delivery, error) {
	return claim(ctx, s, deliveries, c)
}

// ExtendDelivery implements webhook.Queue.
func (s *Store) ExtendDelivery(ctx context.Context, l driver.Lease) error {
	return extend(ctx, s, deliveries, l)
}

// UpdateDelivery implements webhook.Queue.
func (s *Store) UpdateDelivery(ctx context.Context, d *webhook.Delivery) error {
	if d == nil {
		return errors.New("memory: UpdateDelivery: nil delivery")
	}
	if err := s.lock(ctx); err != nil {
		return err
	}
	defer s.mu.Unlock()
	cur, ok := s.deliveries[d.ID]
	if !ok {
		return fmt.Errorf("memory: delivery %s: %w", d.ID, transcribe.ErrNotFound)
	}
	if cur.LeaseOwner != d.LeaseOwner {
		return lost("delivery", d.ID, cur.LeaseOwner, d.LeaseOwner)
	}
	c := cloneDelivery(d)
	c.TranscriptID = cur.TranscriptID
	s.deliveries[d.ID] = c
	return nil
}

// PurgeDeliveries implements webhook.Queue.
func (s *Store) PurgeDeliveries(ctx context.Context, doneBefore time.Time, limit int) (int, error) {
	if err := s.lock(ctx); err != nil {
		return 0, err
	}
	defer s.mu.Unlock()
	var ids []string
	for id, d := range s.deliveries {
		if d.Done && d.NextAttempt.Before(doneBefore) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	if limit > 0 && len(ids) > limit {
		ids = ids[:limit]
	}
	for _, id := range ids {
		delete(s.deliveries, id)
	}
	return len(ids), nil
}

// Close implements driver.Store. Later calls return ErrClosed; closing
// twice is nil.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.records, s.order, s.uploads, s.deliveries = nil, nil, nil, nil
	return nil
}
