package drivertest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

func mustList(t *testing.T, s driver.Store, q driver.ListQuery) []string {
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

func wantList(t *testing.T, s driver.Store, q driver.ListQuery, want ...string) {
	t.Helper()
	got := mustList(t, s, q)
	if want == nil {
		want = []string{}
	}
	if !slices.Equal(got, want) {
		t.Errorf("List(%+v) = %v, want %v", q, got, want)
	}
}

func testListProjects(t *testing.T, s driver.Store) {
	mustCreate(t, s, rec("a1", "A", 0), rec("b1", "B", 1), rec("a2", "A", 2), rec("b2", "B", 3), rec("c1", "C", 4))
	wantList(t, s, driver.ListQuery{ProjectID: "A"}, "a2", "a1")
	wantList(t, s, driver.ListQuery{ProjectID: "B"}, "b2", "b1")
	wantList(t, s, driver.ListQuery{ProjectID: "C", Limit: 10}, "c1")
	wantList(t, s, driver.ListQuery{ProjectID: "D"})
	wantList(t, s, driver.ListQuery{ProjectID: "a"}) // ids and projects are case-sensitive
	// The fields of listed records are complete.
	recs, err := s.List(t.Context(), driver.ListQuery{ProjectID: "B", Limit: 1})
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

func testListOrderLimit(t *testing.T, s driver.Store) {
	// Created times out of Seq order: List orders by Seq, not Created.
	var want []string
	for i := range 12 {
		id := fmt.Sprintf("r%02d", i)
		mustCreate(t, s, rec(id, "p", (i*7)%12))
		want = append([]string{id}, want...)
	}
	wantList(t, s, driver.ListQuery{ProjectID: "p"}, want...)
	wantList(t, s, driver.ListQuery{ProjectID: "p", Limit: 0}, want...)
	wantList(t, s, driver.ListQuery{ProjectID: "p", Limit: 1}, want[:1]...)
	wantList(t, s, driver.ListQuery{ProjectID: "p", Limit: 5}, want[:5]...)
	wantList(t, s, driver.ListQuery{ProjectID: "p", Limit: 12}, want...)
	wantList(t, s, driver.ListQuery{ProjectID: "p", Limit: 200}, want...)
}

func testListStatus(t *testing.T, s driver.Store) {
	statuses := transcribe.Statuses()
	byStatus := map[transcribe.Status][]string{}
	for i := range 16 {
		r := rec(fmt.Sprintf("r%02d", i), "p", i)
		r.Status = statuses[i%len(statuses)]
		mustCreate(t, s, r)
		byStatus[r.Status] = append([]string{r.ID}, byStatus[r.Status]...)
	}
	for _, st := range statuses {
		wantList(t, s, driver.ListQuery{ProjectID: "p", Status: st}, byStatus[st]...)
		wantList(t, s, driver.ListQuery{ProjectID: "p", Status: st, Limit: 2}, byStatus[st][:2]...)
	}
	// The status that counts is the current one.
	r := mustGet(t, s, "r00")
	r.Status = transcribe.StatusError
	mustUpdate(t, s, r)
	wantList(t, s, driver.ListQuery{ProjectID: "p", Status: transcribe.StatusQueued}, byStatus[transcribe.StatusQueued][:3]...)
	wantList(t, s, driver.ListQuery{ProjectID: "p", Status: transcribe.StatusError}, append(byStatus[transcribe.StatusError], "r00")...)
}

func testListCreated(t *testing.T, s driver.Store) {
	// r0..r9 created one second apart; a sub-second offset checks precision.
	for i := range 10 {
		mustCreate(t, s, rec(fmt.Sprintf("r%d", i), "p", i))
	}
	at := func(i int) time.Time { return base.Add(time.Duration(i) * time.Second) }
	wantList(t, s, driver.ListQuery{ProjectID: "p", CreatedFrom: at(7)}, "r9", "r8", "r7")
	wantList(t, s, driver.ListQuery{ProjectID: "p", CreatedFrom: at(7).Add(time.Microsecond)}, "r9", "r8")
	wantList(t, s, driver.ListQuery{ProjectID: "p", CreatedFrom: at(7).Add(-time.Microsecond)}, "r9", "r8", "r7")
	wantList(t, s, driver.ListQuery{ProjectID: "p", CreatedBefore: at(2)}, "r1", "r0")
	wantList(t, s, driver.ListQuery{ProjectID: "p", CreatedBefore: at(2).Add(time.Microsecond)}, "r2", "r1", "r0")
	wantList(t, s, driver.ListQuery{ProjectID: "p", CreatedFrom: at(3), CreatedBefore: at(6)}, "r5", "r4", "r3")
	wantList(t, s, driver.ListQuery{ProjectID: "p", CreatedFrom: at(3), CreatedBefore: at(6), Limit: 2}, "r5", "r4")
	wantList(t, s, driver.ListQuery{ProjectID: "p", CreatedFrom: at(6), CreatedBefore: at(6)})
	wantList(t, s, driver.ListQuery{ProjectID: "p", CreatedFrom: at(20)})
	// The same instants in another zone select the same records.
	wantList(t, s, driver.ListQuery{ProjectID: "p", CreatedFrom: at(8).UTC(), CreatedBefore: at(9).In(time.FixedZone("UTC-7", -7*3600))}, "r8")
}

func testListCursors(t *testing.T, s driver.Store) {
	for i := range 10 {
		mustCreate(t, s, rec(fmt.Sprintf("r%d", i), "p", i))
		mustCreate(t, s, rec(fmt.Sprintf("x%d", i), "other", i)) // interleaved records of another project
	}
	wantList(t, s, driver.ListQuery{ProjectID: "p", BeforeID: "r4"}, "r3", "r2", "r1", "r0")
	wantList(t, s, driver.ListQuery{ProjectID: "p", BeforeID: "r4", Limit: 2}, "r3", "r2")
	wantList(t, s, driver.ListQuery{ProjectID: "p", BeforeID: "r0"})
	// AfterID: the oldest records newer than AfterID, returned newest first.
	wantList(t, s, driver.ListQuery{ProjectID: "p", AfterID: "r5"}, "r9", "r8", "r7", "r6")
	wantList(t, s, driver.ListQuery{ProjectID: "p", AfterID: "r2", Limit: 3}, "r5", "r4", "r3")
	wantList(t, s, driver.ListQuery{ProjectID: "p", AfterID: "r2", Limit: 1}, "r3")
	wantList(t, s, driver.ListQuery{ProjectID: "p", AfterID: "r9"})
	// Both bounds.
	wantList(t, s, driver.ListQuery{ProjectID: "p", AfterID: "r2", BeforeID: "r6"}, "r5", "r4", "r3")
	wantList(t, s, driver.ListQuery{ProjectID: "p", AfterID: "r2", BeforeID: "r6", Limit: 2}, "r4", "r3")
	// Combined with a status filter: pages skip non-matching records, and a
	// cursor need not match the filter itself.
	for _, i := range []int{3, 4, 8} {
		r := mustGet(t, s, fmt.Sprintf("r%d", i))
		r.Status = transcribe.StatusCompleted
		mustUpdate(t, s, r)
	}
	wantList(t, s, driver.ListQuery{ProjectID: "p", Status: transcribe.StatusCompleted, AfterID: "r3", Limit: 1}, "r4")
	wantList(t, s, driver.ListQuery{ProjectID: "p", Status: transcribe.StatusCompleted, BeforeID: "r8", Limit: 1}, "r4")
	wantList(t, s, driver.ListQuery{ProjectID: "p", Status: transcribe.StatusQueued, AfterID: "r2", Limit: 3}, "r7", "r6", "r5")
	// A deleted record is still a valid cursor.
	r := mustGet(t, s, "r6")
	r.Deleted = true
	mustUpdate(t, s, r)
	wantList(t, s, driver.ListQuery{ProjectID: "p", BeforeID: "r6", Limit: 2}, "r5", "r4")
	// A cursor that is not one of the project's records: ErrNotFound.
	for _, q := range []driver.ListQuery{
		{ProjectID: "p", BeforeID: "x4"}, {ProjectID: "p", AfterID: "x4"}, {ProjectID: "p", BeforeID: "missing"},
		{ProjectID: "p", AfterID: "missing", Limit: 3}, {ProjectID: "other", BeforeID: "r1"},
	} {
		if recs, err := s.List(t.Context(), q); !errors.Is(err, transcribe.ErrNotFound) {
			t.Errorf("List(%+v) = %v, %v; want ErrNotFound", q, ids(recs), err)
		}
	}
}

func testListDeleted(t *testing.T, s driver.Store) {
	for i := range 6 {
		mustCreate(t, s, rec(fmt.Sprintf("r%d", i), "p", i))
	}
	for _, id := range []string{"r1", "r4"} {
		r := mustGet(t, s, id)
		r.Deleted = true
		mustUpdate(t, s, r)
	}
	wantList(t, s, driver.ListQuery{ProjectID: "p"}, "r5", "r3", "r2", "r0")
	wantList(t, s, driver.ListQuery{ProjectID: "p", Limit: 2}, "r5", "r3")
	wantList(t, s, driver.ListQuery{ProjectID: "p", IncludeDeleted: true}, "r5", "r4", "r3", "r2", "r1", "r0")
	wantList(t, s, driver.ListQuery{ProjectID: "p", IncludeDeleted: true, Limit: 2}, "r5", "r4")
	recs, err := s.List(t.Context(), driver.ListQuery{ProjectID: "p", IncludeDeleted: true, Limit: 2})
	if err != nil || len(recs) != 2 || !recs[1].Deleted || recs[0].Deleted {
		t.Errorf("Deleted flags of listed records wrong: %v", err)
	}
}

func testListEmpty(t *testing.T, s driver.Store) {
	wantList(t, s, driver.ListQuery{ProjectID: "p"})
	wantList(t, s, driver.ListQuery{ProjectID: "p", Limit: 10, Status: transcribe.StatusCompleted})
}

// testListNoData: List leaves Data out (nil) but fills every other field,
// Summary included, whatever Data holds.
func testListNoData(t *testing.T, s driver.Store) {
	big := rec("big", "p", 0)
	big.Data = make([]byte, 1<<20)
	mustCreate(t, s, big)
	if err := s.SetWebhookStatus(t.Context(), "big", 500); err != nil {
		t.Fatal(err)
	}
	recs, err := s.List(t.Context(), driver.ListQuery{ProjectID: "p"})
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
