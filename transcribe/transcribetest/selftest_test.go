package transcribetest_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
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

func (s brokenStore) ExtendLease(ctx context.Context, id, owner string, until time.Time) error {
	if s.bug == "extend-ignores-owner" {
		if r, err := s.Store.Get(ctx, id); err == nil && r.LeaseOwner != "" {
			owner = r.LeaseOwner
		}
	}
	return s.Store.ExtendLease(ctx, id, owner, until)
}

func (s brokenStore) SeqOf(ctx context.Context, projectID, id string) (int64, error) {
	if s.bug == "seqof-ignores-project" {
		r, err := s.Store.Get(ctx, id)
		if err != nil {
			return 0, err
		}
		return r.Seq, nil
	}
	return s.Store.SeqOf(ctx, projectID, id)
}

func (s brokenStore) Get(ctx context.Context, id string) (*transcribe.Record, error) {
	if s.bug == "get-shares-memory" {
		if r, ok := s.cache.Load(id); ok {
			return r.(*transcribe.Record), nil
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

func (s brokenStore) List(ctx context.Context, q transcribe.ListQuery) ([]*transcribe.Record, error) {
	switch s.bug {
	case "list-ignores-limit":
		q.Limit = 0
	case "list-ignores-status":
		q.Status = ""
	case "list-includes-deleted":
		q.IncludeDeleted = true
	case "list-after-seq-newest":
		if q.AfterSeq > 0 && q.Limit > 0 {
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
	if s.bug == "list-oldest-first" {
		for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
			rs[i], rs[j] = rs[j], rs[i]
		}
	}
	return rs, err
}

func (s brokenStore) Update(ctx context.Context, r *transcribe.Record) error {
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
	if s.bug == "update-ignores-lease" && r.LeaseOwner != "" {
		c := *r
		c.LeaseOwner = "" // an unconditional update
		return s.Store.Update(ctx, &c)
	}
	return s.Store.Update(ctx, r)
}

func (s brokenStore) ClaimJob(ctx context.Context, owner string, now time.Time, lease time.Duration) (*transcribe.Record, error) {
	if s.bug == "claim-ignores-live-lease" {
		// Sees every lease as expired, then fixes up the lease it sets.
		r, err := s.Store.ClaimJob(ctx, owner, now.Add(1000*time.Hour), lease)
		if err != nil {
			return nil, err
		}
		if err := s.Store.ExtendLease(ctx, r.ID, owner, now.Add(lease)); err != nil {
			return nil, err
		}
		r.LeaseUntil = now.Add(lease)
		return r, nil
	}
	r, err := s.Store.ClaimJob(ctx, owner, now, lease)
	if s.bug == "claim-racy" {
		// Like a SELECT-then-UPDATE claim: a caller arriving just after
		// another claim sees the job it took as still claimable.
		type claim struct {
			r  *transcribe.Record
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

func (s brokenStore) ClaimDelivery(ctx context.Context, owner string, now time.Time, lease time.Duration) (*transcribe.Delivery, error) {
	if s.bug == "delivery-ignores-next-attempt" {
		now = now.Add(1000 * time.Hour)
	}
	return s.Store.ClaimDelivery(ctx, owner, now, lease)
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
		transcribetest.RunStoreTests(t, func(t *testing.T) transcribe.Store { return brokenStore{memory.New(), bug, new(sync.Map)} })
	})
	t.Run("BlobStore", func(t *testing.T) {
		transcribetest.RunBlobStoreTests(t, func(t *testing.T) transcribe.BlobStore { return brokenBlobs{memory.NewBlobStore(), bug} })
	})
}

func TestSuitesCatchBugs(t *testing.T) {
	if os.Getenv(bugEnv) != "" {
		t.Skip("running as the child")
	}
	cases := []struct{ bug, failing string }{
		{"get-unwrapped-error", "Store/GetNotFound"},
		{"list-oldest-first", "Store/ListOrderLimit"},
		{"list-includes-deleted", "Store/ListDeleted"},
		{"list-after-seq-newest", "Store/ListSeq"},
		{"list-created-before-inclusive", "Store/ListCreated"},
		{"update-ignores-lease", "Store/UpdateLease"},
		{"claim-ignores-live-lease", "Store/ClaimJobSkips"},
		{"claim-racy", "Store/ClaimJobReclaimRace"},
		{"delete-upload-missing-errors", "Store/Uploads"},
		{"delivery-ignores-next-attempt", "Store/DeliveryClaimOrder"},
		{"extend-ignores-owner", "Store/ExtendLease"},
		{"seqof-ignores-project", "Store/SeqOf"},
		{"get-shares-memory", "Store/Copies"},
		{"list-ignores-limit", "Store/ListOrderLimit"},
		{"list-ignores-status", "Store/ListStatus"},
		{"update-keeps-data", "Store/Update"},
		{"put-keeps-partial", "BlobStore/FailedPut"},
		{"put-miscounts", "BlobStore/PutOpen"},
		{"open-unwrapped-error", "BlobStore/NotFound"},
		{"delete-missing-errors", "BlobStore/Delete"},
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
			// The other group must pass: the failure is specific.
			other := "--- PASS: TestBrokenAdapter/Store "
			if strings.HasPrefix(c.failing, "Store/") {
				other = "--- PASS: TestBrokenAdapter/BlobStore "
			}
			if !strings.Contains(string(out), other) {
				t.Errorf("bug %s: expected %q in output:\n%s", c.bug, other, out)
			}
		})
	}
}
