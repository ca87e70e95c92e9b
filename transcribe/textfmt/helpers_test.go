package textfmt

import (
	"strings"

	"github.com/earshot-dev/earshot/transcribe"
)

// words builds a transcript from spoken text: each word lasts 200 ms with a
// 20 ms gap; "/" inserts a 350 ms pause (a comma pause) and "//" an 800 ms
// pause (a sentence pause) before the next word. Confidence is 0.9.
func words(spoken string) []transcribe.Word {
	var ws []transcribe.Word
	at := int64(0)
	for _, f := range strings.Fields(spoken) {
		switch f {
		case "/":
			at += 350 - 20
			continue
		case "//":
			at += 800 - 20
			continue
		}
		ws = append(ws, transcribe.Word{Text: f, Start: at, End: at + 200, Confidence: 0.9})
		at += 220
	}
	return ws
}

func text(ws []transcribe.Word) string { return transcribe.JoinWords(ws) }

func params(mod func(p *transcribe.TranscriptParams)) *transcribe.TranscriptParams {
	p := &transcribe.TranscriptParams{AudioURL: "https://example.com/a.wav"}
	if mod != nil {
		mod(p)
	}
	p.Normalize()
	return p
}
