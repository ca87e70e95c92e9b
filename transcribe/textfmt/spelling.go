package textfmt

import (
	"context"
	"strings"

	"github.com/earshot-dev/earshot/transcribe"
)

// CustomSpelling is the custom_spelling stage. Each `from` phrase (at most
// transcribe.MaxCustomSpellingWords words) is matched case-insensitively on
// the normalised words, ignoring attached punctuation, and the matched words
// become the single word `to`, written exactly as given. The new word spans
// the replaced words' time, takes their mean confidence and keeps the
// trailing punctuation of the last replaced word ("sarah." -> "Sara.").
// Longer phrases win over shorter ones; among equal phrases the first
// entry wins. A phrase never spans a sentence end or a change of speaker or
// channel.
//
// It runs after formatting, so its `to` spelling is what every later stage
// (profanity filter, redaction, analyses) sees. The zero value is ready to
// use and safe for concurrent use.
type CustomSpelling struct{}

// Name returns "custom_spelling".
func (CustomSpelling) Name() string { return "custom_spelling" }

// Enabled reports whether custom_spelling has entries.
func (CustomSpelling) Enabled(p *transcribe.TranscriptParams) bool {
	return p != nil && len(p.CustomSpelling) > 0
}

// Apply rewrites job.Transcript.Words with the transcript's own
// custom_spelling parameter.
func (c CustomSpelling) Apply(ctx context.Context, job *transcribe.Job) error {
	if job == nil || job.Transcript == nil {
		return nil
	}
	job.Transcript.Words = c.Respell(job.Transcript.Words, job.Transcript.CustomSpelling)
	return ctx.Err()
}

// Respell returns ws with the spellings applied. The input slice is not
// modified.
func (CustomSpelling) Respell(ws []transcribe.Word, spellings []transcribe.CustomSpelling) []transcribe.Word {
	phrases := map[string]string{}
	longest := 0
	for _, cs := range spellings {
		to := strings.TrimSpace(cs.To)
		if to == "" {
			continue
		}
		for _, from := range cs.From {
			var key []string
			for _, f := range strings.Fields(from) {
				if n := norm(f); n != "" {
					key = append(key, n)
				}
			}
			if len(key) == 0 || len(key) > transcribe.MaxCustomSpellingWords {
				continue
			}
			k := strings.Join(key, " ")
			if _, dup := phrases[k]; !dup {
				phrases[k] = to
			}
			longest = max(longest, len(key))
		}
	}
	if len(phrases) == 0 || len(ws) == 0 {
		return ws
	}
	return perChannel(ws, func(ws []transcribe.Word) []transcribe.Word { return respell(ws, phrases, longest) })
}

func respell(ws []transcribe.Word, phrases map[string]string, longest int) []transcribe.Word {
	t := norms(ws)
	out := make([]transcribe.Word, 0, len(ws))
	for i := 0; i < len(ws); {
		// How far a phrase starting at i may reach.
		room := 1
		for room < longest && i+room < len(ws) && !endsSentence(ws[i+room-1].Text) && sameSide(ws[i], ws[i+room]) {
			room++
		}
		n, to := 0, ""
		for k := room; k >= 1 && n == 0; k-- {
			if t[i+k-1] == "" || t[i] == "" {
				continue
			}
			if v, ok := phrases[strings.Join(t[i:i+k], " ")]; ok {
				n, to = k, v
			}
		}
		if n == 0 {
			out = append(out, ws[i])
			i++
			continue
		}
		_, punct := trailingPunct(ws[i+n-1].Text)
		if strings.HasSuffix(to, ".") {
			punct = strings.TrimPrefix(punct, ".")
		}
		out = append(out, mergeWords(ws, i, i+n, to+punct))
		i += n
	}
	return out
}
