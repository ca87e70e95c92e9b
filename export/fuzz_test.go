package export

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/earshot-dev/earshot/transcribe"
)

// fuzzWords builds words from space-separated text (empty and odd words
// included) with monotonic, non-overlapping times and speakers drawn from
// shape.
func fuzzWords(text string, shape []byte) []transcribe.Word {
	if len(shape) == 0 {
		shape = []byte{7}
	}
	parts := strings.Split(text, " ")
	if len(parts) > 2000 {
		parts = parts[:2000]
	}
	ws := make([]transcribe.Word, 0, len(parts))
	var at int64
	for i, p := range parts {
		b := shape[i%len(shape)]
		at += int64(b) * 13 // gaps up to ~3.3 s: pauses of every length
		dur := int64(shape[(i+1)%len(shape)]%64) * 10
		word := transcribe.Word{Text: p, Start: at, End: at + dur, Confidence: float64(b) / 255}
		if b%5 == 0 {
			word.Speaker = ptr("B")
		} else {
			word.Speaker = ptr("A")
		}
		if b%11 == 0 {
			word.Channel = ptr("2")
		}
		ws = append(ws, word)
		at += dur
	}
	return ws
}

var (
	srtTiming = regexp.MustCompile(`^(\d{2,}):([0-5]\d):([0-5]\d),(\d{3}) --> (\d{2,}):([0-5]\d):([0-5]\d),(\d{3})$`)
	vttTiming = regexp.MustCompile(`^(?:(0[1-9]|[1-9]\d+):)?([0-5]\d):([0-5]\d)\.(\d{3}) --> (?:(0[1-9]|[1-9]\d+):)?([0-5]\d):([0-5]\d)\.(\d{3})$`)
)

func atoi(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }

// parsedCue is a cue read back from rendered output.
type parsedCue struct {
	start, end int64
	lines      []string
}

// parseSRT reads SRT output strictly: numbers from 1, timing lines, at least
// one non-empty text line, one blank line between cues, final newline.
func parseSRT(out []byte) ([]parsedCue, error) {
	if len(out) == 0 {
		return nil, nil
	}
	if !bytes.HasSuffix(out, []byte("\n")) || bytes.HasSuffix(out, []byte("\n\n")) {
		return nil, fmt.Errorf("output must end with exactly one newline")
	}
	var cues []parsedCue
	for i, block := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n\n") {
		lines := strings.Split(block, "\n")
		if len(lines) < 3 {
			return nil, fmt.Errorf("cue %d: %q too short", i+1, block)
		}
		if lines[0] != strconv.Itoa(i+1) {
			return nil, fmt.Errorf("cue %d numbered %q", i+1, lines[0])
		}
		m := srtTiming.FindStringSubmatch(lines[1])
		if m == nil {
			return nil, fmt.Errorf("cue %d timing %q", i+1, lines[1])
		}
		c := parsedCue{
			start: atoi(m[1])*3_600_000 + atoi(m[2])*60_000 + atoi(m[3])*1000 + atoi(m[4]),
			end:   atoi(m[5])*3_600_000 + atoi(m[6])*60_000 + atoi(m[7])*1000 + atoi(m[8]),
			lines: lines[2:],
		}
		cues = append(cues, c)
	}
	return cues, nil
}

// parseVTT reads VTT output strictly: the WEBVTT header and blank line, then
// cues of a timing line and text lines separated by single blank lines.
func parseVTT(out []byte) ([]parsedCue, error) {
	body, ok := bytes.CutPrefix(out, []byte("WEBVTT\n\n"))
	if !ok {
		return nil, fmt.Errorf("no WEBVTT header")
	}
	if len(body) == 0 {
		return nil, nil
	}
	if !bytes.HasSuffix(body, []byte("\n")) || bytes.HasSuffix(body, []byte("\n\n")) {
		return nil, fmt.Errorf("output must end with exactly one newline")
	}
	var cues []parsedCue
	for i, block := range strings.Split(strings.TrimSuffix(string(body), "\n"), "\n\n") {
		lines := strings.Split(block, "\n")
		m := vttTiming.FindStringSubmatch(lines[0])
		if m == nil || len(lines) < 2 {
			return nil, fmt.Errorf("cue %d: %q", i+1, block)
		}
		for _, l := range lines[1:] {
			// Players read a raw < as the start of a tag.
			if strings.Contains(l, "<") {
				return nil, fmt.Errorf("cue %d: raw < in cue text %q", i+1, l)
			}
		}
		cues = append(cues, parsedCue{
			start: atoi(m[1])*3_600_000 + atoi(m[2])*60_000 + atoi(m[3])*1000 + atoi(m[4]),
			end:   atoi(m[5])*3_600_000 + atoi(m[6])*60_000 + atoi(m[7])*1000 + atoi(m[8]),
			lines: unescapeAll(lines[1:]),
		})
	}
	return cues, nil
}

