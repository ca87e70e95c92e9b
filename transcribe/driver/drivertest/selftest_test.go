package drivertest_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/transcribe/driver/drivertest"
	"github.com/earshot-dev/earshot/transcribe/queue/queuetest"
	"github.com/earshot-dev/earshot/webhook"
	"github.com/earshot-dev/earshot/webhook/webhooktest"
)

// The suites are checked against broken adapters: each wraps the memory
// adapter and breaks one clause, and the suite must fail the subtest for
// that clause. The broken suite runs in a child process (this test binary
// re-executed) because a failing subtest cannot be contained in-process.

type brokenStore struct {
	*memory.Store
	bug   string
	cache *sync.Map // for get-shares-memory
}

func (s brokenStore) ExtendLease(ctx context.Context, l driver.Lease) error {
	if s.bug == "extend-ignores-owner" {
		if r, err := s.Store.Get(ctx, l.ID); err == nil && r.LeaseOwner != "" {
			l.Owner = r.LeaseOwner
		}
	}
	return s.Store.ExtendLease(ctx, l)
}

func (s brokenStore) SetWebhookStatus(ctx context.Context, id string, code int) error {
	if s.bug == "webhook-status-missing-ok" {
		if _, err := s.Store.Get(ctx, id); err != nil {
			return nil
		}
	}
	return s.Store.SetWebhookStatus(ctx, id, code)
}

func (s brokenStore) AttachUpload(ctx context.Context, uploadID, transcriptID string) error {
	if s.bug == "attach-steals" && transcriptID != "" {
		if err := s.Store.AttachUpload(ctx, uploadID, ""); err != nil {
			return err
		}
	}
	return s.Store.AttachUpload(ctx, uploadID, transcriptID)
}

func (s brokenStore) Get(ctx context.Context, id string) (*driver.Record, error) {
	if s.bug == "get-shares-memory" {
		if r, ok := s.cache.Load(id); ok {
			return r.(*driver.Record), nil
		}
	}
	r, err := s.Store.Get(ctx, id)
	if s.bug == "get-unwrapped-error" && err != nil {
		return nil, errors.New("no such transcript")
	}
	if s.bug == "get-shares-memory" && err == nil {
		s.cache.Store(id, r)
	}
	return r, err
}

func (s brokenStore) List(ctx context.Context, q driver.ListQuery) ([]*driver.Record, error) {
	switch s.bug {
	case "list-ignores-limit":
		q.Limit = 0
	case "list-ignores-status":
		q.Status = ""
	case "list-includes-deleted":
		q.IncludeDeleted = true
	case "list-cursor-ignores-project":
		for _, c := range []*string{&q.BeforeID, &q.AfterID} {
			if r, err := s.Store.Get(ctx, *c); err == nil && r.ProjectID != q.ProjectID {
				*c = ""
			}
		}
	case "list-after-seq-newest":
		if q.AfterID != "" && q.Limit > 0 {
			limit := q.Limit
			q.Limit = 0
			rs, err := s.Store.List(ctx, q)
			return rs[:min(limit, len(rs))], err
		}
	case "list-created-before-inclusive":
		if !q.CreatedBefore.IsZero() {
			q.CreatedBefore = q.CreatedBefore.Add(time.Microsecond)
		}
	}
	rs, err := s.Store.List(ctx, q)
	if s.bug == "list-returns-data" {
		for _, r := range rs {
			if full, err := s.Store.Get(ctx, r.ID); err == nil {
				r.Data = full.Data
			}
		}
	}
	if s.bug == "list-oldest-first" {
		for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
			rs[i], rs[j] = rs[j], rs[i]
		}
	}
	return rs, err
}

func (s brokenStore) Update(ctx context.Context, r *driver.Record) error {
	if s.bug == "get-shares-memory" {
		s.cache.Delete(r.ID)
	}
	if s.bug == "update-keeps-data" {
		if cur, err := s.Store.Get(ctx, r.ID); err == nil {
			c := *r
			c.Data = cur.Data
			return s.Store.Update(ctx, &c)
		}
	}
	if s.bug == "update-overwrites-claims" {
		// Like an UPDATE that sets every column from the caller's record.
		cur, err := s.Store.Get(ctx, r.ID)
		if err == nil && cur.Claims != r.Claims {
			if err := s.Store.Update(ctx, r); err != nil {
				return err
			}
			for range max(0, r.Claims-cur.Claims) {
				s.Store.ClaimJob(ctx, driver.Claim{Owner: "ghost", Now: time.Now().Add(1000 * time.Hour)})
			}
			return nil
		}
	}
	if s.bug == "update-ignores-lease" && r.LeaseOwner != "" {
		c := *r
		c.LeaseOwner = "" // an unconditional update
		return s.Store.Update(ctx, &c)
	}
	return s.Store.Update(ctx, r)
}

