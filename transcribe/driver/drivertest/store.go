package drivertest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// base is the suite's reference time: microsecond precision (the finest an
// adapter must keep) in a zone other than UTC (adapters may return UTC).
var base = time.Date(2026, 3, 14, 15, 9, 26, 535897000, time.FixedZone("UTC+1", 3600))

// RunStoreTests checks every clause of the driver.Store contract but
// the lease rules that every leased queue shares, which JobQueue's
// queuetest.Run checks (claims under a live lease, expiry and takeover,
// writes by a former owner, ExtendLease, concurrent claims).
// newStore must return a fresh, empty store each time it is called; the
// suite closes it (and checks that Close returns nil) when the subtest
// ends, so a factory that also closes it in a Cleanup must tolerate a
// second Close.
//
// Beyond the contract's letter the suite expects what every real database
// gives: times round-trip to the microsecond (compared with time.Equal, so
// the location may change), records are copies (changing a returned record
// or the argument of Create does not change the stored one), and an empty
// Data or Summary may come back as nil.
func RunStoreTests(t *testing.T, newStore func(t *testing.T) driver.Store) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s driver.Store)
	}{
		{"CreateGet", testCreateGet},
		{"CreateExists", testCreateExists},
		{"SeqIncreasing", testSeqIncreasing},
		{"CreateConcurrent", testCreateConcurrent},
		{"GetNotFound", testGetNotFound},
		{"Copies", testCopies},
		{"DataRoundTrip", testDataRoundTrip},
		{"Update", testUpdate},
		{"UpdateNotFound", testUpdateNotFound},
		{"UpdateLease", testUpdateLease},
		{"ListProjects", testListProjects},
		{"ListOrderLimit", testListOrderLimit},
		{"ListStatus", testListStatus},
		{"ListCreated", testListCreated},
		{"ListCursors", testListCursors},
		{"ListDeleted", testListDeleted},
		{"ListEmpty", testListEmpty},
		{"ListNoData", testListNoData},
		{"ClaimJobOrder", testClaimJobOrder},
		{"ClaimJobSkips", testClaimJobSkips},
		{"ClaimJobRequeued", testClaimJobRequeued},
		{"ExtendLease", testExtendLease},
		{"ClaimsCounted", testClaimsCounted},
		{"WebhookStatus", testWebhookStatus},
		{"NotifyPending", testNotifyPending},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			if s == nil {
				t.Fatal("newStore returned nil")
			}
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			tc.fn(t, s)
		})
	}
}

// rec returns a queued record of project p created at base+i seconds.
func rec(id, p string, i int) *driver.Record {
	return &driver.Record{
		ID:        id,
		ProjectID: p,
		Status:    transcribe.StatusQueued,
		Created:   base.Add(time.Duration(i) * time.Second),
		Summary:   []byte("summary:" + id),
		Data:      []byte("sealed:" + id),
	}
}

func mustCreate(t *testing.T, s driver.Store, rs ...*driver.Record) {
	t.Helper()
	for _, r := range rs {
		if err := s.Create(t.Context(), r); err != nil {
			t.Fatalf("Create(%s): %v", r.ID, err)
		}
	}
}

func mustGet(t *testing.T, s driver.Store, id string) *driver.Record {
	t.Helper()
	r, err := s.Get(t.Context(), id)
	if err != nil {
		t.Fatalf("Get(%s): %v", id, err)
	}
	if r == nil {
		t.Fatalf("Get(%s) returned nil, nil", id)
	}
	return r
}

func mustUpdate(t *testing.T, s driver.Store, r *driver.Record) {
	t.Helper()
	if err := s.Update(t.Context(), r); err != nil {
		t.Fatalf("Update(%s): %v", r.ID, err)
	}
}