// unescapeAll decodes the character references of VTT cue text (&amp;,
// &lt;, ...; WebVTT's are HTML's) with the standard library's decoder.
func unescapeAll(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = html.UnescapeString(l)
	}
	return out
}

func FuzzCaptions(f *testing.F) {
	f.Add("Hello, and welcome. Today we talk about New York.", []byte{10, 20, 200, 5, 90}, 0)
	f.Add("a bb ccc dddd eeeee ffffff", []byte{1, 2, 3}, 3)
	f.Add("pneumonoultramicroscopicsilicovolcanoconiosis is long", []byte{50}, 10)
	f.Add("a most respectable man", []byte{4, 8}, 10)
	f.Add("odd\nword  with--> arrows\t and\r\nbreaks", []byte{0, 255, 128}, 32)
	f.Add("Ünïcödé wörds ünd 日本語 テキスト", []byte{30, 40}, 7)
	f.Add("tab\tinside\ta\tvery\tlong\tword e\u0301\u0301\u0301 \U0001F469\u200D\U0001F4BB\U0001F469\u200D\U0001F4BB", []byte{9, 250}, 2)
	f.Add("an-extremely-long-hyphenated-compound-that-runs-past-forty-characters here", []byte{100, 3}, 0)
	f.Add("", []byte{}, 5)
	f.Add("Q&A <Acme> &amp; a<b", []byte{7, 70}, 12)
	f.Fuzz(func(t *testing.T, text string, shape []byte, limit int) {
		if !utf8.ValidString(text) {
			return
		}
		limit %= 100
		ws := fuzzWords(text, shape)
		tr := &transcribe.Transcript{Words: ws}
		r := rulesFor(limit)
		cues := segment(ws, r)
		checkCues(t, ws, r, cues)

		// The rendered forms read back to the same cues, with this
		// package's strict readers and with go-astisub.
		srtOut, vttOut := SRT(tr, limit), VTT(tr, limit)
		srt, err := parseSRT(srtOut)
		if err != nil {
			t.Fatalf("SRT: %v\n%s", err, srtOut)
		}
		vtt, err := parseVTT(vttOut)
		if err != nil {
			t.Fatalf("VTT: %v\n%s", err, vttOut)
		}
		if len(srt) != len(cues) || len(vtt) != len(cues) {
			t.Fatalf("%d cues, SRT %d, VTT %d", len(cues), len(srt), len(vtt))
		}
		for i, c := range cues {
			var lines []string
			for _, l := range c.lines {
				lines = append(lines, strings.Join(l, " "))
			}
			for _, p := range []parsedCue{srt[i], vtt[i]} {
				if p.start != c.start || p.end != c.end || strings.Join(p.lines, "\n") != strings.Join(lines, "\n") {
					t.Fatalf("cue %d read back as %+v, want %d-%d %q", i, p, c.start, c.end, lines)
				}
			}
		}
		astisubRoundTrip(t, "srt", srtOut, cues)
		astisubRoundTrip(t, "vtt", vttOut, cues)
	})
}

