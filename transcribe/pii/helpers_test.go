package pii

import (
	"fmt"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
)

// words makes words of a formatted sentence, 300 ms each.
func words(text string) []transcribe.Word {
	var ws []transcribe.Word
	for i, f := range strings.Fields(text) {
		ws = append(ws, transcribe.Word{Text: f, Start: int64(i) * 300, End: int64(i)*300 + 250, Confidence: 0.9})
	}
	return ws
}

// show renders entities as "type:text" joined by " | ".
func show(es []transcribe.Entity) string {
	var s []string
	for _, e := range es {
		s = append(s, fmt.Sprintf("%s:%s", e.EntityType, e.Text))
	}
	return strings.Join(s, " | ")
}

func detect(t testing.TB, text string) string {
	t.Helper()
	return show(Detector{}.Detect(words(text)))
}
