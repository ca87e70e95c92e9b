package export

import (
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
)

func TestParseSearchTerms(t *testing.T) {
	tests := []struct {
		raw  string
		want []string // nil: an error
	}{
		{"hello", []string{"hello"}},
		{"hello,new york", []string{"hello", "new york"}},
		{" hello , ,new york,, ", []string{"hello", "new york"}},
		{"one two three four five", []string{"one two three four five"}},
		{"one two three four five six", nil},
		{"ok,a b c d e f", nil},
		{"", nil},
		{" , ,", nil},
	}
	for _, tc := range tests {
		got, err := ParseSearchTerms(tc.raw)
		if tc.want == nil {
			var pe *transcribe.ParamError
			if !errors.As(err, &pe) || pe.Field != "words" || pe.Reason == "" {
				t.Errorf("ParseSearchTerms(%q) error = %v, want a ParamError for words", tc.raw, err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ParseSearchTerms(%q) = %q, %v; want %q", tc.raw, got, err, tc.want)
		}
	}
}

// TestParseSearchTermsSDKEncoding decodes the query exactly as both SDKs
// send it (wire-format.md 2.1).
func TestParseSearchTermsSDKEncoding(t *testing.T) {
	q, err := url.ParseQuery("words=hello%2Cnew+york")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseSearchTerms(q.Get("words"))
	if err != nil || !slices.Equal(got, []string{"hello", "new york"}) {
		t.Errorf("got %q, %v", got, err)
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"Hello,": "hello", "HELLO": "hello", "$25": "25", "25%": "25", "1,000": "1000",
		"3.5": "3.5", "end.": "end", "don't": "don't", "Don’t": "don't", "'tis": "tis",
		"dogs'": "dogs", "rock'n'roll": "rock'n'roll", "well-known": "wellknown", "U.S.": "us",
		"(quietly)": "quietly", "Çà": "çà", "naïve": "naïve", "-": "", "&": "", "": "",
		`"New`: "new", "York!?": "york", "x²": "x²",
	} {
		if got := normalize(in); got != want {
			t.Errorf("normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSearch(t *testing.T) {
	tr := transcriptOf([]transcribe.Word{
		w("Hello,", 0, 100, ""),      // 0
		w("New", 200, 300, ""),       // 1
		w("York.", 300, 400, ""),     // 2
		w("-", 450, 460, ""),         // 3 (no key)
		w("new", 500, 600, ""),       // 4
		w("YORK", 600, 700, ""),      // 5
		w("costs", 800, 900, ""),     // 6
		w("$25", 1000, 1100, ""),     // 7
		w("hello", 1200, 1300, ""),   // 8
		w("New", 1400, 1500, ""),     // 9
		w("&", 1500, 1510, ""),       // 10 (no key)
		w("Yorkers", 1600, 1700, ""), // 11
	})
	r := Search(tr, []string{"new york", "Hello", "25", "absent", "HELLO", "new"})
	if r.ID != tr.ID {
		t.Errorf("id %q", r.ID)
	}
	want := []Match{
		{Text: "new", Count: 3, Timestamps: [][2]int64{{200, 300}, {500, 600}, {1400, 1500}}, Indexes: []int64{1, 4, 9}},
		{Text: "new york", Count: 2, Timestamps: [][2]int64{{200, 400}, {500, 700}}, Indexes: []int64{1, 4}},
		{Text: "Hello", Count: 2, Timestamps: [][2]int64{{0, 100}, {1200, 1300}}, Indexes: []int64{0, 8}},
		{Text: "25", Count: 1, Timestamps: [][2]int64{{1000, 1100}}, Indexes: []int64{7}},
	}
	gotJSON, _ := json.Marshal(r.Matches)
	wantJSON, _ := json.Marshal(want)
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("matches\n%s\nwant\n%s", gotJSON, wantJSON)
	}
	if r.TotalCount != 8 {
		t.Errorf("total_count %d, want 8", r.TotalCount)
	}
}

func TestSearchPhraseSkipsKeylessWords(t *testing.T) {
	// "rock & roll" as a phrase matches across the "&" word, and so does
	// "rock roll"; the span runs from "rock" to "roll".
	tr := transcriptOf([]transcribe.Word{w("Rock", 0, 100, ""), w("&", 100, 150, ""), w("roll!", 150, 400, "")})
	for _, term := range []string{"rock & roll", "rock roll"} {
		r := Search(tr, []string{term})
		if r.TotalCount != 1 || r.Matches[0].Timestamps[0] != [2]int64{0, 400} || r.Matches[0].Indexes[0] != 0 {
			t.Errorf("%q: %+v", term, r)
		}
	}
}

func TestSearchNoOverlap(t *testing.T) {
	tr := transcriptOf(evenWords("la la la la la", 0, ""))
	r := Search(tr, []string{"la la"})
	if r.TotalCount != 2 || !slices.Equal(r.Matches[0].Indexes, []int64{0, 2}) {
		t.Errorf("%+v", r)
	}
}

func TestSearchEmpty(t *testing.T) {
	for _, tr := range []*transcribe.Transcript{nil, {}, sample()} {
		r := Search(tr, []string{"zzz", "!!!"})
		b, _ := json.Marshal(r)
		if r.TotalCount != 0 || !strings.Contains(string(b), `"matches":[]`) {
			t.Errorf("no-match response %s", b)
		}
	}
}

func BenchmarkSearch(b *testing.B) {
	tr := longTranscript(20000)
	terms := []string{"new york", "hello", "$25", "absent", "is that so"}
	b.ReportAllocs()
	for b.Loop() {
		Search(tr, terms)
	}
}
