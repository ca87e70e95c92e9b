package universal

import (
	"time"

	"github.com/earshot-dev/earshot/realtime/engine"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/textfmt/punctmodel"
)

// modelTurnEnd is the end-of-turn probability of the punctuation model
// (punctmodel.Model.TurnEnd): the probability that a sentence ends after
// the turn's last word, from the words before it and the pause so far. It
// is Config.Engine.TurnEnd when that is nil (with punctmodel.Default()).
func modelTurnEnd(m *punctmodel.Model) engine.TurnEndFunc {
	return func(words []transcribe.Word, pause time.Duration) float64 {
		ws := make([]string, len(words))
		for i, w := range words {
			ws[i] = punctmodel.Normalize(w.Text)
		}
		return m.TurnEnd(ws, pause.Milliseconds())
	}
}
