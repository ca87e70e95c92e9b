package export

import (
	"encoding/json"
	"testing"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"
)

// roundTrip encodes v as the API would and decodes it into the SDK's type,
// refusing unknown-shape errors (a string where the SDK wants an int64, say).
func roundTrip[T any](t *testing.T, v any) T {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("the Go SDK cannot decode %T: %v", v, err)
	}
	return out
}

// TestGoSDKDecodes checks that the official Go SDK (v1.10.0) reads the
// responses with every value where it expects it.
func TestGoSDKDecodes(t *testing.T) {
	tr := sample()

	s := roundTrip[aai.SentencesResponse](t, Sentences(tr))
	if *s.ID != tr.ID || *s.AudioDuration != 4510.5 || len(s.Sentences) != 8 {
		t.Fatalf("sentences decoded as %+v", s)
	}
	first := s.Sentences[0]
	if *first.Text != "Hello, and welcome to the show." || *first.Start != 240 || *first.End != 2540 ||
		*first.Speaker != "A" || first.Channel != nil || len(first.Words) != 6 || *first.Words[5].Text != "show." {
		t.Errorf("first sentence decoded as %+v", first)
	}

	p := roundTrip[aai.ParagraphsResponse](t, Paragraphs(tr))
	if len(p.Paragraphs) != 5 || *p.Paragraphs[1].Words[0].Speaker != "B" || *p.Paragraphs[4].Start != 4_502_000 {
		t.Errorf("paragraphs decoded as %+v", p)
	}

	ws := roundTrip[aai.WordSearchResponse](t, Search(tr, []string{"hello", "new york"}))
	if *ws.TotalCount != 4 || len(ws.Matches) != 2 || *ws.Matches[0].Text != "new york" ||
		len(ws.Matches[0].Timestamps) != 3 || ws.Matches[0].Timestamps[0][1] != 5740 || ws.Matches[0].Indexes[2] != 50 {
		t.Errorf("word search decoded as %+v", ws)
	}
}
