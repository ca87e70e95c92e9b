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
	want := "WEBVTT\n\n00:01.000 --> 00:02.100\nTom & Jerry.\n\n00:02.200 --> 00:02.500\nBye.\n"
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
			if n := utf8.RuneCountInString(line); n > limit && len(c.lines[0]) > 1 {
				t.Errorf("limit %d: caption %q has %d characters", limit, line, n)
			}
			all = append(all, c.lines[0]...)
		}
		if strings.Join(all, " ") != text {
			t.Fatalf("limit %d: words not covered once in order: %q", limit, all)
		}
	}
	// Greedy: with 20 characters, "the quick brown fox" (19) fills a caption.
	got := string(SRT(tr, 20))
	if !strings.Contains(got, "\nthe quick brown fox\n") || !strings.Contains(got, "\njumps over the lazy\n") {
		t.Errorf("greedy fill not as expected:\n%s", got)
	}
}

func TestOverLongWordOwnCaption(t *testing.T) {
	tr := transcriptOf([]transcribe.Word{
		w("a", 0, 100, ""), w("extraordinarily", 200, 900, ""), w("b", 1000, 1100, ""), w("c", 1200, 1300, ""),
	})
	got := string(SRT(tr, 5))
	want := "1\n00:00:00,000 --> 00:00:00,100\na\n\n" +
		"2\n00:00:00,200 --> 00:00:00,900\nextraordinarily\n\n" +
		"3\n00:00:01,000 --> 00:00:01,300\nb c\n"
	if got != want {
		t.Errorf("SRT =\n%s\nwant\n%s", got, want)
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