func (s brokenStore) ClaimJob(ctx context.Context, c driver.Claim) (*driver.Record, error) {
	owner, now, lease := c.Owner, c.Now, c.Lease
	if s.bug == "claim-ignores-live-lease" {
		// Sees every lease as expired, then fixes up the lease it sets.
		r, err := s.Store.ClaimJob(ctx, driver.Claim{Owner: owner, Now: now.Add(1000 * time.Hour), Lease: lease})
		if err != nil {
			return nil, err
		}
		if err := s.Store.ExtendLease(ctx, driver.Lease{ID: r.ID, Owner: owner, Until: now.Add(lease)}); err != nil {
			return nil, err
		}
		r.LeaseUntil = now.Add(lease)
		return r, nil
	}
	r, err := s.Store.ClaimJob(ctx, c)
	if s.bug == "claim-racy" {
		// Like a SELECT-then-UPDATE claim: a caller arriving just after
		// another claim sees the job it took as still claimable.
		type claim struct {
			r  *driver.Record
			at time.Time
		}
		if err == nil {
			s.cache.Store("last claim", claim{r, time.Now()})
		} else if v, ok := s.cache.Load("last claim"); ok && time.Since(v.(claim).at) < 50*time.Millisecond {
			c := *v.(claim).r
			c.LeaseOwner = owner
			return &c, nil
		}
	}
	return r, err
}

func (s brokenStore) DeleteUpload(ctx context.Context, id string) error {
	if s.bug == "delete-upload-missing-errors" {
		if _, err := s.Store.GetUpload(ctx, id); err != nil {
			return err
		}
	}
	return s.Store.DeleteUpload(ctx, id)
}

func (s brokenStore) ClaimDelivery(ctx context.Context, c webhook.Claim) (*webhook.Delivery, error) {
	if s.bug == "delivery-ignores-next-attempt" {
		c.Now = c.Now.Add(1000 * time.Hour)
	}
	return s.Store.ClaimDelivery(ctx, c)
}

func (s brokenStore) PurgeDeliveries(ctx context.Context, doneBefore time.Time, limit int) (int, error) {
	if s.bug == "purge-ignores-limit" {
		limit = 0
	}
	return s.Store.PurgeDeliveries(ctx, doneBefore, limit)
}

type brokenBlobs struct {
	*memory.BlobStore
	bug string
}

func (b brokenBlobs) Put(ctx context.Context, key string, r io.Reader) (int64, error) {
	if b.bug == "put-miscounts" {
		n, err := b.BlobStore.Put(ctx, key, r)
		return n - 1, err
	}
	if b.bug == "put-keeps-partial" {
		var buf bytes.Buffer
		n, err := io.Copy(&buf, r)
		if _, perr := b.BlobStore.Put(ctx, key, &buf); perr != nil {
			return n, perr
		}
		return n, err
	}
	return b.BlobStore.Put(ctx, key, r)
}

func (b brokenBlobs) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	rc, err := b.BlobStore.Open(ctx, key)
	if b.bug == "open-unwrapped-error" && err != nil {
		return nil, errors.New("no such blob")
	}
	return rc, err
}

func (b brokenBlobs) Delete(ctx context.Context, key string) error {
	if b.bug == "delete-missing-errors" {
		rc, err := b.Open(ctx, key)
		if err != nil {
			return err
		}
		rc.Close()
	}
	return b.BlobStore.Delete(ctx, key)
}

const bugEnv = "TRANSCRIBETEST_BUG"