// diffRecord describes how got differs from want, ignoring Seq when
// want.Seq is 0. Times are compared with Equal.
func diffRecord(got, want *driver.Record) string {
	var d []string
	add := func(field string, g, w any) { d = append(d, fmt.Sprintf("%s = %v, want %v", field, g, w)) }
	if got.ID != want.ID {
		add("ID", got.ID, want.ID)
	}
	if got.ProjectID != want.ProjectID {
		add("ProjectID", got.ProjectID, want.ProjectID)
	}
	if got.Status != want.Status {
		add("Status", got.Status, want.Status)
	}
	if got.Deleted != want.Deleted {
		add("Deleted", got.Deleted, want.Deleted)
	}
	if !got.Created.Equal(want.Created) {
		add("Created", got.Created, want.Created)
	}
	if !got.Completed.Equal(want.Completed) {
		add("Completed", got.Completed, want.Completed)
	}
	if want.Seq != 0 && got.Seq != want.Seq {
		add("Seq", got.Seq, want.Seq)
	}
	if got.LeaseOwner != want.LeaseOwner {
		add("LeaseOwner", got.LeaseOwner, want.LeaseOwner)
	}
	if !got.LeaseUntil.Equal(want.LeaseUntil) {
		add("LeaseUntil", got.LeaseUntil, want.LeaseUntil)
	}
	if got.Claims != want.Claims {
		add("Claims", got.Claims, want.Claims)
	}
	if got.Failures != want.Failures {
		add("Failures", got.Failures, want.Failures)
	}
	if got.WebhookStatus != want.WebhookStatus {
		add("WebhookStatus", got.WebhookStatus, want.WebhookStatus)
	}
	if got.NotifyPending != want.NotifyPending {
		add("NotifyPending", got.NotifyPending, want.NotifyPending)
	}
	if !bytes.Equal(got.Summary, want.Summary) {
		add("Summary", fmt.Sprintf("%q", clip(got.Summary)), fmt.Sprintf("%q", clip(want.Summary)))
	}
	if !bytes.Equal(got.Data, want.Data) {
		add("Data", fmt.Sprintf("%q", clip(got.Data)), fmt.Sprintf("%q", clip(want.Data)))
	}
	if len(d) == 0 {
		return ""
	}
	return fmt.Sprint(d)
}

func clip(b []byte) []byte {
	if len(b) > 40 {
		return b[:40]
	}
	return b
}

func ids(rs []*driver.Record) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

func testCreateGet(t *testing.T, s driver.Store) {
	r := rec("t1", "p1", 0)
	r.Status = transcribe.StatusCompleted
	r.Completed = base.Add(90 * time.Second)
	r.LeaseOwner = "worker-1"
	r.LeaseUntil = base.Add(time.Minute)
	r.Claims, r.Failures, r.WebhookStatus = 2, 1, 200
	want := *r
	want.Data = slices.Clone(r.Data)
	mustCreate(t, s, r)
	if r.Seq <= 0 {
		t.Fatalf("Create assigned Seq %d, want > 0", r.Seq)
	}
	want.Seq = r.Seq
	got := mustGet(t, s, "t1")
	if d := diffRecord(got, &want); d != "" {
		t.Errorf("Get after Create: %s", d)
	}
	// Zero times stay zero.
	mustCreate(t, s, rec("t2", "p1", 1))
	if got := mustGet(t, s, "t2"); !got.Completed.IsZero() || !got.LeaseUntil.IsZero() || got.LeaseOwner != "" {
		t.Errorf("zero fields came back as Completed=%v LeaseUntil=%v LeaseOwner=%q", got.Completed, got.LeaseUntil, got.LeaseOwner)
	}
}

func testCreateExists(t *testing.T, s driver.Store) {
	first := rec("dup", "p1", 0)
	mustCreate(t, s, first)
	second := rec("dup", "p2", 5)
	second.Data = []byte("other")
	second.Status = transcribe.StatusError
	err := s.Create(t.Context(), second)
	if !errors.Is(err, transcribe.ErrExists) {
		t.Fatalf("second Create of the same id: err = %v, want ErrExists", err)
	}
	got := mustGet(t, s, "dup")
	want := rec("dup", "p1", 0)
	want.Seq = first.Seq
	if d := diffRecord(got, want); d != "" {
		t.Errorf("failed Create changed the stored record: %s", d)
	}
	// A failed Create must not consume the next record's place in order.
	mustCreate(t, s, rec("next", "p1", 1))
	if got := mustGet(t, s, "next"); got.Seq <= first.Seq {
		t.Errorf("Seq after failed Create = %d, not above %d", got.Seq, first.Seq)
	}
}

