package drivertest

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// RunPageStoreTests checks a driver.PageStore: ListPage returns what
// List returns (the fields of a list entry), for every kind of query,
// whatever ids and summaries hold, and still after writes by the same
// Store or by another one on the same storage (a second process:
// newStores returns two Stores sharing it), which a Store caching pages
// must see.
func RunPageStoreTests(t *testing.T, newStores func(t *testing.T) (driver.Store, driver.Store)) {
	t.Helper()
	a, b := newStores(t)
	pa, ok := a.(driver.PageStore)
	if !ok {
		t.Fatalf("%T is not a driver.PageStore", a)
	}
	ctx := t.Context()
	r := rand.New(rand.NewPCG(3, 4))
	odd := []string{"a,b", "1,2,3,", "x;y", "é日本", "-1,", ""}
	var all []*driver.Record
	for i := range 40 {
		id := fmt.Sprintf("page-%02d", i)
		if i%7 == 3 {
			id += odd[i%len(odd)]
		}
		x := rec(id, []string{"P", "Q"}[i%2], i*600) // 10 minutes apart
		x.Status = []transcribe.Status{transcribe.StatusQueued, transcribe.StatusProcessing, transcribe.StatusCompleted, transcribe.StatusError}[i%4]
		if x.Status.Final() {
			x.Completed = x.Created.Add(time.Minute)
		}
		x.Summary = make([]byte, r.IntN(90))
		for j := range x.Summary {
			x.Summary[j] = byte(r.IntN(256)) // any bytes: commas, NULs, invalid UTF-8
		}
		if i%9 == 0 {
			x.Summary = []byte{}
		}
		x.Deleted = i%11 == 5
		all = append(all, x)
	}
	mustCreate(t, a, all...)
	queries := func() []driver.ListQuery {
		qs := []driver.ListQuery{}
		for _, p := range []string{"P", "Q", "none"} {
			for _, lim := range []int{0, 1, 5, 201} {
				qs = append(qs, driver.ListQuery{ProjectID: p, Limit: lim},
					driver.ListQuery{ProjectID: p, Limit: lim, Status: transcribe.StatusCompleted},
					driver.ListQuery{ProjectID: p, Limit: lim, CreatedFrom: base.Add(2 * time.Hour), CreatedBefore: base.Add(100 * time.Hour)},
					driver.ListQuery{ProjectID: p, Limit: lim, CreatedFrom: base.Add(time.Hour), CreatedBefore: base.Add(4 * time.Hour)},
					driver.ListQuery{ProjectID: p, Limit: lim, IncludeDeleted: true},
					driver.ListQuery{ProjectID: p, Limit: lim, BeforeID: "page-20"},
					driver.ListQuery{ProjectID: p, Limit: lim, AfterID: "page-10"},
					driver.ListQuery{ProjectID: p, Limit: lim, AfterID: "page-21"})
			}
		}
		return qs
	}
	check := func(when string) {
		t.Helper()
		for _, q := range queries() {
			for range 2 { // again: from a cache, if the Store keeps one
				// ListPage first: a page cached before a write must not
				// come back after it.
				got, gerr := pa.ListPage(ctx, q)
				want, werr := a.List(ctx, q)
				if (werr == nil) != (gerr == nil) || (werr != nil && errors.Is(werr, transcribe.ErrNotFound) != errors.Is(gerr, transcribe.ErrNotFound)) {
					t.Fatalf("%s: ListPage(%+v): error %v, List: %v", when, q, gerr, werr)
				}
				if len(got) != len(want) {
					t.Fatalf("%s: ListPage(%+v): %d records, List %d", when, q, len(got), len(want))
				}
				for i := range want {
					w, g := want[i], got[i]
					if g.Seq != w.Seq || g.ID != w.ID || g.Status != w.Status || !g.Created.Equal(w.Created) ||
						!g.Completed.Equal(w.Completed) || !bytes.Equal(g.Summary, w.Summary) {
						t.Fatalf("%s: ListPage(%+v)[%d] = %+v\nList: %+v", when, q, i, g, w)
					}
				}
			}
		}
	}
	check("created")

	// Writes by this Store and by another one show at once.
	upd := mustGet(t, a, "page-02")
	upd.Status, upd.Completed, upd.Summary = transcribe.StatusCompleted, base.Add(3*time.Hour), []byte("new summary")
	if err := a.Update(ctx, upd); err != nil {
		t.Fatal(err)
	}
	check("after an update by the same store")
	upd = mustGet(t, b, "page-04")
	upd.Status, upd.Summary = transcribe.StatusError, []byte("other process")
	if err := b.Update(ctx, upd); err != nil {
		t.Fatal(err)
	}
	check("after an update by another store")
	mustCreate(t, b, rec("page-99", "P", 40*600))
	check("after a create by another store")
	if c, err := b.ClaimJob(ctx, driver.Claim{Owner: "w", Now: base.Add(24 * time.Hour), Lease: time.Minute}); err != nil || c == nil {
		t.Fatalf("ClaimJob: %v %v", c, err)
	}
	check("after a claim by another store")
	// The retention window moving past listed records.
	q := driver.ListQuery{ProjectID: "P", Limit: 3, CreatedFrom: base}
	first, err := pa.ListPage(ctx, q)
	if err != nil || len(first) != 3 {
		t.Fatalf("ListPage: %v %v", first, err)
	}
	q.CreatedFrom = first[1].Created.Add(time.Second)
	want, _ := a.List(ctx, q)
	got, err := pa.ListPage(ctx, q)
	if err != nil || len(got) != len(want) {
		t.Fatalf("after the window moved: %d records (%v), want %d", len(got), err, len(want))
	}
}
