package httpapi_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
)

// TestGetAllocationBudget: a GET of a 162 KB transcript allocates a small
// fraction of its size (the response is written from a reused buffer,
// the sealed record comes from the cache once the store has confirmed
// it), where it used to allocate the record and the response each time.
func TestGetAllocationBudget(t *testing.T) {
	f, ids := readFixture(t, benchStore(t, "sqlite"), 1, tenMinutes)
	req := httptest.NewRequest("GET", "/v2/transcript/"+ids[0], nil)
	req.Header.Set("Authorization", "k1")
	w := &discardWriter{h: http.Header{}}
	get := func() {
		clear(w.h)
		w.status, w.n = 0, 0
		f.api.ServeHTTP(w, req)
		if w.status != 200 || w.n < 150<<10 {
			t.Fatalf("GET: status %d, %d bytes", w.status, w.n)
		}
	}
	for range 5 {
		get() // warm the cache and the buffer pool
	}
	const n = 50
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range n {
		get()
	}
	runtime.ReadMemStats(&after)
	perGet := int(after.TotalAlloc-before.TotalAlloc) / n
	t.Logf("%d bytes allocated per GET of %d bytes", perGet, w.n)
	if perGet > w.n/4 {
		t.Errorf("a GET of %d bytes allocated %d bytes; want at most a quarter of the response", w.n, perGet)
	}
}

// TestGetSeesOtherProcessWrites: two servers (processes) on one SQLite
// file or PostgreSQL database. One serves a transcript (from its cache of
// opened records from the second GET on); the other deletes it; the
// first serves the deleted form at once, byte for byte what the second
// serves.
func TestGetSeesOtherProcessWrites(t *testing.T) {
	t.Parallel()
	for _, kind := range stores {
		t.Run(kind, func(t *testing.T) {
			start := processes(t, kind)
			a, b := start(2), start(-1)
			ids := completed(t, a, "p1", 1)
			path0 := "/v2/transcript/" + ids[0]
			first := a.do(t, "GET", path0, "k1", nil)
			for range 3 {
				if again := a.do(t, "GET", path0, "k1", nil); again.status != 200 || !bytes.Equal(again.body, first.body) {
					t.Fatalf("GET again: %d %s", again.status, again.body)
				}
			}
			if other := b.do(t, "GET", path0, "k1", nil); !bytes.Equal(other.body, first.body) {
				t.Fatalf("the other process serves\n%s\nwant\n%s", other.body, first.body)
			}
			if del := b.do(t, "DELETE", path0, "k1", nil); del.status != 200 {
				t.Fatalf("DELETE: %d %s", del.status, del.body)
			}
			want := b.do(t, "GET", path0, "k1", nil)
			got := a.do(t, "GET", path0, "k1", nil)
			if got.status != 200 || !bytes.Equal(got.body, want.body) || bytes.Equal(got.body, first.body) {
				t.Fatalf("after the other process deleted it: %d\n%s\nwant\n%s", got.status, got.body, want.body)
			}
			if m := got.json(t); m["is_deleted"] != true || m["words"] != nil {
				t.Errorf("deleted transcript still has content: %s", got.body)
			}
			if other := a.do(t, "GET", path0, "k2", nil); other.status != 404 {
				t.Errorf("another project's key: %d %s", other.status, other.body)
			}
		})
	}
}

// TestListAllocationBudget: a list page allocates a few small objects
// per entry (an entry's audio URL, say), where it used to allocate each
// record's 14 columns, a record, a ListItem, its URL and time strings.
func TestListAllocationBudget(t *testing.T) {
	const n = 60
	f, _ := readFixture(t, benchStore(t, "sqlite"), n, small)
	req := httptest.NewRequest("GET", "/v2/transcript?limit=100", nil)
	req.Header.Set("Authorization", "k1")
	w := &discardWriter{h: http.Header{}}
	list := func() {
		clear(w.h)
		w.status, w.n = 0, 0
		f.api.ServeHTTP(w, req)
		if w.status != 200 || w.n < n*200 {
			t.Fatalf("GET: status %d, %d bytes", w.status, w.n)
		}
	}
	for range 3 {
		list()
	}
	allocs := testing.AllocsPerRun(20, list)
	t.Logf("%.0f allocations per page of %d entries", allocs, n)
	if allocs > 5*n {
		t.Errorf("a page of %d entries made %.0f allocations; want at most %d", n, allocs, 5*n)
	}
}