func testSeqIncreasing(t *testing.T, s driver.Store) {
	var last int64
	for i := range 25 {
		r := rec(fmt.Sprintf("s%02d", i), []string{"p1", "p2", "p3"}[i%3], 25-i) // Created decreasing: Seq is not time
		mustCreate(t, s, r)
		if r.Seq <= last {
			t.Fatalf("record %d got Seq %d after %d; want strictly increasing", i, r.Seq, last)
		}
		if got := mustGet(t, s, r.ID); got.Seq != r.Seq {
			t.Fatalf("Get(%s).Seq = %d, Create assigned %d", r.ID, got.Seq, r.Seq)
		}
		last = r.Seq
	}
}

// testCreateConcurrent: goroutines race to create the same ids; each id
// is created exactly once, the others get ErrExists, and Seqs are unique.
func testCreateConcurrent(t *testing.T, s driver.Store) {
	const ids, workers = 40, 6
	var (
		mu      sync.Mutex
		winners = map[string]int{}
		seqs    = map[int64]string{}
		wg      sync.WaitGroup
	)
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			for i := range ids {
				id := fmt.Sprintf("c%03d", (i+w*7)%ids)
				r := rec(id, "p", i)
				r.Data = []byte(fmt.Sprintf("worker %d", w))
				err := s.Create(context.Background(), r)
				if errors.Is(err, transcribe.ErrExists) {
					continue
				}
				if err != nil {
					errs <- fmt.Errorf("Create(%s): %w", id, err)
					return
				}
				mu.Lock()
				winners[id]++
				if prev, dup := seqs[r.Seq]; dup {
					errs <- fmt.Errorf("Seq %d assigned to %s and %s", r.Seq, prev, id)
				}
				seqs[r.Seq] = id
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for i := range ids {
		id := fmt.Sprintf("c%03d", i)
		if winners[id] != 1 {
			t.Errorf("%s created %d times, want exactly once", id, winners[id])
		}
	}
	// List order agrees with the Seqs handed out.
	recs, err := s.List(t.Context(), driver.ListQuery{ProjectID: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != ids {
		t.Fatalf("List returned %d records, want %d", len(recs), ids)
	}
	for i, r := range recs {
		if seqs[r.Seq] != r.ID {
			t.Errorf("listed %s with Seq %d, but Create gave that Seq to %q", r.ID, r.Seq, seqs[r.Seq])
		}
		if i > 0 && r.Seq >= recs[i-1].Seq {
			t.Errorf("List not in descending Seq order at %d", i)
		}
	}
}

func testGetNotFound(t *testing.T, s driver.Store) {
	if _, err := s.Get(t.Context(), "missing"); !errors.Is(err, transcribe.ErrNotFound) {
		t.Errorf("Get(missing) on empty store: err = %v, want ErrNotFound", err)
	}
	mustCreate(t, s, rec("a", "p1", 0))
	for _, id := range []string{"missing", "A", "a ", ""} {
		if _, err := s.Get(t.Context(), id); !errors.Is(err, transcribe.ErrNotFound) {
			t.Errorf("Get(%q): err = %v, want ErrNotFound", id, err)
		}
	}
	// Get does not filter by project.
	mustCreate(t, s, rec("b", "p2", 1))
	if got := mustGet(t, s, "b"); got.ProjectID != "p2" {
		t.Errorf("Get(b).ProjectID = %q, want p2", got.ProjectID)
	}
}

func testCopies(t *testing.T, s driver.Store) {
	r := rec("c", "p1", 0)
	mustCreate(t, s, r)
	r.Data[0] = 'X'
	r.Status = transcribe.StatusError
	got := mustGet(t, s, "c")
	if string(got.Data) != "sealed:c" || got.Status != transcribe.StatusQueued {
		t.Fatalf("changing the record passed to Create changed the store: Data %q Status %s", got.Data, got.Status)
	}
	got.Data[0] = 'Y'
	got.ProjectID = "other"
	again := mustGet(t, s, "c")
	if string(again.Data) != "sealed:c" || again.ProjectID != "p1" {
		t.Fatalf("changing a record returned by Get changed the store: Data %q ProjectID %s", again.Data, again.ProjectID)
	}
	again.Data = []byte("updated")
	mustUpdate(t, s, again)
	again.Data[0] = 'Z'
	if got := mustGet(t, s, "c"); string(got.Data) != "updated" {
		t.Fatalf("changing the record passed to Update changed the store: Data %q", got.Data)
	}
	recs, err := s.List(t.Context(), driver.ListQuery{ProjectID: "p1"})
	if err != nil || len(recs) != 1 {
		t.Fatalf("List: %d records, err %v", len(recs), err)
	}
	recs[0].Summary[0] = 'W'
	if got := mustGet(t, s, "c"); string(got.Summary) != "summary:c" {
		t.Fatalf("changing a record returned by List changed the store: Summary %q", got.Summary)
	}
}

func testDataRoundTrip(t *testing.T, s driver.Store) {
	all := make([]byte, 256*4)
	for i := range all {
		all[i] = byte(i)
	}
	big := make([]byte, 2<<20)
	for i := range big {
		big[i] = byte(i*7 + i>>9)
	}
	cases := map[string][]byte{
		"empty":  nil,
		"zeros":  make([]byte, 100),
		"bytes":  all,
		"utf8":   []byte("héllo wörld \u2028 \x00 end"),
		"2MiB":   big,
		"single": {0xff},
	}
	i := 0
	for name, data := range cases {
		r := rec("d-"+name, "p1", i)
		r.Data = slices.Clone(data)
		mustCreate(t, s, r)
		i++
	}
	for name, data := range cases {
		if got := mustGet(t, s, "d-"+name); !bytes.Equal(got.Data, data) {
			t.Errorf("Data %s: got %d bytes %q..., want %d bytes %q...", name, len(got.Data), clip(got.Data), len(data), clip(data))
		}
	}
	// Update round-trips Data too, including growing and shrinking it.
	r := mustGet(t, s, "d-single")
	r.Data = big
	mustUpdate(t, s, r)
	if got := mustGet(t, s, "d-single"); !bytes.Equal(got.Data, big) {
		t.Errorf("Data after Update to 2 MiB: %d bytes", len(got.Data))
	}
	r.Data = []byte{1}
	mustUpdate(t, s, r)
	if got := mustGet(t, s, "d-single"); !bytes.Equal(got.Data, []byte{1}) {
		t.Errorf("Data after Update to 1 byte: %q", clip(got.Data))
	}
}

func testUpdate(t *testing.T, s driver.Store) {
	r := rec("u", "p1", 0)
	mustCreate(t, s, r)
	seq := r.Seq
	if err := s.SetWebhookStatus(t.Context(), "u", 503); err != nil {
		t.Fatal(err)
	}
	upd := &driver.Record{
		ID:            "u",
		ProjectID:     "other-project", // ignored
		Status:        transcribe.StatusCompleted,
		Deleted:       true,
		Created:       base.Add(time.Hour), // ignored
		Completed:     base.Add(2 * time.Minute),
		Seq:           seq + 1000, // ignored
		LeaseOwner:    "",
		LeaseUntil:    base.Add(3 * time.Minute),
		Claims:        7,   // ignored
		Failures:      1,   // replaced
		WebhookStatus: 201, // ignored
		Summary:       []byte("new summary"),
		Data:          []byte("new content"),
	}
	mustUpdate(t, s, upd)
	want := *upd
	want.ProjectID, want.Created, want.Seq, want.Claims, want.WebhookStatus = "p1", base, seq, 0, 503
	if d := diffRecord(mustGet(t, s, "u"), &want); d != "" {
		t.Errorf("Get after Update: %s (Update must replace all fields but Seq, Created, ProjectID, Claims and WebhookStatus)", d)
	}
	// Back to zero times and not deleted.
	upd2 := &driver.Record{ID: "u", ProjectID: "p1", Status: transcribe.StatusQueued, Data: []byte("x"), Summary: []byte("y")}
	mustUpdate(t, s, upd2)
	want2 := *upd2
	want2.Created, want2.Seq, want2.WebhookStatus = base, seq, 503
	if d := diffRecord(mustGet(t, s, "u"), &want2); d != "" {
		t.Errorf("Get after second Update: %s", d)
	}
	// Update must not disturb other records.
	mustCreate(t, s, rec("other", "p1", 1))
	mustUpdate(t, s, upd)
	if got := mustGet(t, s, "other"); string(got.Data) != "sealed:other" || got.Status != transcribe.StatusQueued {
		t.Errorf("Update of u changed record other: %+v", got)
	}
}

func testUpdateNotFound(t *testing.T, s driver.Store) {
	err := s.Update(t.Context(), rec("ghost", "p1", 0))
	if !errors.Is(err, transcribe.ErrNotFound) {
		t.Errorf("Update of an absent record: err = %v, want ErrNotFound", err)
	}
	r := rec("ghost2", "p1", 0)
	r.LeaseOwner = "w1"
	if err := s.Update(t.Context(), r); !errors.Is(err, transcribe.ErrNotFound) {
		t.Errorf("Update with owner of an absent record: err = %v, want ErrNotFound", err)
	}
	if _, err := s.Get(t.Context(), "ghost"); !errors.Is(err, transcribe.ErrNotFound) {
		t.Errorf("failed Update created the record: Get err = %v", err)
	}
}

func testUpdateLease(t *testing.T, s driver.Store) {
	ctx := t.Context()
	mustCreate(t, s, rec("j", "p1", 0))
	claimed, err := s.ClaimJob(ctx, driver.Claim{Owner: "w1", Now: base, Lease: time.Minute})
	if err != nil {
		t.Fatalf("ClaimJob: %v", err)
	}
	// Another owner may not update.
	other := *claimed
	other.LeaseOwner = "w2"
	other.Status = transcribe.StatusCompleted
	other.Data = []byte("w2 result")
	if err := s.Update(ctx, &other); !errors.Is(err, transcribe.ErrLeaseLost) {
		t.Fatalf("Update by non-owner: err = %v, want ErrLeaseLost", err)
	}
	if got := mustGet(t, s, "j"); got.Status != transcribe.StatusProcessing || got.LeaseOwner != "w1" || string(got.Data) != "sealed:j" {
		t.Fatalf("rejected Update changed the record: %+v", got)
	}
	// The owner may.
	mine := *claimed
	mine.Data = []byte("attempt 1")
	mustUpdate(t, s, &mine)
	if got := mustGet(t, s, "j"); got.LeaseOwner != "w1" || string(got.Data) != "attempt 1" || !got.LeaseUntil.Equal(base.Add(time.Minute)) {
		t.Fatalf("owner Update: got owner %q data %q until %v", got.LeaseOwner, got.Data, got.LeaseUntil)
	}
	// An empty owner updates unconditionally and clears the lease (as
	// Service.Delete does) ...
	del := *claimed
	del.LeaseOwner, del.LeaseUntil, del.Deleted = "", time.Time{}, true
	mustUpdate(t, s, &del)
	if got := mustGet(t, s, "j"); got.LeaseOwner != "" || !got.LeaseUntil.IsZero() || !got.Deleted {
		t.Fatalf("Update without owner: got owner %q until %v deleted %v", got.LeaseOwner, got.LeaseUntil, got.Deleted)
	}
	// ... after which the former owner has lost the lease.
	late := *claimed
	late.Status = transcribe.StatusCompleted
	if err := s.Update(ctx, &late); !errors.Is(err, transcribe.ErrLeaseLost) {
		t.Fatalf("Update by the former owner after the lease was cleared: err = %v, want ErrLeaseLost", err)
	}
	if got := mustGet(t, s, "j"); got.Status != transcribe.StatusProcessing || !got.Deleted {
		t.Fatalf("rejected Update changed the record: %+v", got)
	}
}
