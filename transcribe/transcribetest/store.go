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
// or the argument of Create does not change the stored one), CreateUpload of
// a taken id returns ErrExists, and an empty Data may come back as nil.
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
		{"ListSeq", testListSeq},
		{"ListDeleted", testListDeleted},
		{"ListEmpty", testListEmpty},
		{"SeqOf", testSeqOf},
		{"ClaimJobOrder", testClaimJobOrder},
		{"ClaimJobSkips", testClaimJobSkips},
		{"ClaimJobExpiredLease", testClaimJobExpiredLease},
		{"ClaimJobRequeued", testClaimJobRequeued},
		{"ClaimJobConcurrent", testClaimJobConcurrent},
		{"ClaimJobReclaimRace", testClaimJobReclaimRace},
		{"ExtendLease", testExtendLease},
		{"Uploads", testUploads},
		{"AttachUpload", testAttachUpload},
		{"ExpiredUploads", testExpiredUploads},
		{"Deliveries", testDeliveries},
		{"DeliveryClaimOrder", testDeliveryClaimOrder},
		{"DeliveryLease", testDeliveryLease},
		{"DeliveryConcurrent", testDeliveryConcurrent},
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
	recs[0].Data[0] = 'W'
	if got := mustGet(t, s, "c"); string(got.Data) != "updated" {
		t.Fatalf("changing a record returned by List changed the store: Data %q", got.Data)
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
	upd := &transcribe.Record{
		ID:         "u",
		ProjectID:  "p1",
		Status:     transcribe.StatusCompleted,
		Deleted:    true,
		Created:    base.Add(time.Hour), // ignored
		Completed:  base.Add(2 * time.Minute),
		Seq:        seq + 1000, // ignored
		LeaseOwner: "",
		LeaseUntil: base.Add(3 * time.Minute),
		Data:       []byte("new content"),
	}
	mustUpdate(t, s, upd)
	want := *upd
	want.Created, want.Seq = base, seq
	if d := diffRecord(mustGet(t, s, "u"), &want); d != "" {
		t.Errorf("Get after Update: %s (Update must replace all fields but Seq and Created)", d)
	}
	// Back to zero times and not deleted.
	upd2 := &transcribe.Record{ID: "u", ProjectID: "p1", Status: transcribe.StatusQueued, Data: []byte("x")}
	mustUpdate(t, s, upd2)
	want2 := *upd2
	want2.Created, want2.Seq = base, seq
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
	claimed, err := s.ClaimJob(ctx, "w1", base, time.Minute)
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

func testListSeq(t *testing.T, s transcribe.Store) {
	var seq []int64
	for i := range 10 {
		r := rec(fmt.Sprintf("r%d", i), "p", i)
		mustCreate(t, s, r)
		seq = append(seq, r.Seq)
		mustCreate(t, s, rec(fmt.Sprintf("x%d", i), "other", i)) // interleaved Seqs of another project
	}
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", BeforeSeq: seq[4]}, "r3", "r2", "r1", "r0")
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", BeforeSeq: seq[4], Limit: 2}, "r3", "r2")
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", BeforeSeq: seq[0]})
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", BeforeSeq: seq[9] + 1000}, "r9", "r8", "r7", "r6", "r5", "r4", "r3", "r2", "r1", "r0")
	// AfterSeq: the oldest records newer than AfterSeq, returned newest first.
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", AfterSeq: seq[5]}, "r9", "r8", "r7", "r6")
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", AfterSeq: seq[2], Limit: 3}, "r5", "r4", "r3")
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", AfterSeq: seq[2], Limit: 1}, "r3")
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", AfterSeq: seq[9]})
	// Both bounds.
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", AfterSeq: seq[2], BeforeSeq: seq[6]}, "r5", "r4", "r3")
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", AfterSeq: seq[2], BeforeSeq: seq[6], Limit: 2}, "r4", "r3")
	// Combined with a status filter: pages skip non-matching records.
	for _, i := range []int{3, 4, 8} {
		r := mustGet(t, s, fmt.Sprintf("r%d", i))
		r.Status = transcribe.StatusCompleted
		mustUpdate(t, s, r)
	}
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", Status: transcribe.StatusCompleted, AfterSeq: seq[3], Limit: 1}, "r4")
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", Status: transcribe.StatusCompleted, BeforeSeq: seq[8], Limit: 1}, "r4")
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", Status: transcribe.StatusQueued, AfterSeq: seq[2], Limit: 3}, "r7", "r6", "r5")
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
	wantList(t, s, transcribe.ListQuery{ProjectID: "p", Limit: 10, Status: transcribe.StatusCompleted, BeforeSeq: 5, AfterSeq: 1})
}

func testSeqOf(t *testing.T, s transcribe.Store) {
	a, b := rec("a", "p1", 0), rec("b", "p2", 1)
	mustCreate(t, s, a, b)
	for _, r := range []*transcribe.Record{a, b} {
		got, err := s.SeqOf(t.Context(), r.ProjectID, r.ID)
		if err != nil || got != r.Seq {
			t.Errorf("SeqOf(%s, %s) = %d, %v; want %d", r.ProjectID, r.ID, got, err, r.Seq)
		}
	}
	for _, c := range [][2]string{{"p2", "a"}, {"p1", "b"}, {"p1", "missing"}, {"", "a"}} {
		if _, err := s.SeqOf(t.Context(), c[0], c[1]); !errors.Is(err, transcribe.ErrNotFound) {
			t.Errorf("SeqOf(%q, %q): err = %v, want ErrNotFound", c[0], c[1], err)
		}
	}
}

func mustClaim(t *testing.T, s transcribe.Store, owner string, now time.Time, lease time.Duration) *transcribe.Record {
	t.Helper()
	r, err := s.ClaimJob(t.Context(), owner, now, lease)
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
	r, err := s.ClaimJob(t.Context(), owner, now, time.Minute)
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
		want.Status, want.LeaseOwner, want.LeaseUntil = transcribe.StatusProcessing, "w", now.Add(30*time.Second)
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
	if err := s.ExtendLease(ctx, "j", "w1", base.Add(time.Hour)); !errors.Is(err, transcribe.ErrLeaseLost) {
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
	// The worker hands the job back (crash recovery path).
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
				r, err := s.ClaimJob(context.Background(), owner, base, time.Hour)
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
				r, err := s.ClaimJob(context.Background(), owner, now, time.Minute)
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
	if err := s.ExtendLease(ctx, "j", "w1", until); err != nil {
		t.Fatalf("ExtendLease by owner: %v", err)
	}
	got := mustGet(t, s, "j")
	if !got.LeaseUntil.Equal(until) || got.LeaseOwner != "w1" || got.Status != transcribe.StatusProcessing || string(got.Data) != "sealed:j" {
		t.Fatalf("after ExtendLease: %+v", got)
	}
	// The extended lease holds against claims.
	wantNoJob(t, s, "w2", base.Add(4*time.Minute))
	if err := s.ExtendLease(ctx, "j", "w2", base.Add(time.Hour)); !errors.Is(err, transcribe.ErrLeaseLost) {
		t.Errorf("ExtendLease by non-owner: err = %v, want ErrLeaseLost", err)
	}
	if err := s.ExtendLease(ctx, "j", "", base.Add(time.Hour)); !errors.Is(err, transcribe.ErrLeaseLost) {
		t.Errorf("ExtendLease with an empty owner: err = %v, want ErrLeaseLost", err)
	}
	if got := mustGet(t, s, "j"); !got.LeaseUntil.Equal(until) || got.LeaseOwner != "w1" {
		t.Errorf("rejected ExtendLease changed the lease: %q %v", got.LeaseOwner, got.LeaseUntil)
	}
	// A record leased to someone else cannot be extended.
	if err := s.ExtendLease(ctx, "other", "w1", base.Add(time.Hour)); !errors.Is(err, transcribe.ErrLeaseLost) {
		t.Errorf("ExtendLease of a record leased to w9 by w1: err = %v, want ErrLeaseLost", err)
	}
	// After the lease is cleared (deletion), the owner has lost it.
	r := mustGet(t, s, "j")
	r.LeaseOwner, r.LeaseUntil, r.Deleted = "", time.Time{}, true
	mustUpdate(t, s, r)
	if err := s.ExtendLease(ctx, "j", "w1", base.Add(time.Hour)); !errors.Is(err, transcribe.ErrLeaseLost) {
		t.Errorf("ExtendLease after the lease was cleared: err = %v, want ErrLeaseLost", err)
	}
	// An absent record: ErrNotFound or ErrLeaseLost.
	if err := s.ExtendLease(ctx, "missing", "w1", base); !errors.Is(err, transcribe.ErrNotFound) && !errors.Is(err, transcribe.ErrLeaseLost) {
		t.Errorf("ExtendLease of an absent record: err = %v, want ErrNotFound or ErrLeaseLost", err)
	}
}

func testUploads(t *testing.T, s transcribe.Store) {
	ctx := t.Context()
	if _, err := s.GetUpload(ctx, "u1"); !errors.Is(err, transcribe.ErrNotFound) {
		t.Errorf("GetUpload on empty store: err = %v, want ErrNotFound", err)
	}
	u1 := &transcribe.Upload{ID: "u1", ProjectID: "p1", Size: 5 << 30, Created: base}
	u2 := &transcribe.Upload{ID: "u2", ProjectID: "p2", Size: 1, Created: base.Add(time.Second)}
	for _, u := range []*transcribe.Upload{u1, u2} {
		if err := s.CreateUpload(ctx, u); err != nil {
			t.Fatalf("CreateUpload(%s): %v", u.ID, err)
		}
	}
	for _, want := range []*transcribe.Upload{u1, u2} {
		got, err := s.GetUpload(ctx, want.ID)
		if err != nil {
			t.Fatalf("GetUpload(%s): %v", want.ID, err)
		}
		if got.ID != want.ID || got.ProjectID != want.ProjectID || got.Size != want.Size || !got.Created.Equal(want.Created) {
			t.Errorf("GetUpload(%s) = %+v, want %+v", want.ID, got, want)
		}
	}
	if err := s.CreateUpload(ctx, &transcribe.Upload{ID: "u1", ProjectID: "p2", Size: 9, Created: base}); !errors.Is(err, transcribe.ErrExists) {
		t.Errorf("CreateUpload of a taken id: err = %v, want ErrExists", err)
	}
	if got, err := s.GetUpload(ctx, "u1"); err != nil || got.ProjectID != "p1" || got.Size != 5<<30 {
		t.Errorf("failed CreateUpload changed the upload: %+v %v", got, err)
	}
	if err := s.DeleteUpload(ctx, "u1"); err != nil {
		t.Fatalf("DeleteUpload: %v", err)
	}
	if _, err := s.GetUpload(ctx, "u1"); !errors.Is(err, transcribe.ErrNotFound) {
		t.Errorf("GetUpload after DeleteUpload: err = %v, want ErrNotFound", err)
	}
	if _, err := s.GetUpload(ctx, "u2"); err != nil {
		t.Errorf("DeleteUpload(u1) removed u2: %v", err)
	}
	for _, id := range []string{"u1", "never"} {
		if err := s.DeleteUpload(ctx, id); err != nil {
			t.Errorf("DeleteUpload of absent %s: %v, want nil", id, err)
		}
	}
	// Uploads and transcripts are separate namespaces.
	mustCreate(t, s, rec("u2", "p2", 0))
	if _, err := s.GetUpload(ctx, "u2"); err != nil {
		t.Errorf("GetUpload after a transcript with the same id was created: %v", err)
	}
	// An id may be reused after deletion.
	if err := s.CreateUpload(ctx, &transcribe.Upload{ID: "u1", ProjectID: "p3", Size: 2, Created: base}); err != nil {
		t.Errorf("CreateUpload of a deleted id: %v", err)
	}
}

func mustCreateUpload(t *testing.T, s transcribe.Store, us ...*transcribe.Upload) {
	t.Helper()
	for _, u := range us {
		if err := s.CreateUpload(t.Context(), u); err != nil {
			t.Fatalf("CreateUpload(%s): %v", u.ID, err)
		}
	}
}

func testAttachUpload(t *testing.T, s transcribe.Store) {
	ctx := t.Context()
	if err := s.AttachUpload(ctx, "missing", "t1"); !errors.Is(err, transcribe.ErrNotFound) {
		t.Errorf("AttachUpload of an absent upload: err = %v, want ErrNotFound", err)
	}
	mustCreateUpload(t, s,
		&transcribe.Upload{ID: "u1", ProjectID: "p1", Size: 3, Created: base},
		&transcribe.Upload{ID: "u2", ProjectID: "p1", Size: 4, Created: base, TranscriptID: "t0"})
	if got, err := s.GetUpload(ctx, "u2"); err != nil || got.TranscriptID != "t0" {
		t.Errorf("CreateUpload with TranscriptID t0: GetUpload = %+v, %v", got, err)
	}
	if got, err := s.GetUpload(ctx, "u1"); err != nil || got.TranscriptID != "" {
		t.Fatalf("new upload: GetUpload = %+v, %v; want empty TranscriptID", got, err)
	}
	if err := s.AttachUpload(ctx, "u1", "t1"); err != nil {
		t.Fatalf("AttachUpload: %v", err)
	}
	got, err := s.GetUpload(ctx, "u1")
	if err != nil || got.TranscriptID != "t1" || got.ProjectID != "p1" || got.Size != 3 || !got.Created.Equal(base) {
		t.Errorf("after AttachUpload(u1, t1): GetUpload = %+v, %v", got, err)
	}
	if err := s.AttachUpload(ctx, "u1", "t2"); err != nil {
		t.Fatalf("second AttachUpload: %v", err)
	}
	if got, err := s.GetUpload(ctx, "u1"); err != nil || got.TranscriptID != "t2" {
		t.Errorf("after AttachUpload(u1, t2): GetUpload = %+v, %v; want TranscriptID t2", got, err)
	}
	if got, err := s.GetUpload(ctx, "u2"); err != nil || got.TranscriptID != "t0" {
		t.Errorf("AttachUpload(u1) changed u2: %+v, %v", got, err)
	}
	if err := s.DeleteUpload(ctx, "u1"); err != nil {
		t.Fatal(err)
	}
	if err := s.AttachUpload(ctx, "u1", "t3"); !errors.Is(err, transcribe.ErrNotFound) {
		t.Errorf("AttachUpload of a deleted upload: err = %v, want ErrNotFound", err)
	}
}

func testExpiredUploads(t *testing.T, s transcribe.Store) {
	ctx := t.Context()
	expired := func(before time.Time, limit int) []string {
		t.Helper()
		us, err := s.ExpiredUploads(ctx, before, limit)
		if err != nil {
			t.Fatalf("ExpiredUploads(%v, %d): %v", before, limit, err)
		}
		out := []string{}
		for _, u := range us {
			out = append(out, u.ID)
		}
		return out
	}
	want := func(before time.Time, limit int, ids ...string) {
		t.Helper()
		if ids == nil {
			ids = []string{}
		}
		if got := expired(before, limit); !slices.Equal(got, ids) {
			t.Errorf("ExpiredUploads(base%+v, %d) = %v, want %v", before.Sub(base), limit, got, ids)
		}
	}
	want(base.Add(time.Hour), 0)
	// Created out of id order; "b" and "c" tie on Created (smaller id first).
	mustCreateUpload(t, s,
		&transcribe.Upload{ID: "d", ProjectID: "p2", Size: 1, Created: base.Add(3 * time.Second)},
		&transcribe.Upload{ID: "c", ProjectID: "p1", Size: 2, Created: base.Add(time.Second)},
		&transcribe.Upload{ID: "a", ProjectID: "p1", Size: 3, Created: base.Add(2 * time.Second)},
		&transcribe.Upload{ID: "b", ProjectID: "p2", Size: 4, Created: base.Add(time.Second)},
		&transcribe.Upload{ID: "e", ProjectID: "p1", Size: 5, Created: base},
		&transcribe.Upload{ID: "used", ProjectID: "p1", Size: 6, Created: base.Add(-time.Hour), TranscriptID: "t9"},
		&transcribe.Upload{ID: "late", ProjectID: "p1", Size: 7, Created: base.Add(time.Hour)},
	)
	want(base.Add(4*time.Second), 0, "e", "b", "c", "a", "d")
	want(base.Add(4*time.Second), -1, "e", "b", "c", "a", "d")
	// The cutoff is strict, to the microsecond.
	want(base.Add(3*time.Second), 0, "e", "b", "c", "a")
	want(base.Add(3*time.Second+time.Microsecond), 0, "e", "b", "c", "a", "d")
	want(base.Add(time.Second), 0, "e")
	want(base, 0)
	// Limit keeps the oldest.
	want(base.Add(4*time.Second), 2, "e", "b")
	want(base.Add(4*time.Second), 5, "e", "b", "c", "a", "d")
	want(base.Add(4*time.Second), 9, "e", "b", "c", "a", "d")
	want(base.Add(2*time.Hour), 0, "e", "b", "c", "a", "d", "late")
	// The returned uploads are complete.
	if us, err := s.ExpiredUploads(ctx, base.Add(2*time.Second), 1); err != nil || len(us) != 1 {
		t.Fatalf("ExpiredUploads limit 1 = %v, %v", us, err)
	} else if u := us[0]; u.ID != "e" || u.ProjectID != "p1" || u.Size != 5 || !u.Created.Equal(base) || u.TranscriptID != "" {
		t.Errorf("ExpiredUploads returned %+v, want upload e as created", u)
	}
	// Deleted and attached uploads are not returned.
	if err := s.DeleteUpload(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if err := s.AttachUpload(ctx, "a", "t1"); err != nil {
		t.Fatal(err)
	}
	want(base.Add(4*time.Second), 0, "e", "c", "d")
	want(base.Add(4*time.Second), 2, "e", "c")
	// Changing a returned upload does not change the stored one.
	us, err := s.ExpiredUploads(ctx, base.Add(time.Second), 0)
	if err != nil || len(us) != 1 {
		t.Fatalf("ExpiredUploads = %v, %v", us, err)
	}
	us[0].TranscriptID, us[0].Size = "x", 99
	if got, err := s.GetUpload(ctx, "e"); err != nil || got.TranscriptID != "" || got.Size != 5 {
		t.Errorf("changing a returned upload changed the store: %+v, %v", got, err)
	}
}

func delivery(id, transcript string, next time.Time) *transcribe.Delivery {
	return &transcribe.Delivery{ID: id, TranscriptID: transcript, NextAttempt: next, Data: []byte("sealed:" + id)}
}

func diffDelivery(got, want *transcribe.Delivery) string {
	var d []string
	add := func(field string, g, w any) { d = append(d, fmt.Sprintf("%s = %v, want %v", field, g, w)) }
	if got.ID != want.ID {
		add("ID", got.ID, want.ID)
	}
	if got.TranscriptID != want.TranscriptID {
		add("TranscriptID", got.TranscriptID, want.TranscriptID)
	}
	if got.Attempts != want.Attempts {
		add("Attempts", got.Attempts, want.Attempts)
	}
	if !got.NextAttempt.Equal(want.NextAttempt) {
		add("NextAttempt", got.NextAttempt, want.NextAttempt)
	}
	if got.Done != want.Done {
		add("Done", got.Done, want.Done)
	}
	if got.LeaseOwner != want.LeaseOwner {
		add("LeaseOwner", got.LeaseOwner, want.LeaseOwner)
	}
	if !got.LeaseUntil.Equal(want.LeaseUntil) {
		add("LeaseUntil", got.LeaseUntil, want.LeaseUntil)
	}
	if !bytes.Equal(got.Data, want.Data) {
		add("Data", fmt.Sprintf("%q", clip(got.Data)), fmt.Sprintf("%q", clip(want.Data)))
	}
	if len(d) == 0 {
		return ""
	}
	return fmt.Sprint(d)
}

func mustAddDelivery(t *testing.T, s transcribe.Store, ds ...*transcribe.Delivery) {
	t.Helper()
	for _, d := range ds {
		if err := s.AddDelivery(t.Context(), d); err != nil {
			t.Fatalf("AddDelivery(%s): %v", d.ID, err)
		}
	}
}

func mustClaimDelivery(t *testing.T, s transcribe.Store, owner string, now time.Time, lease time.Duration) *transcribe.Delivery {
	t.Helper()
	d, err := s.ClaimDelivery(t.Context(), owner, now, lease)
	if err != nil {
		t.Fatalf("ClaimDelivery(%s, %v): %v", owner, now, err)
	}
	if d == nil {
		t.Fatal("ClaimDelivery returned nil, nil")
	}
	return d
}

func wantNoDelivery(t *testing.T, s transcribe.Store, owner string, now time.Time) {
	t.Helper()
	d, err := s.ClaimDelivery(t.Context(), owner, now, time.Minute)
	if !errors.Is(err, transcribe.ErrNoJob) {
		id := ""
		if d != nil {
			id = d.ID
		}
		t.Fatalf("ClaimDelivery(%s, %v) = %q, %v; want ErrNoJob", owner, now, id, err)
	}
}

func testDeliveries(t *testing.T, s transcribe.Store) {
	ctx := t.Context()
	wantNoDelivery(t, s, "w", base)
	d := delivery("d1", "t1", base)
	d.Attempts = 2
	mustAddDelivery(t, s, d)
	dup := delivery("d1", "t9", base.Add(-time.Hour))
	if err := s.AddDelivery(ctx, dup); !errors.Is(err, transcribe.ErrExists) {
		t.Fatalf("AddDelivery of a taken id: err = %v, want ErrExists", err)
	}
	got := mustClaimDelivery(t, s, "w1", base.Add(time.Second), 30*time.Second)
	want := *d
	want.LeaseOwner, want.LeaseUntil = "w1", base.Add(31*time.Second)
	if diff := diffDelivery(got, &want); diff != "" {
		t.Fatalf("claimed delivery: %s", diff)
	}
	// Update by another owner fails and changes nothing.
	other := *got
	other.LeaseOwner, other.Done = "w2", true
	if err := s.UpdateDelivery(ctx, &other); !errors.Is(err, transcribe.ErrLeaseLost) {
		t.Fatalf("UpdateDelivery by non-owner: err = %v, want ErrLeaseLost", err)
	}
	// The owner records a failed attempt and releases the lease.
	got.Attempts, got.NextAttempt, got.Data = 3, base.Add(time.Hour), []byte("retry")
	mustUpdate := func(d *transcribe.Delivery) {
		t.Helper()
		if err := s.UpdateDelivery(ctx, d); err != nil {
			t.Fatalf("UpdateDelivery(%s): %v", d.ID, err)
		}
	}
	mustUpdate(got)
	got.LeaseOwner, got.LeaseUntil = "", time.Time{}
	mustUpdate(got) // empty owner: unconditional
	wantNoDelivery(t, s, "w2", base.Add(time.Minute))
	again := mustClaimDelivery(t, s, "w2", base.Add(time.Hour), time.Minute)
	want = *got
	want.LeaseOwner, want.LeaseUntil = "w2", base.Add(time.Hour+time.Minute)
	if diff := diffDelivery(again, &want); diff != "" {
		t.Fatalf("delivery claimed after update: %s", diff)
	}
	// Done deliveries are never claimed.
	again.Done = true
	mustUpdate(again)
	wantNoDelivery(t, s, "w3", base.Add(1000*time.Hour))
	// Absent.
	if err := s.UpdateDelivery(ctx, delivery("ghost", "t", base)); !errors.Is(err, transcribe.ErrNotFound) {
		t.Errorf("UpdateDelivery of an absent delivery: err = %v, want ErrNotFound", err)
	}
	// Deliveries and transcripts are separate namespaces.
	mustCreate(t, s, rec("d1", "p", 0))
	mustAddDelivery(t, s, delivery("t-shared", "d1", base))
	if _, err := s.Get(ctx, "t-shared"); !errors.Is(err, transcribe.ErrNotFound) {
		t.Errorf("a delivery id is visible as a transcript: %v", err)
	}
}

func testDeliveryClaimOrder(t *testing.T, s transcribe.Store) {
	now := base.Add(time.Hour)
	mustAddDelivery(t, s,
		delivery("later", "t1", now.Add(10*time.Second)),
		delivery("mid", "t2", now.Add(-5*time.Second)),
		delivery("first", "t3", now.Add(-10*time.Second)),
		delivery("exact", "t4", now),
	)
	done := delivery("done", "t5", now.Add(-time.Hour))
	done.Done = true
	mustAddDelivery(t, s, done)
	for _, id := range []string{"first", "mid", "exact"} {
		if got := mustClaimDelivery(t, s, "w", now, time.Minute); got.ID != id {
			t.Fatalf("ClaimDelivery returned %s, want %s (earliest NextAttempt first)", got.ID, id)
		}
	}
	wantNoDelivery(t, s, "w", now)                                      // "later" is not due, the rest are leased
	wantNoDelivery(t, s, "w", now.Add(10*time.Second-time.Millisecond)) // still not due
	if got := mustClaimDelivery(t, s, "w", now.Add(10*time.Second), time.Minute); got.ID != "later" {
		t.Fatalf("ClaimDelivery at its NextAttempt returned %s, want later", got.ID)
	}
}

func testDeliveryLease(t *testing.T, s transcribe.Store) {
	ctx := t.Context()
	live := delivery("live", "t1", base.Add(-time.Hour))
	live.LeaseOwner, live.LeaseUntil = "w0", base.Add(time.Minute)
	free := delivery("free", "t2", base)
	mustAddDelivery(t, s, live, free)
	if got := mustClaimDelivery(t, s, "w1", base, time.Minute); got.ID != "free" {
		t.Fatalf("ClaimDelivery returned %s, want free (live is leased)", got.ID)
	}
	wantNoDelivery(t, s, "w1", base.Add(30*time.Second))
	wantNoDelivery(t, s, "w1", base.Add(time.Minute)) // LeaseUntil not before now
	// Both leases have run out: the earliest NextAttempt wins.
	got := mustClaimDelivery(t, s, "w2", base.Add(time.Minute+time.Millisecond), time.Minute)
	if got.ID != "live" || got.LeaseOwner != "w2" {
		t.Fatalf("ClaimDelivery after leases expired: %+v, want live leased to w2", got)
	}
	got = mustClaimDelivery(t, s, "w2", base.Add(2*time.Minute), time.Minute)
	if got.ID != "free" {
		t.Fatalf("ClaimDelivery after leases expired: %s, want free", got.ID)
	}
	// w1 lost "free" to w2.
	stale := delivery("free", "t2", base)
	stale.LeaseOwner, stale.Done = "w1", true
	if err := s.UpdateDelivery(ctx, stale); !errors.Is(err, transcribe.ErrLeaseLost) {
		t.Errorf("UpdateDelivery by the owner whose lease was taken: err = %v, want ErrLeaseLost", err)
	}
	got.Done = true
	if err := s.UpdateDelivery(ctx, got); err != nil {
		t.Errorf("UpdateDelivery by the current owner: %v", err)
	}
}

func testDeliveryConcurrent(t *testing.T, s transcribe.Store) {
	const n, workers = 40, 6
	for i := range n {
		mustAddDelivery(t, s, delivery(fmt.Sprintf("d%03d", i), "t", base.Add(-time.Duration(i)*time.Second)))
	}
	var (
		mu      sync.Mutex
		claimed = map[string]bool{}
		wg      sync.WaitGroup
	)
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			owner := fmt.Sprintf("w%d", w)
			for {
				d, err := s.ClaimDelivery(context.Background(), owner, base, time.Hour)
				if errors.Is(err, transcribe.ErrNoJob) {
					return
				}
				if err != nil {
					errs <- fmt.Errorf("%s: ClaimDelivery: %w", owner, err)
					return
				}
				mu.Lock()
				dup := claimed[d.ID]
				claimed[d.ID] = true
				mu.Unlock()
				if dup {
					errs <- fmt.Errorf("delivery %s claimed twice", d.ID)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if len(claimed) != n {
		t.Errorf("%d of %d deliveries claimed", len(claimed), n)
	}
}
