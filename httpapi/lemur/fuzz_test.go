package lemur

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzPack: the parts hold every word of the input in order, none is
// longer than the budget (in characters, with its transcript's label
// line), and each line of a part is valid UTF-8.
func FuzzPack(f *testing.F) {
	f.Add("Speaker A: hello there. How are you?\nSpeaker B: fine", 210)
	f.Add(strings.Repeat("word ", 500), 200)
	f.Add(strings.Repeat("ééé", 900)+". ok", 250)
	f.Fuzz(func(t *testing.T, text string, budget int) {
		if !utf8.ValidString(text) || budget < minPartTokens || budget > 5000 {
			return
		}
		srcs := []source{{label: "Transcript 1", lines: strings.Split(text, "\n")}, {label: "Transcript 2", lines: []string{text}}}
		parts := pack(srcs, budget)
		var got []string
		for _, p := range parts {
			if n := utf8.RuneCountInString(p); n > budget*charsPerToken {
				t.Fatalf("part of %d characters over %d", n, budget*charsPerToken)
			}
			for _, l := range strings.Split(p, "\n") {
				if strings.HasPrefix(l, "=== Transcript ") {
					continue
				}
				got = append(got, strings.Fields(l)...)
			}
		}
		want := append(strings.Fields(text), strings.Fields(text)...)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			// A word longer than a part is cut between characters.
			if strings.Join(got, "") != strings.Join(want, "") {
				t.Fatalf("words changed:\n got %q\nwant %q", got, want)
			}
		}
	})
}

// FuzzParseAnswers: any model output either gives one non-empty answer
// per question (an option when there are options) or ErrUnusable, never
// a panic.
func FuzzParseAnswers(f *testing.F) {
	f.Add(`{"answers": [{"question": "q", "answer": "Yes."}]}`, true)
	f.Add("```json\n[{\"answer\": 3}]\n```", false)
	f.Add(`<think>{"answers":[]}</think>{"answers":[{"answer":"no"}]}`, true)
	f.Add(`{"answers": [{"answer": null}]}`, false)
	f.Fuzz(func(t *testing.T, out string, options bool) {
		q := "Is it?"
		qs := []question{{Question: &q}}
		if options {
			qs[0].AnswerOptions = []string{"Yes", "No"}
		}
		res, err := parseAnswers(out, qs)
		if err != nil {
			return
		}
		if len(res) != 1 || res[0].Question != q || strings.TrimSpace(res[0].Answer) == "" {
			t.Fatalf("answers %+v", res)
		}
		if options && res[0].Answer != "Yes" && res[0].Answer != "No" {
			t.Fatalf("answer %q is not an option", res[0].Answer)
		}
	})
}

// TestPackLinear: cutting a long line is linear in its length (it was
// quadratic: the rest of the line was counted again for every piece).
func TestPackLinear(t *testing.T) {
	t.Parallel()
	text := strings.Repeat("a", 4<<20)
	start := time.Now()
	parts := pack([]source{{lines: []string{text}}}, minPartTokens)
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("packing 4 MiB took %v", el)
	}
	if len(parts) < (4<<20)/(minPartTokens*charsPerToken) {
		t.Errorf("%d parts", len(parts))
	}
}