// TestBrokenAdapter runs the suites on a broken adapter when bugEnv is
// set (by TestSuitesCatchBugs); otherwise it does nothing.
func TestBrokenAdapter(t *testing.T) {
	bug := os.Getenv(bugEnv)
	if bug == "" {
		t.Skip("helper for TestSuitesCatchBugs")
	}
	t.Run("Store", func(t *testing.T) {
		drivertest.RunStoreTests(t, func(t *testing.T) driver.Store { return brokenStore{memory.New(), bug, new(sync.Map)} })
	})
	t.Run("UploadStore", func(t *testing.T) {
		drivertest.RunUploadStoreTests(t, func(t *testing.T) driver.UploadStore { return brokenStore{memory.New(), bug, new(sync.Map)} })
	})
	t.Run("Queue", func(t *testing.T) {
		webhooktest.RunQueueTests(t, func(t *testing.T) webhook.Queue { return brokenStore{memory.New(), bug, new(sync.Map)} })
	})
	t.Run("LeasedQueue", func(t *testing.T) {
		queuetest.Run(t,
			drivertest.JobQueue(func(t *testing.T) driver.Store { return brokenStore{memory.New(), bug, new(sync.Map)} }),
			webhooktest.DeliveryQueue(func(t *testing.T) webhook.Queue { return brokenStore{memory.New(), bug, new(sync.Map)} }))
	})
	t.Run("BlobStore", func(t *testing.T) {
		drivertest.RunBlobStoreTests(t, func(t *testing.T) driver.BlobStore { return brokenBlobs{memory.NewBlobStore(), bug} })
	})
}

func TestSuitesCatchBugs(t *testing.T) {
	if os.Getenv(bugEnv) != "" {
		t.Skip("running as the child")
	}
	// also: the other groups that the bug fails too (a lease bug of the
	// Store's own methods shows in its queue).
	cases := []struct {
		bug, failing string
		also         []string
	}{
		{"get-unwrapped-error", "Store/GetNotFound", nil},
		{"list-oldest-first", "Store/ListOrderLimit", nil},
		{"list-includes-deleted", "Store/ListDeleted", nil},
		{"list-after-seq-newest", "Store/ListCursors", nil},
		{"list-cursor-ignores-project", "Store/ListCursors", nil},
		{"list-returns-data", "Store/ListNoData", nil},
		{"update-overwrites-claims", "Store/ClaimsCounted", nil},
		{"webhook-status-missing-ok", "Store/WebhookStatus", nil},
		{"attach-steals", "UploadStore/AttachUpload", nil},
		{"purge-ignores-limit", "Queue/Purge", nil},
		{"list-created-before-inclusive", "Store/ListCreated", nil},
		{"update-ignores-lease", "Store/UpdateLease", []string{"LeasedQueue"}},
		{"claim-ignores-live-lease", "Store/ClaimJobSkips", []string{"LeasedQueue"}},
		{"claim-racy", "LeasedQueue/jobs/ReclaimRace", []string{"Store"}},
		{"delete-upload-missing-errors", "UploadStore/Uploads", nil},
		{"delivery-ignores-next-attempt", "Queue/ClaimOrder", []string{"LeasedQueue"}},
		{"extend-ignores-owner", "LeasedQueue/jobs/Extend", nil},
		{"get-shares-memory", "Store/Copies", []string{"LeasedQueue"}},
		{"list-ignores-limit", "Store/ListOrderLimit", nil},
		{"list-ignores-status", "Store/ListStatus", nil},
		{"update-keeps-data", "Store/Update", nil},
		{"put-keeps-partial", "BlobStore/FailedPut", nil},
		{"put-miscounts", "BlobStore/PutOpen", nil},
		{"open-unwrapped-error", "BlobStore/NotFound", nil},
		{"delete-missing-errors", "BlobStore/Delete", nil},
	}
	for _, c := range cases {
		t.Run(c.bug, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestBrokenAdapter$", "-test.v", "-test.short", "-test.count=1")
			cmd.Env = append(os.Environ(), bugEnv+"="+c.bug)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the suites passed an adapter with bug %s", c.bug)
			}
			if !strings.Contains(string(out), "--- FAIL: TestBrokenAdapter/"+c.failing+" ") {
				t.Errorf("bug %s: subtest %s did not fail; output:\n%s", c.bug, c.failing, out)
			}
			// The other groups must pass: the failure is specific.
			for _, group := range []string{"Store", "UploadStore", "Queue", "LeasedQueue", "BlobStore"} {
				if strings.HasPrefix(c.failing, group+"/") || slices.Contains(c.also, group) {
					continue
				}
				if other := "--- PASS: TestBrokenAdapter/" + group + " "; !strings.Contains(string(out), other) {
					t.Errorf("bug %s: expected %q in output:\n%s", c.bug, other, out)
				}
			}
		})
	}
}
