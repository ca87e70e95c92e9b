package httpapi

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
)

// TestAppendPage: the list handler's renderer writes exactly what
// json.Marshal writes of the ListPage that page builds, for results with
// every kind of string and time in them, on plain and odd origins.
func TestAppendPage(t *testing.T) {
	strs := []string{"", "plain", `quote " and \ backslash`, "tab\tnewline\n\x00", "<b>&amp;</b>", "héllo", "\u2028",
		"bad utf-8 \xff", "https://x.test/a.wav?x=1&y=<2>", "0f0e0d0c-0b0a-4090-8070-605040302010"}
	r := rand.New(rand.NewPCG(5, 6))
	pick := func() string { return strs[r.IntN(len(strs))] }
	zones := []*time.Location{time.UTC, time.FixedZone("x", -7*3600), time.FixedZone("y", 5*3600+1800)}
	edges := []time.Time{time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 14, 0, 0, 0, 999, time.UTC)}
	when := func() time.Time {
		if r.IntN(10) == 0 {
			return edges[r.IntN(len(edges))]
		}
		return time.Unix(r.Int64N(4e9), r.Int64N(1e9)).In(zones[r.IntN(len(zones))])
	}
	for _, origin := range []string{"http://127.0.0.1:8080", "https://api.example.com", "http://[::1]:9"} {
		urls, err := NewURLs(origin, nil)
		if err != nil {
			t.Fatal(err)
		}
		a := &API{urls: urls}
		for range 300 {
			res := &transcribe.ListResult{Limit: 1 + r.IntN(200)}
			for range r.IntN(6) {
				e := transcribe.ListEntry{ID: pick(), Status: transcribe.Status(pick()), Created: when(), AudioURL: pick()}
				if r.IntN(2) == 0 {
					e.Completed = when()
				}
				if r.IntN(3) == 0 {
					s := pick()
					e.Error = &s
				}
				res.Entries = append(res.Entries, e)
			}
			if r.IntN(2) == 0 {
				res.Older = pick()
			}
			if r.IntN(2) == 0 {
				res.Newer = pick()
			}
			o := transcribe.ListOptions{Status: transcribe.Status([]string{"", "completed"}[r.IntN(2)]), BeforeID: []string{"", pick()}[r.IntN(2)],
				ThrottledOnly: r.IntN(4) == 0}
			createdOn := []string{"", "2026-03-14"}[r.IntN(2)]
			want, err := json.Marshal(a.page(res, o, createdOn))
			if err != nil {
				t.Fatal(err)
			}
			if got := a.appendPage(nil, res, o, createdOn); !bytes.Equal(got, want) {
				t.Fatalf("appendPage\n%s\njson.Marshal(page)\n%s", got, want)
			}
		}
	}
}
