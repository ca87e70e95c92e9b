package llm

import (
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
)

// FuzzTidy checks that any model answer is either shaped as its summary
// type requires or rejected with an error, never a panic.
func FuzzTidy(f *testing.F) {
	for _, s := range []string{"Here is a summary:\n* a\n* b", "```\n1. x\n2) y\n```", "<think>x</think>Gist.", "\"Headline\"", "", "-\n- \n•", "\"\r\"", "<ul><li>a</li><li><script>x</script>b</li></ul>", "[a](b) ![c](d) `e` __f__", "a\x1b]0;t\x07b\u202ec", "<<<<<<<<<<b>b>b>b>b>b>b>b>b>b>x"} {
		f.Add(s, uint8(0))
	}
	types := []transcribe.SummaryType{transcribe.SummaryBullets, transcribe.SummaryBulletsVerbose, transcribe.SummaryGist, transcribe.SummaryHeadline, transcribe.SummaryParagraph}
	f.Fuzz(func(t *testing.T, s string, k uint8) {
		typ := types[int(k)%len(types)]
		out, err := tidy(typ, s)
		if err != nil {
			return
		}
		if strings.TrimSpace(out) == "" {
			t.Fatalf("%s: empty output for %q", typ, s)
		}
		if htmlTag.MatchString(out) || mdLink.MatchString(out) || strings.ContainsAny(out, "`\r\x1b\u202e") || strings.Contains(out, "**") {
			t.Fatalf("%s: markup or control characters in %q from %q", typ, out, s)
		}
		switch typ {
		case transcribe.SummaryBullets, transcribe.SummaryBulletsVerbose:
			for _, l := range strings.Split(out, "\n") {
				if !strings.HasPrefix(l, "- ") || strings.TrimSpace(l[2:]) == "" {
					t.Fatalf("bad bullet %q from %q", l, s)
				}
			}
		case transcribe.SummaryGist:
			if n := len(strings.Fields(out)); n > maxGistWords || strings.ContainsAny(out, "\r\n") {
				t.Fatalf("gist %q from %q", out, s)
			}
		default:
			if strings.ContainsAny(out, "\r\n") {
				t.Fatalf("%s on several lines: %q", typ, out)
			}
		}
	})
}

// FuzzParseChapter checks that any answer gives a complete chapter or an
// error.
func FuzzParseChapter(f *testing.F) {
	for _, s := range []string{`{"gist":"a","headline":"b","summary":"c"}`, `{"gist":"\u003cb\u003ea","headline":"[b](c)","summary":"\u001b[2Jc\r"}`, "```json\n{\"gist\":1}\n```", "{", "}{", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ct, err := parseChapter(s)
		if err == nil && (ct.Gist == "" || ct.Headline == "" || ct.Summary == "") {
			t.Fatalf("incomplete chapter %+v from %q", ct, s)
		}
		for _, f := range []string{ct.Gist, ct.Headline, ct.Summary} {
			if htmlTag.MatchString(f) || mdLink.MatchString(f) || strings.ContainsAny(f, "`\r\n\x1b\u202e") {
				t.Fatalf("markup or control characters in %+v from %q", ct, s)
			}
		}
	})
}
