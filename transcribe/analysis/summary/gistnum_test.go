package summary

import (
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp/nlptest"
)

// TestGistKeepsTheNumberOfAUnit checks that a gist does not begin with a
// unit whose number was cut off ("year deal" for "a four year deal").
func TestGistKeepsTheNumberOfAUnit(t *testing.T) {
	t.Parallel()
	text := "The athletics body has agreed a four year deal with a sportswear firm. " +
		"The four year deal covers squads of all ages. " +
		"Officials say the four year deal is worth millions and starts in April."
	g := NewTextFromTranscript(nlptest.Transcript(nlptest.Words(text))).Gist(transcribe.SummaryInformative)
	if f := strings.Fields(strings.ToLower(g)); len(f) > 0 && genericNouns[f[0]] {
		t.Errorf("gist %q starts with a unit without its number", g)
	}
	t.Logf("gist %q", g)
}
