package httpapi_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

// listed is a list page's entries as id: status, audio_url and error.
func listed(t *testing.T, f *fixture, key string) map[string]string {
	t.Helper()
	got := f.do(t, "GET", "/v2/transcript?limit=200", key, nil)
	if got.status != 200 {
		t.Fatalf("list: %d %s", got.status, got.body)
	}
	var raw struct {
		Transcripts []map[string]any `json:"transcripts"`
	}
	if err := json.Unmarshal(got.body, &raw); err != nil {
		t.Fatalf("list: %v %s", err, got.body)
	}
	out := map[string]string{}
	for _, e := range raw.Transcripts {
		b, _ := json.Marshal([]any{e["status"], e["audio_url"], e["error"]})
		out[e["id"].(string)] = string(b)
	}
	return out
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// TestListSeesOtherProcessWrites: a server whose list page is cached
// (the store's page, the Service's opened entries, the API's rendered
// bytes) lists what another server on the same database wrote as soon
// as it is written: a new transcript, a deletion.
func TestListSeesOtherProcessWrites(t *testing.T) {
	for _, kind := range stores {
		t.Run(kind, func(t *testing.T) {
			start := processes(t, kind)
			a, b := start(2), start(-1)
			ids := completed(t, a, "p1", 3)
			first := listed(t, a, "k1")
			for range 3 {
				if again := listed(t, a, "k1"); !slices.Equal(keys(again), keys(first)) {
					t.Fatalf("list again: %v, want %v", keys(again), ids)
				}
			}
			if len(first) != 3 {
				t.Fatalf("listed %v, want %v", keys(first), ids)
			}
			// The other process deletes one: it leaves the list.
			if del := b.do(t, "DELETE", "/v2/transcript/"+ids[1], "k1", nil); del.status != 200 {
				t.Fatalf("DELETE: %d %s", del.status, del.body)
			}
			got, want := listed(t, a, "k1"), listed(t, b, "k1")
			if _, ok := got[ids[1]]; ok || !slices.Equal(keys(got), keys(want)) || len(got) != 2 {
				t.Fatalf("after the other process's delete: %v; it lists %v", keys(got), keys(want))
			}
			// It accepts a new one: listed at once.
			u, err := b.svc.Upload(t.Context(), "p1", bytes.NewReader(b.wav))
			if err != nil {
				t.Fatal(err)
			}
			sub := b.do(t, "POST", "/v2/transcript", "k1", bytes.NewReader([]byte(`{"audio_url":"`+b.srv.URL+`/v2/upload/`+u.ID+`"}`)))
			if sub.status != 200 {
				t.Fatalf("submit on the other process: %d %s", sub.status, sub.body)
			}
			id := sub.json(t)["id"].(string)
			if got := listed(t, a, "k1"); len(got) != 3 || got[id] == "" {
				t.Fatalf("after the other process's submit: %v, want %s among them", keys(got), id)
			}
		})
	}
}

// TestListKeepsProjectsApart: list pages cached for one project's key
// never show up for another's.
func TestListKeepsProjectsApart(t *testing.T) {
	for _, kind := range stores {
		t.Run(kind, func(t *testing.T) {
			start := processes(t, kind)
			a := start(2)
			p1 := completed(t, a, "p1", 2)
			p2 := completed(t, a, "p2", 1)
			for range 3 {
				one, two := listed(t, a, "k1"), listed(t, a, "k2")
				if !slices.Equal(keys(one), sorted(p1)) || !slices.Equal(keys(two), sorted(p2)) {
					t.Fatalf("p1 lists %v (want %v), p2 lists %v (want %v)", keys(one), sorted(p1), keys(two), sorted(p2))
				}
			}
			for _, q := range []string{"?limit=200", "?limit=200&status=completed", "?limit=200&after_id=" + p2[0]} {
				got := a.do(t, "GET", "/v2/transcript"+q, "k2", nil)
				for _, id := range p1 {
					if got.status != 200 || bytes.Contains(got.body, []byte(id)) {
						t.Errorf("p2's list %s shows p1's %s: %d %.300s", q, id, got.status, got.body)
					}
				}
			}
			// p1's transcript is no cursor of p2's.
			if got := a.do(t, "GET", "/v2/transcript?limit=200&before_id="+p1[1], "k2", nil); got.status != 400 || bytes.Contains(got.body, []byte(p1[0])) {
				t.Errorf("p2's list before p1's transcript: %d %.300s", got.status, got.body)
			}
		})
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
