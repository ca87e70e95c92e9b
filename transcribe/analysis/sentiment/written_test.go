package sentiment

import (
	"testing"

	"github.com/earshot-dev/earshot/transcribe/analysis/nlp"
)

// TestWritten checks which sentences are read as written text (plain
// VADER) rather than speech.
func TestWritten(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]bool{
		"Spongebob taught me everything I know :D":       true,
		"Bye bye Hanoi :-(":                              true,
		"<3 not as much as you":                          true,
		"@anonymous I got stung by customs this year":    true,
		"Loving the new #Ubuntu release":                 true,
		"Read it at http://url_removed":                  true,
		"Thanks, the new plan is great!":                 false,
		"We finished #1 in the region this quarter.":     false,
		"Write to support@example.com about the refund.": false,
		"I like it, well, sort of.":                      false,
		"The FBI said (in a statement) that it's fine.":  false,
		"Call me at 10:30.":                              false,
	} {
		if got := written(nlp.Tokens(wordsOf(text))); got != want {
			t.Errorf("written(%q) = %v, want %v", text, got, want)
		}
	}
	// A written sentence is read as VADER reads it: ":D" is positive,
	// although the speech rules drop emoticons.
	for text, want := range map[string]string{
		"Spongebob taught me everything I know :D":  Positive,
		"just burned my lip on a slice of pizza :(": Negative,
	} {
		r, err := Analyzer{}.Classify(text)
		if err != nil || r.Sentiment != want {
			t.Errorf("Classify(%q) = %+v, %v; want %s", text, r, err, want)
		}
	}
}
