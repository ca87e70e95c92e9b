package export

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/earshot-dev/earshot/transcribe"
)

func TestCaptionTimes(t *testing.T) {
	tests := []struct {
		ms       int64
		srt, vtt string
	}{
		{0, "00:00:00,000", "00:00.000"},
		{7, "00:00:00,007", "00:00.007"},
		{999, "00:00:00,999", "00:00.999"},
		{61_001, "00:01:01,001", "01:01.001"},
		{3_599_999, "00:59:59,999", "59:59.999"},
		{3_600_000, "01:00:00,000", "01:00:00.000"},
		{4_502_000, "01:15:02,000", "01:15:02.000"},
		{360_000_000, "100:00:00,000", "100:00:00.000"},
		{-5, "00:00:00,000", "00:00.000"},
	}
	for _, tc := range tests {
		if got := string(appendSRTTime(nil, tc.ms)); got != tc.srt {
			t.Errorf("SRT time %d = %q, want %q", tc.ms, got, tc.srt)
		}
		if got := string(appendVTTTime(nil, tc.ms)); got != tc.vtt {
			t.Errorf("VTT time %d = %q, want %q", tc.ms, got, tc.vtt)
		}
	}
}

func TestSRTFormat(t *testing.T) {
	tr := transcriptOf(evenWords("Tom & Jerry say <b>hi</b>. Bye.", 1000, ""))
	got := string(SRT(tr, 0))
	want := "1\n00:00:01,000 --> 00:00:02,900\nTom & Jerry say <b>hi</b>.\n\n" +
		"2\n00:00:03,000 --> 00:00:03,300\nBye.\n"
	if got != want {
		t.Errorf("SRT =\n%q\nwant\n%q", got, want)
	}
	if bytes.HasPrefix(SRT(tr, 0), []byte("\uFEFF")) {
		t.Error("SRT starts with a byte-order mark")
	}
}

func TestVTTFormat(t *testing.T) {
	tr := transcriptOf(evenWords("Tom & Jerry. Bye.", 1000, ""))
	got := string(VTT(tr, 0))
	want := "WEBVTT\n\n00:01.000 --> 00:02.100\nTom &amp; Jerry.\n\n00:02.200 --> 00:02.500\nBye.\n"
	if got != want {
		t.Errorf("VTT =\n%q\nwant\n%q", got, want)
	}
}

func TestCaptionsEmpty(t *testing.T) {
	for _, tr := range []*transcribe.Transcript{nil, {}, transcriptOf([]transcribe.Word{w("", 0, 10, ""), w(" \n", 20, 30, "")})} {
		if got := SRT(tr, 0); len(got) != 0 {
			t.Errorf("SRT of no words = %q, want empty", got)
		}
		if got := string(VTT(tr, 32)); got != "WEBVTT\n\n" {
			t.Errorf("VTT of no words = %q", got)
		}
	}
}

func TestCharsPerCaption(t *testing.T) {
	text := "the quick brown fox jumps over the lazy dog and keeps on running far away"
	tr := transcriptOf(evenWords(text, 0, ""))
	for limit := 1; limit <= 80; limit++ {
		cues := segment(tr.Words, rulesFor(limit))
		var all []string
		for _, c := range cues {
			if len(c.lines) != 1 {
				t.Fatalf("limit %d: cue with %d lines", limit, len(c.lines))
			}
			line := strings.Join(c.lines[0], " ")
			if n := utf8.RuneCountInString(line); n > limit {
				t.Errorf("limit %d: caption %q has %d characters", limit, line, n)
			}
			all = append(all, c.lines[0]...)
		}
		// Pieces of split words run together again without spaces.
		if strings.ReplaceAll(strings.Join(all, ""), " ", "") != strings.ReplaceAll(text, " ", "") {
			t.Fatalf("limit %d: words not covered once in order: %q", limit, all)
		}
	}
	// Greedy: with 20 characters, "the quick brown fox" (19) fills a caption.
	got := string(SRT(tr, 20))
	if !strings.Contains(got, "\nthe quick brown fox\n") || !strings.Contains(got, "\njumps over the lazy\n") {
		t.Errorf("greedy fill not as expected:\n%s", got)
	}
}

