package export

import (
	"strings"

	"github.com/earshot-dev/earshot/transcribe"
)

func ptr[T any](v T) *T { return &v }

// w builds a word; speaker "" means nil.
func w(text string, start, end int64, speaker string) transcribe.Word {
	word := transcribe.Word{Text: text, Start: start, End: end, Confidence: 0.9}
	if speaker != "" {
		word.Speaker = ptr(speaker)
	}
	return word
}

// evenWords turns "a b c" into words 300 ms long with 100 ms gaps from start,
// all of one speaker ("" for none).
func evenWords(text string, start int64, speaker string) []transcribe.Word {
	var ws []transcribe.Word
	for _, f := range strings.Fields(text) {
		ws = append(ws, w(f, start, start+300, speaker))
		start += 400
	}
	return ws
}

func transcriptOf(ws ...[]transcribe.Word) *transcribe.Transcript {
	var all []transcribe.Word
	for _, part := range ws {
		all = append(all, part...)
	}
	t := &transcribe.Transcript{ID: "5551722-f677-48a6-9287-39d0ebb73c12", Status: transcribe.StatusCompleted, Words: all}
	t.Fill()
	return t
}

// sample is the hand-made transcript behind the golden files: two speakers,
// punctuation, an abbreviation, HTML-like characters, a long pause, a word
// longer than 32 characters and a stretch past one hour.
func sample() *transcribe.Transcript {
	t := transcriptOf(
		evenWords("Hello, and welcome to the show. Today Mr. Smith joins us from New York.", 240, "A"),
		evenWords("Thanks! It's great to be here; R&D at <Acme> costs $25 million a year.", 6100, "B"),
		evenWords("Is that so? Tell me more about New York.", 12500, "A"),
		// After a long pause, one long word and a late remark.
		[]transcribe.Word{
			w("pneumonoultramicroscopicsilicovolcanoconiosis", 20000, 21500, "A"),
			w("is", 21600, 21700, "A"),
			w("a", 21750, 21800, "A"),
			w("word.", 21850, 22300, "A"),
		},
		evenWords("Seventy five minutes in, we are still talking about new york.", 4_502_000, "B"),
	)
	t.AudioDuration = ptr(4510.5)
	t.SpeechModelUsed = ptr("best")
	return t
}
