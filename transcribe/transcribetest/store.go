package transcribetest

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
)

// base is the suite's reference time: microsecond precision (the finest an
// adapter must keep) in a zone other than UTC (adapters may return UTC).
var base = time.Date(2026, 3, 14, 15, 9, 26, 535897000, time.FixedZone("UTC+1", 3600))

// RunStoreTests checks every clause of the transcribe.Store contract.
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
func RunStoreTests(t *testing.T, newStore func(t *testing.T) transcribe.Store) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s transcribe.Store)
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
		{"ClaimJobExpiredLease", testClaimJobExpiredLease},
		{"ClaimJobRequeued", testClaimJobRequeued},
		{"ClaimJobConcurrent", testClaimJobConcurrent},
		{"ClaimJobReclaimRace", testClaimJobReclaimRace},
		{"ExtendLease", testExtendLease},
		{"ClaimsCounted", testClaimsCounted},
		{"WebhookStatus", testWebhookStatus},
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
func rec(id, p string, i int) *transcribe.Record {
	return &transcribe.Record{
		ID:        id,
		ProjectID: p,
		Status:    transcribe.StatusQueued,
		Created:   base.Add(time.Duration(i) * time.Second),
		Summary:   []byte("summary:" + id),
		Data:      []byte("sealed:" + id),
	}
}

func mustCreate(t *testing.T, s transcribe.Store, rs ...*transcribe.Record) {
	t.Helper()
	for _, r := range rs {
		if err := s.Create(t.Context(), r); err != nil {
			t.Fatalf("Create(%s): %v", r.ID, err)
		}
	}
}

