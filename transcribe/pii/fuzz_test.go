package pii

import (
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
)

// FuzzDetect checks that detection and redaction never panic and always
// return well-formed, ordered, non-overlapping spans of known types.
func FuzzDetect(f *testing.F) {
	for _, c := range detectCases {
		f.Add(c.text)
	}
	f.Add("( ) $ @ . - 1 2 3 dot dot at www")
	f.Add("my name is")
	f.Add("from June 3rd to")
	f.Add("my name is|Sarah||,|555-1234|")
	f.Add("|$|(555)|123-4567||January|5th,|1985")
	f.Fuzz(func(t *testing.T, text string) {
		// "|" separates words exactly, so empty and spaced words occur.
		var ws []transcribe.Word
		if strings.Contains(text, "|") {
			for i, part := range strings.Split(text, "|") {
				ws = append(ws, transcribe.Word{Text: part, Start: int64(i) * 100, End: int64(i)*100 + 90})
			}
		} else {
			ws = words(text)
		}
		spans := Detector{}.Spans(ws)
		prev := 0
		for _, s := range spans {
			if s.From < prev || s.To <= s.From || s.To > len(ws) {
				t.Fatalf("bad span %+v (previous end %d) over %d words", s, prev, len(ws))
			}
			if !contains(transcribe.PIIPolicies(), s.Type) {
				t.Fatalf("unknown type %q", s.Type)
			}
			prev = s.To
		}
		for _, sub := range []string{SubHash, SubEntityName} {
			out, os := Redact(ws, spans, transcribe.PIIPolicies(), sub)
			if len(os) != len(spans) {
				t.Fatalf("%d spans after redaction, %d before", len(os), len(spans))
			}
			for _, s := range os {
				for _, w := range out[s.From:s.To] {
					if _, core, _ := splitPunct(w.Text); sub == SubHash && strings.Trim(core, "#") != "" {
						t.Fatalf("word %q of a redacted span is not hashed", w.Text)
					}
				}
			}
		}
	})
}
