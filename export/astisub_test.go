package export

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/asticode/go-astisub"

	"github.com/earshot-dev/earshot/transcribe"
)

// astisubRoundTrip fails t unless go-astisub reads out as cues
// (astisubMismatch).
func astisubRoundTrip(t *testing.T, format string, out []byte, cues []cue) {
	t.Helper()
	if err := astisubMismatch(format, out, cues); err != nil {
		t.Fatal(err)
	}
}

// astisubMismatch reads out (SRT or VTT) with github.com/asticode/go-astisub,
// an independent parser, and reports how what it finds differs from cues:
// the same number, the same times to the millisecond, the same lines.
//
// Text compared: every line, except lines that go-astisub reads as
// something other than cue text. Those are, in SRT, lines holding '<' or
// '&' (the reader runs lines through an HTML tokenizer: "<Acme>" is taken
// for a tag and dropped, "&amp;" is unescaped; SRT has no escapes, so this
// package writes its text as it is; VTT's text is escaped and compared)
// and, in VTT, lines that go-astisub takes for a
// block header wherever they appear (webvtt.go ReadFromWebVTT: a line
// starting with "NOTE ", "STYLE", "Region: " or "X-TIMESTAMP-MAP"). Such a
// line is still counted, and its cue's times are still compared.
func astisubMismatch(format string, out []byte, cues []cue) error {
	var subs *astisub.Subtitles
	var err error
	switch format {
	case "srt":
		subs, err = astisub.ReadFromSRT(bytes.NewReader(out))
	case "vtt":
		subs, err = astisub.ReadFromWebVTT(bytes.NewReader(out))
	default:
		return fmt.Errorf("format %q", format)
	}
	if err != nil {
		return fmt.Errorf("go-astisub cannot read our %s: %v\n%s", format, err, out)
	}
	if len(subs.Items) != len(cues) {
		return fmt.Errorf("go-astisub reads %d cues from our %s, we wrote %d:\n%s", len(subs.Items), format, len(cues), out)
	}
	for i, it := range subs.Items {
		c := cues[i]
		if it.StartAt != time.Duration(c.start)*time.Millisecond || it.EndAt != time.Duration(c.end)*time.Millisecond {
			return fmt.Errorf("%s cue %d: go-astisub reads %v --> %v, we wrote %d --> %d ms", format, i, it.StartAt, it.EndAt, c.start, c.end)
		}
		if !plainLines(format, c.lines) {
			continue
		}
		var got, want []string
		for _, l := range it.Lines {
			got = append(got, l.String())
		}
		for _, l := range c.lines {
			want = append(want, strings.Join(l, " "))
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			return fmt.Errorf("%s cue %d: go-astisub reads lines %q, we wrote %q", format, i, got, want)
		}
	}
	return nil
}

// plainLines reports whether go-astisub reads every line as cue text (see
// astisubRoundTrip).
func plainLines(format string, lines [][]string) bool {
	for _, l := range lines {
		s := strings.Join(l, " ")
		if format == "srt" && strings.ContainsAny(s, "<&") {
			return false
		}
		if format == "vtt" {
			for _, p := range []string{"NOTE ", "STYLE", "Region: ", "X-TIMESTAMP-MAP"} {
				if strings.HasPrefix(s, p) {
					return false
				}
			}
		}
	}
	return true
}

// TestCaptionsRoundTripAstisub: every caption file this package writes for
// the golden sample (default segmentation, 32 and 10 characters, and 5 for
// the split word) and for split words of every kind is read back by
// go-astisub as the cues we wrote.
func TestCaptionsRoundTripAstisub(t *testing.T) {
	t.Parallel()
	split := transcriptOf(
		evenWords("a most respectable man", 0, "A"),
		[]transcribe.Word{
			w("New\tYork\tCity\tHall", 2000, 3000, "A"),
			w("café\u0301s-and-crème-brûlée", 3100, 4200, "B"),
			w("\U0001F469\u200D\U0001F4BB\U0001F469\u200D\U0001F4BB", 4300, 4400, "B"),
			w("pneumonoultramicroscopicsilicovolcanoconiosis", 3_600_000, 3_601_500, "B"),
		},
	)
	for _, tr := range []*transcribe.Transcript{sample(), split} {
		for _, limit := range []int{0, 1, 5, 10, 32} {
			cues := segment(tr.Words, rulesFor(limit))
			astisubRoundTrip(t, "srt", SRT(tr, limit), cues)
			astisubRoundTrip(t, "vtt", VTT(tr, limit), cues)
		}
	}
}

// TestAstisubRoundTripCatches makes sure the round-trip check fails on
// captions that differ from the cues, so that its passing means something.
func TestAstisubRoundTripCatches(t *testing.T) {
	t.Parallel()
	tr := transcriptOf(evenWords("one two three four five six", 0, ""))
	cues := segment(tr.Words, rulesFor(10))
	for name, out := range map[string][]byte{
		"time":  bytes.Replace(SRT(tr, 10), []byte("00:00:00,700"), []byte("00:00:00,701"), 1),
		"text":  bytes.Replace(SRT(tr, 10), []byte("three"), []byte("thr33"), 1),
		"cue":   bytes.Replace(SRT(tr, 10), []byte("\n\n2\n"), []byte("\n"), 1),
		"lines": bytes.Replace(SRT(tr, 10), []byte("one two"), []byte("one\ntwo"), 1),
	} {
		if astisubMismatch("srt", out, cues) == nil {
			t.Errorf("%s: the round trip accepted altered captions:\n%s", name, out)
		}
	}
}