func mustGet(t *testing.T, s transcribe.Store, id string) *transcribe.Record {
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

func mustUpdate(t *testing.T, s transcribe.Store, r *transcribe.Record) {
	t.Helper()
	if err := s.Update(t.Context(), r); err != nil {
		t.Fatalf("Update(%s): %v", r.ID, err)
	}
}

// diffRecord describes how got differs from want, ignoring Seq when
// want.Seq is 0. Times are compared with Equal.
func diffRecord(got, want *transcribe.Record) string {
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

func ids(rs []*transcribe.Record) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

func testCreateGet(t *testing.T, s transcribe.Store) {
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

func testCreateExists(t *testing.T, s transcribe.Store) {
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

func testSeqIncreasing(t *testing.T, s transcribe.Store) {
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
func testCreateConcurrent(t *testing.T, s transcribe.Store) {
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
	recs, err := s.List(t.Context(), transcribe.ListQuery{ProjectID: "p"})
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

func testGetNotFound(t *testing.T, s transcribe.Store) {
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

func testCopies(t *testing.T, s transcribe.Store) {
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
	recs, err := s.List(t.Context(), transcribe.ListQuery{ProjectID: "p1"})
	if err != nil || len(recs) != 1 {
		t.Fatalf("List: %d records, err %v", len(recs), err)
	}
	recs[0].Summary[0] = 'W'
	if got := mustGet(t, s, "c"); string(got.Summary) != "summary:c" {
		t.Fatalf("changing a record returned by List changed the store: Summary %q", got.Summary)
	}
}

func testDataRoundTrip(t *testing.T, s transcribe.Store) {
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

func testUpdate(t *testing.T, s transcribe.Store) {
	r := rec("u", "p1", 0)
	mustCreate(t, s, r)
	seq := r.Seq
	if err := s.SetWebhookStatus(t.Context(), "u", 503); err != nil {
		t.Fatal(err)
	}
	upd := &transcribe.Record{
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
	upd2 := &transcribe.Record{ID: "u", ProjectID: "p1", Status: transcribe.StatusQueued, Data: []byte("x"), Summary: []byte("y")}
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

func testUpdateNotFound(t *testing.T, s transcribe.Store) {
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

func testUpdateLease(t *testing.T, s transcribe.Store) {
	ctx := t.Context()
	mustCreate(t, s, rec("j", "p1", 0))
	claimed, err := s.ClaimJob(ctx, transcribe.Claim{Owner: "w1", Now: base, Lease: time.Minute})
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

func mustList(t *testing.T, s transcribe.Store, q transcribe.ListQuery) []string {
	t.Helper()
	recs, err := s.List(t.Context(), q)
	if err != nil {
		t.Fatalf("List(%+v): %v", q, err)
	}
	for _, r := range recs {
		if r == nil {
			t.Fatalf("List(%+v) returned a nil record", q)
		}
	}
	return ids(recs)
}

func wantList(t *testing.T, s transcribe.Store, q transcribe.ListQuery, want ...string) {
	t.Helper()
	got := mustList(t, s, q)
	if want == nil {
		want = []string{}
	}
	if !slices.Equal(got, want) {
		t.Errorf("List(%+v) = %v, want %v", q, got, want)
	}
}

func testListProjects(t *testing.T, s transcribe.Store) {
	mustCreate(t, s, rec("a1", "A", 0), rec("b1", "B", 1), rec("a2", "A", 2), rec("b2", "B", 3), rec("c1", "C", 4))
	wantList(t, s, transcribe.ListQuery{ProjectID: "A"}, "a2", "a1")
	wantList(t, s, transcribe.ListQuery{ProjectID: "B"}, "b2", "b1")
	wantList(t, s, transcribe.ListQuery{ProjectID: "C", Limit: 10}, "c1")
	wantList(t, s, transcribe.ListQuery{ProjectID: "D"})
	wantList(t, s, transcribe.ListQuery{ProjectID: "a"}) // ids and projects are case-sensitive
	// The fields of listed records are complete.
	recs, err := s.List(t.Context(), transcribe.ListQuery{ProjectID: "B", Limit: 1})
	if err != nil || len(recs) != 1 {
		t.Fatalf("List: %v %v", recs, err)
	}
	want := rec("b2", "B", 3)
	want.Seq = mustGet(t, s, "b2").Seq
	want.Data = nil // List leaves Data out
	if d := diffRecord(recs[0], want); d != "" {
		t.Errorf("listed record: %s", d)
	}
}

func testListOrderLimit(t *testing.T, s transcribe.Store) {
	// Created times out of Seq order: List orders by Seq, not Created.
	var want []string
	for i := range 12 {
		id := fmt.Sprintf("r%02d", i)
		mustCreate(t, s, rec(id, "p", (i*7)%12))
		want = append([]string{id}, want...)
	}
	wantList(t, s, transcribe.ListQuery{ProjectID: "p"}, want...)
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", Limit: 0}, want...)
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", Limit: 1}, want[:1]...)
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", Limit: 5}, want[:5]...)
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", Limit: 12}, want...)
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", Limit: 200}, want...)
}

func testListStatus(t *testing.T, s transcribe.Store) {
	statuses := transcribe.Statuses()
	byStatus := map[transcribe.Status][]string{}
	for i := range 16 {
		r := rec(fmt.Sprintf("r%02d", i), "p", i)
		r.Status = statuses[i%len(statuses)]
		mustCreate(t, s, r)
		byStatus[r.Status] = append([]string{r.ID}, byStatus[r.Status]...)
	}
	for _, st := range statuses {
		wantList(t, s, transcribe.ListQuery{ProjectID: "p", Status: st}, byStatus[st]...)
		wantList(t, s, transcribe.ListQuery{ProjectID: "p", Status: st, Limit: 2}, byStatus[st][:2]...)
	}
	// The status that counts is the current one.
	r := mustGet(t, s, "r00")
	r.Status = transcribe.StatusError
	mustUpdate(t, s, r)
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", Status: transcribe.StatusQueued}, byStatus[transcribe.StatusQueued][:3]...)
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", Status: transcribe.StatusError}, append(byStatus[transcribe.StatusError], "r00")...)
}

func testListCreated(t *testing.T, s transcribe.Store) {
	// r0..r9 created one second apart; a sub-second offset checks precision.
	for i := range 10 {
		mustCreate(t, s, rec(fmt.Sprintf("r%d", i), "p", i))
	}
	at := func(i int) time.Time { return base.Add(time.Duration(i) * time.Second) }
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", CreatedFrom: at(7)}, "r9", "r8", "r7")
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", CreatedFrom: at(7).Add(time.Microsecond)}, "r9", "r8")
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", CreatedFrom: at(7).Add(-time.Microsecond)}, "r9", "r8", "r7")
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", CreatedBefore: at(2)}, "r1", "r0")
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", CreatedBefore: at(2).Add(time.Microsecond)}, "r2", "r1", "r0")
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", CreatedFrom: at(3), CreatedBefore: at(6)}, "r5", "r4", "r3")
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", CreatedFrom: at(3), CreatedBefore: at(6), Limit: 2}, "r5", "r4")
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", CreatedFrom: at(6), CreatedBefore: at(6)})
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", CreatedFrom: at(20)})
	// The same instants in another zone select the same records.
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", CreatedFrom: at(8).UTC(), CreatedBefore: at(9).In(time.FixedZone("UTC-7", -7*3600))}, "r8")
}

func testListCursors(t *testing.T, s transcribe.Store) {
	for i := range 10 {
		mustCreate(t, s, rec(fmt.Sprintf("r%d", i), "p", i))
		mustCreate(t, s, rec(fmt.Sprintf("x%d", i), "other", i)) // interleaved records of another project
	}
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", BeforeID: "r4"}, "r3", "r2", "r1", "r0")
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", BeforeID: "r4", Limit: 2}, "r3", "r2")
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", BeforeID: "r0"})
	// AfterID: the oldest records newer than AfterID, returned newest first.
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", AfterID: "r5"}, "r9", "r8", "r7", "r6")
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", AfterID: "r2", Limit: 3}, "r5", "r4", "r3")
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", AfterID: "r2", Limit: 1}, "r3")
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", AfterID: "r9"})
	// Both bounds.
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", AfterID: "r2", BeforeID: "r6"}, "r5", "r4", "r3")
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", AfterID: "r2", BeforeID: "r6", Limit: 2}, "r4", "r3")
	// Combined with a status filter: pages skip non-matching records, and a
	// cursor need not match the filter itself.
	for _, i := range []int{3, 4, 8} {
		r := mustGet(t, s, fmt.Sprintf("r%d", i))
		r.Status = transcribe.StatusCompleted
		mustUpdate(t, s, r)
	}
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", Status: transcribe.StatusCompleted, AfterID: "r3", Limit: 1}, "r4")
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", Status: transcribe.StatusCompleted, BeforeID: "r8", Limit: 1}, "r4")
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", Status: transcribe.StatusQueued, AfterID: "r2", Limit: 3}, "r7", "r6", "r5")
	// A deleted record is still a valid cursor.
	r := mustGet(t, s, "r6")
	r.Deleted = true
	mustUpdate(t, s, r)
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", BeforeID: "r6", Limit: 2}, "r5", "r4")
	// A cursor that is not one of the project's records: ErrNotFound.
	for _, q := range []transcribe.ListQuery{
		{ProjectID: "p", BeforeID: "x4"}, {ProjectID: "p", AfterID: "x4"}, {ProjectID: "p", BeforeID: "missing"},
		{ProjectID: "p", AfterID: "missing", Limit: 3}, {ProjectID: "other", BeforeID: "r1"},
	} {
		if recs, err := s.List(t.Context(), q); !errors.Is(err, transcribe.ErrNotFound) {
			t.Errorf("List(%+v) = %v, %v; want ErrNotFound", q, ids(recs), err)
		}
	}
}

func testListDeleted(t *testing.T, s transcribe.Store) {
	for i := range 6 {
		mustCreate(t, s, rec(fmt.Sprintf("r%d", i), "p", i))
	}
	for _, id := range []string{"r1", "r4"} {
		r := mustGet(t, s, id)
		r.Deleted = true
		mustUpdate(t, s, r)
	}
	wantList(t, s, transcribe.ListQuery{ProjectID: "p"}, "r5", "r3", "r2", "r0")
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", Limit: 2}, "r5", "r3")
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", IncludeDeleted: true}, "r5", "r4", "r3", "r2", "r1", "r0")
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", IncludeDeleted: true, Limit: 2}, "r5", "r4")
	recs, err := s.List(t.Context(), transcribe.ListQuery{ProjectID: "p", IncludeDeleted: true, Limit: 2})
	if err != nil || len(recs) != 2 || !recs[1].Deleted || recs[0].Deleted {
		t.Errorf("Deleted flags of listed records wrong: %v", err)
	}
}

func testListEmpty(t *testing.T, s transcribe.Store) {
	wantList(t, s, transcribe.ListQuery{ProjectID: "p"})
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", Limit: 10, Status: transcribe.StatusCompleted})
}

// testListNoData: List leaves Data out (nil) but fills every other field,
// Summary included, whatever Data holds.
func testListNoData(t *testing.T, s transcribe.Store) {
	big := rec("big", "p", 0)
	big.Data = make([]byte, 1<<20)
	mustCreate(t, s, big)
	if err := s.SetWebhookStatus(t.Context(), "big", 500); err != nil {
		t.Fatal(err)
	}
	recs, err := s.List(t.Context(), transcribe.ListQuery{ProjectID: "p"})
	if err != nil || len(recs) != 1 {
		t.Fatalf("List = %v, %v", ids(recs), err)
	}
	if recs[0].Data != nil {
		t.Errorf("List returned %d bytes of Data, want nil", len(recs[0].Data))
	}
	want := rec("big", "p", 0)
	want.Seq, want.Data, want.WebhookStatus = big.Seq, nil, 500
	if d := diffRecord(recs[0], want); d != "" {
		t.Errorf("listed record: %s", d)
	}
}

func mustClaim(t *testing.T, s transcribe.Store, owner string, now time.Time, lease time.Duration) *transcribe.Record {
	t.Helper()
	r, err := s.ClaimJob(t.Context(), transcribe.Claim{Owner: owner, Now: now, Lease: lease})
	if err != nil {
		t.Fatalf("ClaimJob(%s, %v): %v", owner, now, err)
	}
	if r == nil {
		t.Fatalf("ClaimJob returned nil, nil")
	}
	return r
}

func wantNoJob(t *testing.T, s transcribe.Store, owner string, now time.Time) {
	t.Helper()
	r, err := s.ClaimJob(t.Context(), transcribe.Claim{Owner: owner, Now: now, Lease: time.Minute})
	if !errors.Is(err, transcribe.ErrNoJob) {
		id := ""
		if r != nil {
			id = r.ID
		}
		t.Fatalf("ClaimJob(%s, %v) = %q, %v; want ErrNoJob", owner, now, id, err)
	}
}

func testClaimJobOrder(t *testing.T, s transcribe.Store) {
	wantNoJob(t, s, "w", base)
	// Created times disagree with creation order: "oldest" is the lowest Seq.
	created := []*transcribe.Record{rec("j1", "p1", 5), rec("j2", "p2", 3), rec("j3", "p1", 4)}
	mustCreate(t, s, created...)
	now := base.Add(time.Hour)
	for _, c := range created {
		id := c.ID
		got := mustClaim(t, s, "w", now, 30*time.Second)
		want := *c
		want.Status, want.LeaseOwner, want.LeaseUntil, want.Claims = transcribe.StatusProcessing, "w", now.Add(30*time.Second), 1
		if got.ID != id {
			t.Fatalf("ClaimJob returned %s, want %s (oldest first)", got.ID, id)
		}
		if d := diffRecord(got, &want); d != "" {
			t.Errorf("claimed record: %s", d)
		}
		if d := diffRecord(mustGet(t, s, id), got); d != "" {
			t.Errorf("Get after ClaimJob differs from the claimed record: %s", d)
		}
	}
	wantNoJob(t, s, "w", now)
}

func testClaimJobSkips(t *testing.T, s transcribe.Store) {
	mk := func(id string, st transcribe.Status, deleted bool, owner string, until time.Time) {
		r := rec(id, "p", 0)
		r.Status, r.Deleted, r.LeaseOwner, r.LeaseUntil = st, deleted, owner, until
		mustCreate(t, s, r)
	}
	now := base.Add(time.Hour)
	mk("completed", transcribe.StatusCompleted, false, "w0", now.Add(-time.Hour))
	mk("error", transcribe.StatusError, false, "", time.Time{})
	mk("deleted-queued", transcribe.StatusQueued, true, "", time.Time{})
	mk("deleted-expired", transcribe.StatusProcessing, true, "w0", now.Add(-time.Hour))
	mk("live", transcribe.StatusProcessing, false, "w0", now.Add(time.Minute))
	mk("until-now", transcribe.StatusProcessing, false, "w0", now) // LeaseUntil not before now
	wantNoJob(t, s, "w1", now)
	for _, id := range []string{"completed", "error", "deleted-queued", "deleted-expired", "live", "until-now"} {
		if r := mustGet(t, s, id); r.LeaseOwner == "w1" {
			t.Errorf("failed ClaimJob leased %s to w1", id)
		}
	}
	// A millisecond later until-now has expired.
	if got := mustClaim(t, s, "w1", now.Add(time.Millisecond), time.Minute); got.ID != "until-now" {
		t.Errorf("ClaimJob after the lease ran out returned %s, want until-now", got.ID)
	}
	mk("queued", transcribe.StatusQueued, false, "", time.Time{})
	if got := mustClaim(t, s, "w1", now, time.Minute); got.ID != "queued" {
		t.Errorf("ClaimJob returned %s, want queued", got.ID)
	}
	wantNoJob(t, s, "w1", now)
}

func testClaimJobExpiredLease(t *testing.T, s transcribe.Store) {
	ctx := t.Context()
	mustCreate(t, s, rec("j", "p", 0))
	first := mustClaim(t, s, "w1", base, time.Minute)
	wantNoJob(t, s, "w2", base.Add(30*time.Second))
	wantNoJob(t, s, "w2", base.Add(time.Minute))
	second := mustClaim(t, s, "w2", base.Add(2*time.Minute), time.Minute)
	if second.ID != "j" || second.LeaseOwner != "w2" || !second.LeaseUntil.Equal(base.Add(3*time.Minute)) || second.Status != transcribe.StatusProcessing {
		t.Fatalf("reclaimed record: %+v", second)
	}
	// The first worker has lost the job.
	first.Status = transcribe.StatusCompleted
	if err := s.Update(ctx, first); !errors.Is(err, transcribe.ErrLeaseLost) {
		t.Errorf("Update by the worker whose lease expired and was taken: err = %v, want ErrLeaseLost", err)
	}
	if err := s.ExtendLease(ctx, transcribe.Lease{ID: "j", Owner: "w1", Until: base.Add(time.Hour)}); !errors.Is(err, transcribe.ErrLeaseLost) {
		t.Errorf("ExtendLease by the worker whose lease was taken: err = %v, want ErrLeaseLost", err)
	}
	if got := mustGet(t, s, "j"); got.LeaseOwner != "w2" || got.Status != transcribe.StatusProcessing || !got.LeaseUntil.Equal(base.Add(3*time.Minute)) {
		t.Errorf("record after rejected calls: %+v", got)
	}
	// The same owner may reclaim its own expired job.
	again := mustClaim(t, s, "w2", base.Add(time.Hour), time.Minute)
	if again.ID != "j" || again.LeaseOwner != "w2" {
		t.Errorf("reclaim by the same owner: %+v", again)
	}
	// The owner finishes it; finished jobs are not claimed again.
	again.Status, again.LeaseUntil = transcribe.StatusCompleted, time.Time{}
	mustUpdate(t, s, again)
	wantNoJob(t, s, "w3", base.Add(1000*time.Hour))
	// A longer lease is honoured.
	mustCreate(t, s, rec("k", "p", 1))
	if got := mustClaim(t, s, "w3", base.Add(2*time.Hour), 24*time.Hour); got.ID != "k" {
		t.Fatalf("ClaimJob returned %s, want k", got.ID)
	}
	wantNoJob(t, s, "w4", base.Add(2*time.Hour+23*time.Hour))
}

func testClaimJobRequeued(t *testing.T, s transcribe.Store) {
	mustCreate(t, s, rec("j", "p", 0))
	got := mustClaim(t, s, "w1", base, time.Hour)
	// An adapter does what Update says, whatever the status change (the
	// Service's own state machine decides which changes it makes).
	got.Status, got.LeaseOwner, got.LeaseUntil = transcribe.StatusQueued, "", time.Time{}
	mustUpdate(t, s, got)
	again := mustClaim(t, s, "w2", base.Add(time.Second), time.Hour)
	if again.ID != "j" || again.LeaseOwner != "w2" {
		t.Errorf("requeued job claimed as %+v", again)
	}
	// A queued record is claimable whatever lease fields it carries.
	r := rec("q", "p", 1)
	r.LeaseOwner, r.LeaseUntil = "old", base.Add(48*time.Hour)
	mustCreate(t, s, r)
	if got := mustClaim(t, s, "w3", base.Add(time.Second), time.Minute); got.ID != "q" || got.LeaseOwner != "w3" {
		t.Errorf("queued record with stale lease fields claimed as %+v", got)
	}
}

func testClaimJobConcurrent(t *testing.T, s transcribe.Store) {
	const jobs, workers = 60, 8
	for i := range jobs {
		mustCreate(t, s, rec(fmt.Sprintf("j%03d", i), fmt.Sprintf("p%d", i%3), i))
	}
	var (
		mu      sync.Mutex
		claimed = map[string]string{}
		wg      sync.WaitGroup
		start   = make(chan struct{})
	)
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			owner := fmt.Sprintf("w%d", w)
			<-start
			for {
				r, err := s.ClaimJob(context.Background(), transcribe.Claim{Owner: owner, Now: base, Lease: time.Hour})
				if errors.Is(err, transcribe.ErrNoJob) {
					return
				}
				if err != nil {
					errs <- fmt.Errorf("%s: ClaimJob: %w", owner, err)
					return
				}
				mu.Lock()
				prev, dup := claimed[r.ID]
				claimed[r.ID] = owner
				mu.Unlock()
				if dup {
					errs <- fmt.Errorf("job %s claimed by %s and again by %s", r.ID, prev, owner)
					return
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if len(claimed) != jobs {
		t.Errorf("%d of %d jobs claimed", len(claimed), jobs)
	}
	for id, owner := range claimed {
		if r := mustGet(t, s, id); r.LeaseOwner != owner || r.Status != transcribe.StatusProcessing {
			t.Errorf("job %s: stored owner %q status %s, claimed by %s", id, r.LeaseOwner, r.Status, owner)
		}
	}
}

// testClaimJobReclaimRace: when a lease runs out, workers race to take the
// job over; exactly one wins each round.
func testClaimJobReclaimRace(t *testing.T, s transcribe.Store) {
	const rounds, workers = 12, 6
	mustCreate(t, s, rec("j", "p", 0))
	mustClaim(t, s, "w-start", base, time.Minute)
	for round := range rounds {
		now := base.Add(time.Duration(round+1) * 2 * time.Minute) // the last lease has run out
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			winners []string
		)
		start := make(chan struct{})
		for w := range workers {
			owner := fmt.Sprintf("r%d-w%d", round, w)
			wg.Go(func() {
				<-start
				r, err := s.ClaimJob(context.Background(), transcribe.Claim{Owner: owner, Now: now, Lease: time.Minute})
				if errors.Is(err, transcribe.ErrNoJob) {
					return
				}
				if err != nil {
					t.Errorf("ClaimJob: %v", err)
					return
				}
				mu.Lock()
				winners = append(winners, owner+"/"+r.ID)
				mu.Unlock()
			})
		}
		close(start)
		wg.Wait()
		if len(winners) != 1 {
			t.Fatalf("round %d: %d workers took over the expired job: %v", round, len(winners), winners)
		}
		if got := mustGet(t, s, "j"); got.LeaseOwner+"/j" != winners[0] || !got.LeaseUntil.Equal(now.Add(time.Minute)) {
			t.Fatalf("round %d: stored lease %q until %v, winner %s", round, got.LeaseOwner, got.LeaseUntil, winners[0])
		}
	}
}

func testExtendLease(t *testing.T, s transcribe.Store) {
	ctx := t.Context()
	mustCreate(t, s, rec("j", "p", 0), rec("other", "p", 1))
	if got := mustClaim(t, s, "w1", base, time.Minute); got.ID != "j" {
		t.Fatalf("ClaimJob returned %s, want j", got.ID)
	}
	mustClaim(t, s, "w9", base, time.Hour) // other
	until := base.Add(5 * time.Minute)
	if err := s.ExtendLease(ctx, transcribe.Lease{ID: "j", Owner: "w1", Until: until}); err != nil {
		t.Fatalf("ExtendLease by owner: %v", err)
	}
	got := mustGet(t, s, "j")
	if !got.LeaseUntil.Equal(until) || got.LeaseOwner != "w1" || got.Status != transcribe.StatusProcessing || string(got.Data) != "sealed:j" {
		t.Fatalf("after ExtendLease: %+v", got)
	}
	// The extended lease holds against claims.
	wantNoJob(t, s, "w2", base.Add(4*time.Minute))
	if err := s.ExtendLease(ctx, transcribe.Lease{ID: "j", Owner: "w2", Until: base.Add(time.Hour)}); !errors.Is(err, transcribe.ErrLeaseLost) {
		t.Errorf("ExtendLease by non-owner: err = %v, want ErrLeaseLost", err)
	}
	if err := s.ExtendLease(ctx, transcribe.Lease{ID: "j", Owner: "", Until: base.Add(time.Hour)}); !errors.Is(err, transcribe.ErrLeaseLost) {
		t.Errorf("ExtendLease with an empty owner: err = %v, want ErrLeaseLost", err)
	}
	if got := mustGet(t, s, "j"); !got.LeaseUntil.Equal(until) || got.LeaseOwner != "w1" {
		t.Errorf("rejected ExtendLease changed the lease: %q %v", got.LeaseOwner, got.LeaseUntil)
	}
	// A record leased to someone else cannot be extended.
	if err := s.ExtendLease(ctx, transcribe.Lease{ID: "other", Owner: "w1", Until: base.Add(time.Hour)}); !errors.Is(err, transcribe.ErrLeaseLost) {
		t.Errorf("ExtendLease of a record leased to w9 by w1: err = %v, want ErrLeaseLost", err)
	}
	// After the lease is cleared (deletion), the owner has lost it.
	r := mustGet(t, s, "j")
	r.LeaseOwner, r.LeaseUntil, r.Deleted = "", time.Time{}, true
	mustUpdate(t, s, r)
	if err := s.ExtendLease(ctx, transcribe.Lease{ID: "j", Owner: "w1", Until: base.Add(time.Hour)}); !errors.Is(err, transcribe.ErrLeaseLost) {
		t.Errorf("ExtendLease after the lease was cleared: err = %v, want ErrLeaseLost", err)
	}
	// An absent record: ErrNotFound or ErrLeaseLost.
	if err := s.ExtendLease(ctx, transcribe.Lease{ID: "missing", Owner: "w1", Until: base}); !errors.Is(err, transcribe.ErrNotFound) && !errors.Is(err, transcribe.ErrLeaseLost) {
		t.Errorf("ExtendLease of an absent record: err = %v, want ErrNotFound or ErrLeaseLost", err)
	}
}

// testClaimsCounted: ClaimJob counts the claims of a record, and Update
// never changes the count.
func testClaimsCounted(t *testing.T, s transcribe.Store) {
	mustCreate(t, s, rec("j", "p", 0))
	for i := 1; i <= 3; i++ {
		got := mustClaim(t, s, fmt.Sprintf("w%d", i), base.Add(time.Duration(i)*time.Hour), time.Minute)
		if got.Claims != i {
			t.Fatalf("claim %d: Claims = %d", i, got.Claims)
		}
		got.Data = []byte(fmt.Sprintf("attempt %d", i))
		got.Claims = 100
		mustUpdate(t, s, got)
		if r := mustGet(t, s, "j"); r.Claims != i || string(r.Data) != fmt.Sprintf("attempt %d", i) {
			t.Fatalf("after claim %d and Update: Claims = %d, Data %q", i, r.Claims, r.Data)
		}
	}
}

// testWebhookStatus: SetWebhookStatus changes only WebhookStatus, without
// a lease check, even while a worker holds the record; ErrNotFound for an
// absent record.
func testWebhookStatus(t *testing.T, s transcribe.Store) {
	ctx := t.Context()
	mustCreate(t, s, rec("j", "p", 0), rec("k", "p", 1))
	claimed := mustClaim(t, s, "w1", base, time.Minute)
	if err := s.SetWebhookStatus(ctx, "j", 404); err != nil {
		t.Fatalf("SetWebhookStatus: %v", err)
	}
	want := *claimed
	want.WebhookStatus = 404
	if d := diffRecord(mustGet(t, s, "j"), &want); d != "" {
		t.Errorf("after SetWebhookStatus: %s", d)
	}
	// The worker's Update keeps the status code.
	claimed.Status = transcribe.StatusCompleted
	mustUpdate(t, s, claimed)
	if got := mustGet(t, s, "j"); got.WebhookStatus != 404 || got.Status != transcribe.StatusCompleted {
		t.Errorf("Update lost the webhook status: %d %s", got.WebhookStatus, got.Status)
	}
	if err := s.SetWebhookStatus(ctx, "j", 200); err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, s, "j"); got.WebhookStatus != 200 {
		t.Errorf("WebhookStatus = %d, want 200", got.WebhookStatus)
	}
	if got := mustGet(t, s, "k"); got.WebhookStatus != 0 {
		t.Errorf("SetWebhookStatus(j) changed k: %d", got.WebhookStatus)
	}
	if err := s.SetWebhookStatus(ctx, "missing", 200); !errors.Is(err, transcribe.ErrNotFound) {
		t.Errorf("SetWebhookStatus of an absent record: %v, want ErrNotFound", err)
	}
}