// TestOverLongWordSplit: a word longer than chars_per_caption is split
// across captions (issue 15 item 8: at 10, "respectable" was one caption of
// 11 characters), each piece taking its share of the word's time.
func TestOverLongWordSplit(t *testing.T) {
	tr := transcriptOf([]transcribe.Word{
		w("a", 0, 100, ""), w("extraordinarily", 200, 900, ""), w("b", 1000, 1100, ""), w("c", 1200, 1300, ""),
	})
	got := string(SRT(tr, 5))
	want := "1\n00:00:00,000 --> 00:00:00,100\na\n\n" +
		"2\n00:00:00,200 --> 00:00:00,433\nextra\n\n" +
		"3\n00:00:00,433 --> 00:00:00,666\nordin\n\n" +
		"4\n00:00:00,666 --> 00:00:00,900\narily\n\n" +
		"5\n00:00:01,000 --> 00:00:01,300\nb c\n"
	if got != want {
		t.Errorf("SRT =\n%s\nwant\n%s", got, want)
	}

	tr = transcriptOf(evenWords("a most respectable man", 0, ""))
	got = string(VTT(tr, 10))
	want = "WEBVTT\n\n00:00.000 --> 00:00.700\na most\n\n" +
		"00:00.800 --> 00:00.963\nrespec\n\n00:00.963 --> 00:01.100\ntable\n\n" +
		"00:01.200 --> 00:01.500\nman\n"
	if got != want {
		t.Errorf("VTT =\n%s\nwant\n%s", got, want)
	}

	// The default segmentation splits a word over 40 characters across
	// the two lines of one caption.
	long := "pneumonoultramicroscopicsilicovolcanoconiosis"
	tr = transcriptOf([]transcribe.Word{w(long, 1000, 2000, "")})
	if got, want := string(SRT(tr, 0)), "1\n00:00:01,000 --> 00:00:02,000\npneumonoultramicroscopi\ncsilicovolcanoconiosis\n"; got != want {
		t.Errorf("default SRT = %q, want %q", got, want)
	}
}

func TestSplitWord(t *testing.T) {
	for _, tc := range []struct {
		text  string
		limit int
		want  string // pieces joined by |
	}{
		{"respectable", 10, "respec|table"},
		{"respectable", 1, "r|e|s|p|e|c|t|a|b|l|e"},
		{"abcdefghij", 3, "abc|def|gh|ij"},
		// Inner spaces (a word that is a phrase) are preferred cuts.
		{"New York City Hall", 10, "New York|City Hall"},
		{"a bcdefghijklmnop", 4, "a|bcde|fghi|jklm|nop"},
		// No cut between a letter and its combining accent, inside an
		// emoji ZWJ sequence, or before a skin-tone modifier.
		{"abcde\u0301fgh", 5, "abcd|e\u0301fgh"},
		{"ab\U0001F469\u200D\U0001F4BBcd", 3, "ab|\U0001F469\u200D\U0001F4BB|cd"},
		{"abc\U0001F44D\U0001F3FDef", 4, "abc|\U0001F44D\U0001F3FDef"},
		// A cluster longer than the limit is cut anyway.
		{"e\u0301\u0301", 1, "e|\u0301|\u0301"},
		{"日本語のテキスト", 3, "日本語|のテキ|スト"},
	} {
		ps := splitWord(tc.text, 1000, 2000, tc.limit)
		var texts []string
		prev := int64(1000)
		for _, p := range ps {
			texts = append(texts, p.text)
			if n := utf8.RuneCountInString(p.text); n == 0 || n > tc.limit {
				t.Errorf("%q at %d: piece %q has %d runes", tc.text, tc.limit, p.text, n)
			}
			if p.start != prev || p.end < p.start {
				t.Errorf("%q at %d: piece %q at %d-%d after %d", tc.text, tc.limit, p.text, p.start, p.end, prev)
			}
			prev = p.end
		}
		if prev != 2000 {
			t.Errorf("%q at %d: pieces end at %d, want 2000", tc.text, tc.limit, prev)
		}
		if got := strings.Join(texts, "|"); got != tc.want {
			t.Errorf("splitWord(%q, %d) = %q, want %q", tc.text, tc.limit, got, tc.want)
		}
	}
	// A malformed word (end before start) gives pieces of no length.
	for _, p := range splitWord("abcdef", 500, 400, 2) {
		if p.start != 500 || p.end != 500 {
			t.Errorf("malformed word: piece %+v", p)
		}
	}
}

func TestCaptionBreaks(t *testing.T) {
	words := []transcribe.Word{
		w("one", 0, 300, "A"), w("two", 400, 700, "A"),
		w("three", 700+CaptionPauseMillis, 2500, "A"), // long pause before
		w("four", 2600, 2900, "B"),                    // speaker change
	}
	for _, limit := range []int{0, 100} {
		cues := segment(words, rulesFor(limit))
		var got []string
		for _, c := range cues {
			got = append(got, strings.Join(c.lines[0], " "))
		}
		if strings.Join(got, "|") != "one two|three|four" {
			t.Errorf("limit %d: cues %q, want one two|three|four", limit, got)
		}
	}
	// Default segmentation ends a caption at a sentence end; an explicit
	// limit does not.
	tr := transcriptOf(evenWords("Yes. No.", 0, ""))
	if got := strings.Count(string(SRT(tr, 0)), "-->"); got != 2 {
		t.Errorf("default: %d cues, want 2", got)
	}
	if got := strings.Count(string(SRT(tr, 32)), "-->"); got != 1 {
		t.Errorf("chars_per_caption 32: %d cues, want 1", got)
	}
}