// checkCues checks the segmentation of ws under r: every line within
// r.lineChars runes, whatever the words; 1..r.maxLines non-empty lines per
// cue; every word whose cleaned text is not empty shown once, in order,
// either whole or — when it is longer than a line — in pieces that take a
// line each and run together (spaces aside) into the word; cue times from
// the first word's start (or the piece's share of the word) to the last
// word's end, never backwards, never overlapping.
func checkCues(t *testing.T, ws []transcribe.Word, r captionRules, cues []cue) {
	t.Helper()
	type kept struct {
		text       string
		start, end int64
	}
	var want []kept
	for _, x := range ws {
		if c := cleanText(x.Text); c != "" {
			want = append(want, kept{c, x.Start, x.End})
		}
	}
	noSpace := func(s string) string { return strings.ReplaceAll(s, " ", "") }
	within := func(v int64, k kept) bool { return v >= k.start && v <= k.start+max(k.end-k.start, 0) }
	k := 0      // the word being shown
	shown := "" // of a word being shown in pieces: its pieces so far
	var prevEnd int64
	for ci, c := range cues {
		if len(c.lines) == 0 || len(c.lines) > r.maxLines {
			t.Fatalf("cue %d has %d lines", ci, len(c.lines))
		}
		first, midWord := k, shown != ""
		for _, line := range c.lines {
			if len(line) == 0 {
				t.Fatalf("cue %d has an empty line", ci)
			}
			if n := utf8.RuneCountInString(strings.Join(line, " ")); n > r.lineChars {
				t.Fatalf("cue %d: line %q has %d > %d characters", ci, line, n, r.lineChars)
			}
			for _, item := range line {
				if k >= len(want) {
					t.Fatalf("cue %d: extra item %q", ci, item)
				}
				if strings.ContainsAny(item, "\n\r") || strings.Contains(item, "-->") {
					t.Fatalf("unsafe caption text %q", item)
				}
				word := want[k].text
				if utf8.RuneCountInString(word) <= r.lineChars {
					if item != word || shown != "" {
						t.Fatalf("cue %d: %q where word %d %q was due (pieces shown %q)", ci, item, k, word, shown)
					}
					k++
					continue
				}
				if len(line) != 1 || item == "" || strings.TrimSpace(item) != item {
					t.Fatalf("cue %d: piece %q of %q shares its line or has edge spaces: %q", ci, item, word, line)
				}
				shown += noSpace(item)
				if !strings.HasPrefix(noSpace(word), shown) {
					t.Fatalf("cue %d: pieces %q do not spell %q", ci, shown, word)
				}
				if shown == noSpace(word) {
					shown = ""
					k++
				}
			}
		}
		switch {
		case c.start < prevEnd || c.end < c.start:
			t.Fatalf("cue %d at %d-%d after the previous cue's end %d", ci, c.start, c.end, prevEnd)
		case midWord && (c.start != prevEnd || !within(c.start, want[first])):
			t.Fatalf("cue %d continues %q at %d, the previous piece ended at %d", ci, want[first].text, c.start, prevEnd)
		case !midWord && c.start != want[first].start:
			t.Fatalf("cue %d starts at %d, its first word %q at %d", ci, c.start, want[first].text, want[first].start)
		case shown == "" && c.end != max(want[k-1].end, c.start):
			t.Fatalf("cue %d ends at %d, its last word %q at %d", ci, c.end, want[k-1].text, want[k-1].end)
		case shown != "" && !within(c.end, want[k]):
			t.Fatalf("cue %d ends at %d, outside the word %q it splits", ci, c.end, want[k].text)
		}
		prevEnd = c.end
	}
	if k != len(want) || shown != "" {
		t.Fatalf("captions show %d of %d words (pieces left %q)", k, len(want), shown)
	}
}

