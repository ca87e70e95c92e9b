package httpapi

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestListPageJSON: the hand-written list renderer writes exactly what
// json.Marshal writes, for pages with every kind of string in them.
func TestListPageJSON(t *testing.T) {
	strs := []string{"", "plain", `quote " and \ backslash`, "tab\tnewline\n\x00\x1f", "<script>&amp;</script>",
		"héllo wörld", "\u2028\u2029", "bad utf-8 \xff\xfe", "https://x.test/a.wav?x=1&y=<2>", "日本語", "emoji 🎙"}
	r := rand.New(rand.NewPCG(1, 2))
	pick := func() string { return strs[r.IntN(len(strs))] + strs[r.IntN(len(strs))] }
	ptr := func() *string {
		if r.IntN(3) == 0 {
			return nil
		}
		s := pick()
		return &s
	}
	pages := []*ListPage{{}, {Transcripts: []ListItem{}}}
	for range 200 {
		p := &ListPage{PageDetails: PageDetails{Limit: r.IntN(300) - 50, ResultCount: r.IntN(201), CurrentURL: pick(), PrevURL: ptr(), NextURL: ptr()}}
		for range r.IntN(5) {
			p.Transcripts = append(p.Transcripts, ListItem{ID: pick(), ResourceURL: pick(), Status: "completed", Created: pick(),
				Completed: ptr(), AudioURL: pick(), Error: ptr()})
		}
		pages = append(pages, p)
	}
	for _, p := range pages {
		want, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.appendJSON(nil); !bytes.Equal(got, want) {
			t.Fatalf("appendJSON\n%s\njson.Marshal\n%s", got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("plain")
	f.Add("<&>\"\\\x00\xff\u2028")
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("appendString(%q) = %s, json.Marshal = %s", s, got, want)
		}
	})
}