func TestDefaultCueDurationAndLines(t *testing.T) {
	// Slow speech: one short word a second; no cue may span over 7 s.
	var ws []transcribe.Word
	for i := range 30 {
		ws = append(ws, w("la", int64(i)*1000, int64(i)*1000+500, ""))
	}
	for _, c := range segment(ws, rulesFor(0)) {
		if c.end-c.start > DefaultMaxCueMillis {
			t.Errorf("cue %d..%d spans more than %d ms", c.start, c.end, DefaultMaxCueMillis)
		}
	}
	// Fast speech: lines within 40 characters, at most two, balanced.
	text := strings.Repeat("word ", 40)
	var fast []transcribe.Word
	for i, f := range strings.Fields(text) {
		fast = append(fast, w(f, int64(i)*100, int64(i)*100+90, ""))
	}
	for _, c := range segment(fast, rulesFor(0)) {
		if len(c.lines) > DefaultMaxLines {
			t.Fatalf("cue with %d lines", len(c.lines))
		}
		for _, l := range c.lines {
			if n := utf8.RuneCountInString(strings.Join(l, " ")); n > DefaultLineChars {
				t.Errorf("line of %d characters", n)
			}
		}
		if len(c.lines) == 2 && absInt(len(c.lines[0])-len(c.lines[1])) > 1 {
			t.Errorf("unbalanced lines %q", c.lines)
		}
	}
}

func absInt(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func TestBalance(t *testing.T) {
	lines := [][]string{{"aaaa", "bb", "cc", "dd"}, {"e"}}
	got := balance(lines, 13)
	if len(got) != 2 || strings.Join(got[0], " ") != "aaaa bb" || strings.Join(got[1], " ") != "cc dd e" {
		t.Errorf("balance = %q", got)
	}
	one := [][]string{{"x"}}
	if got := balance(one, 5); len(got) != 1 {
		t.Errorf("balance of one line = %q", got)
	}
}

func TestCaptionTextCleaning(t *testing.T) {
	tr := transcriptOf([]transcribe.Word{
		w("line\nbreak", 0, 100, ""), w("a-->b", 200, 300, ""), w("\t", 400, 500, ""), w("end", 600, 700, ""),
	})
	got := string(SRT(tr, 0))
	want := "1\n00:00:00,000 --> 00:00:00,700\nline break a->b end\n"
	if got != want {
		t.Errorf("SRT = %q, want %q", got, want)
	}
}

func TestCueTimesMalformedWord(t *testing.T) {
	// A word that ends before it starts must not give a backwards cue.
	tr := transcriptOf([]transcribe.Word{w("odd", 5000, 4000, "")})
	if got, want := string(SRT(tr, 0)), "1\n00:00:05,000 --> 00:00:05,000\nodd\n"; got != want {
		t.Errorf("SRT = %q, want %q", got, want)
	}
}

func TestNegativeCharsPerCaptionIsDefault(t *testing.T) {
	tr := sample()
	if !bytes.Equal(SRT(tr, -3), SRT(tr, 0)) {
		t.Error("negative chars_per_caption differs from the default")
	}
}

func TestEndsSentence(t *testing.T) {
	for text, want := range map[string]bool{
		"end.": true, "why?": true, "wow!": true, `said."`: true, "(aside.)": true, "so…": true,
		"Mr.": false, "dr.": false, "e.g.": false, "end": false, "3.5": false, "list,": false, "": false, ".": true,
	} {
		if got := endsSentence(text); got != want {
			t.Errorf("endsSentence(%q) = %v, want %v", text, got, want)
		}
	}
}

func BenchmarkSRT(b *testing.B) {
	tr := longTranscript(20000)
	b.ReportAllocs()
	for b.Loop() {
		SRT(tr, 0)
	}
}

// longTranscript repeats the sample's first minute of speech n words long.
func longTranscript(n int) *transcribe.Transcript {
	base := sample().Words[:40]
	ws := make([]transcribe.Word, 0, n)
	var offset int64
	for len(ws) < n {
		for _, x := range base {
			x.Start += offset
			x.End += offset
			ws = append(ws, x)
		}
		offset += 30000
	}
	return transcriptOf(ws[:n])
}

// TestCleanTextArrows: every "-->" goes, as replacing it with "->" until
// none is left would do, in time linear in the word (a 400,000-dash word
// took minutes when it was replaced pass by pass).
func TestCleanTextArrows(t *testing.T) {
	naive := func(s string) string {
		for strings.Contains(s, "-->") {
			s = strings.ReplaceAll(s, "-->", "->")
		}
		return s
	}
	for _, s := range []string{"a-->b", "--->", "---->x-->", "-->-->", "->", "--", "a--b", "-- >", "x---", "<!-- -->", "a->b-->c--->d", strings.Repeat("-", 50) + ">"} {
		if got, want := cleanText(s), naive(s); got != want {
			t.Errorf("cleanText(%q) = %q, want %q", s, got, want)
		}
	}
	long := strings.Repeat("-", 400_000) + ">"
	if got := cleanText(long); got != "->" {
		t.Errorf("cleanText of 400,000 dashes and > = %.20q...", got)
	}
}