func FuzzSearch(f *testing.F) {
	f.Add("Hello, New York. new york costs $25 hello", "new york,hello,$25,absent")
	f.Add("la la la la", "la la, la ,LA")
	f.Add("rock & roll - rock roll", "rock & roll")
	f.Add("", "")
	f.Add("don't stop", "don’t,,  ,a b c d e f")
	f.Fuzz(func(t *testing.T, text, raw string) {
		ws := fuzzWords(text, []byte{3, 9, 27})
		tr := &transcribe.Transcript{ID: "id", Words: ws}
		terms, err := ParseSearchTerms(raw)
		if err != nil {
			if _, ok := err.(*transcribe.ParamError); !ok {
				t.Fatalf("error %T %v is not a ParamError", err, err)
			}
			terms = strings.Split(raw, ",") // Search must cope with anything
		}
		for _, term := range terms {
			if err == nil && (strings.TrimSpace(term) == "" || len(strings.Fields(term)) > MaxSearchPhraseWords) {
				t.Fatalf("ParseSearchTerms accepted %q", term)
			}
		}
		r := Search(tr, terms)
		if r.ID != "id" || r.Matches == nil {
			t.Fatalf("bad response %+v", r)
		}
		// Keys of the searchable words, to recount independently.
		var keys []string
		var wordOf []int
		for i, x := range ws {
			if k := normalize(x.Text); k != "" {
				keys = append(keys, k)
				wordOf = append(wordOf, i)
			}
		}
		var total int64
		for _, m := range r.Matches {
			total += m.Count
			if m.Count <= 0 || int64(len(m.Indexes)) != m.Count || int64(len(m.Timestamps)) != m.Count {
				t.Fatalf("inconsistent match %+v", m)
			}
			var phrase []string
			for _, f := range strings.Fields(m.Text) {
				if k := normalize(f); k != "" {
					phrase = append(phrase, k)
				}
			}
			// Naive non-overlapping recount.
			var idx []int64
			var spans [][2]int64
			for p := 0; p+len(phrase) <= len(keys); {
				if strings.Join(keys[p:p+len(phrase)], " ") == strings.Join(phrase, " ") {
					idx = append(idx, int64(wordOf[p]))
					spans = append(spans, [2]int64{ws[wordOf[p]].Start, ws[wordOf[p+len(phrase)-1]].End})
					p += len(phrase)
				} else {
					p++
				}
			}
			if fmt.Sprint(idx) != fmt.Sprint(m.Indexes) || fmt.Sprint(spans) != fmt.Sprint(m.Timestamps) {
				t.Fatalf("match %q: indexes %v timestamps %v, recount %v %v", m.Text, m.Indexes, m.Timestamps, idx, spans)
			}
		}
		if total != r.TotalCount {
			t.Fatalf("total_count %d, sum of counts %d", r.TotalCount, total)
		}
		for i := 1; i < len(r.Matches); i++ {
			if r.Matches[i].Count > r.Matches[i-1].Count {
				t.Fatal("matches not ordered by count")
			}
		}
	})
}

// TestParseHelpers makes sure the fuzz readers reject broken output, so a
// passing fuzz run means something.
func TestParseHelpers(t *testing.T) {
	bad := []string{
		"1\n00:00:00,000 --> 00:00:01,000\n",                                             // no text
		"2\n00:00:00,000 --> 00:00:01,000\nx\n",                                          // wrong number
		"\ufeff1\n00:00:00,000 --> 00:00:01,000\nx\n",                                    // BOM
		"1\n00:00:00.000 --> 00:00:01,000\nx\n",                                          // VTT separator
		"1\n00:00:00,000 --> 00:00:01,000\nx\n\n",                                        // trailing blank line
		"1\n00:00:00,000 --> 00:00:01,000\nx\n\n\n2\n00:00:01,000 --> 00:00:02,000\ny\n", // two blank lines
	}
	for _, s := range bad {
		if _, err := parseSRT([]byte(s)); err == nil {
			t.Errorf("parseSRT accepted %q", s)
		}
	}
	for _, s := range []string{"WEBVTT\n00:00.000 --> 00:01.000\nx\n", "WEBVTT\n\n00:00:00.000 --> 00:01.000\nx\n"} {
		if _, err := parseVTT([]byte(s)); err == nil {
			t.Errorf("parseVTT accepted %q", s)
		}
	}
	if cues, err := parseSRT(SRT(sample(), 0)); err != nil || len(cues) != 9 {
		t.Errorf("sample SRT read back as %d cues, %v", len(cues), err)
	}
	if cues, err := parseVTT(VTT(sample(), 32)); err != nil || len(cues) != 13 || cues[12].end != 4_506_300 {
		t.Errorf("sample VTT read back as %+v, %v", cues, err)
	}
}
