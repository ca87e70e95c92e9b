package textfmt

import (
	"context"
	"strings"

	"github.com/earshot-dev/earshot/transcribe"
)

// fillers are the filler words the Disfluencies stage removes: the API's
// list (um, uh, hmm, mhm, uh huh) and the spellings recognizers use for
// them. "uh huh" is matched as a pair ("uh" alone is a filler anyway) and
// as one token ("uh-huh" normalises to "uhhuh").
var fillers = set("um umm ummm uh uhh uhm hmm hmmm hm mhm mhmm mm mmm uhhuh mmhmm er erm")

// IsFiller reports whether word (any case, attached punctuation ignored)
// is a filler word.
func IsFiller(word string) bool {
	return fillers[strings.ReplaceAll(norm(word), "'", "")]
}

// Disfluencies is the filler-word stage. It runs unless disfluencies is
// true and removes the filler words. It runs after punctuation, so that the
// time a filler took does not read as a pause: a removed filler's
// sentence-final mark moves to the word before it (replacing a comma);
// its comma is dropped. The zero value is ready to use and safe for
// concurrent use.
type Disfluencies struct{}

// Name returns "disfluencies".
func (Disfluencies) Name() string { return "disfluencies" }

// Enabled reports whether fillers are to be removed (disfluencies false,
// the default).
func (Disfluencies) Enabled(p *transcribe.TranscriptParams) bool {
	return p == nil || p.Disfluencies == nil || !*p.Disfluencies
}

// Apply removes filler words from job.Transcript.Words.
func (d Disfluencies) Apply(ctx context.Context, job *transcribe.Job) error {
	if job == nil || job.Transcript == nil {
		return nil
	}
	job.Transcript.Words = d.Remove(job.Transcript.Words)
	return ctx.Err()
}

// Remove returns ws without filler words, each channel on its own. It may
// reuse ws's backing array.
func (d Disfluencies) Remove(ws []transcribe.Word) []transcribe.Word {
	if ws == nil {
		return nil
	}
	return perChannel(ws, d.remove)
}

func (Disfluencies) remove(ws []transcribe.Word) []transcribe.Word {
	if ws == nil {
		return nil
	}
	out := ws[:0]
	prevUh := false
	for _, w := range ws {
		uhHuh := prevUh && norm(w.Text) == "huh"
		prevUh = norm(w.Text) == "uh"
		if !uhHuh && !IsFiller(w.Text) {
			out = append(out, w)
			continue
		}
		_, p := trailingPunct(w.Text)
		if !strings.ContainsAny(p, ".?!") || len(out) == 0 {
			continue
		}
		prev := &out[len(out)-1]
		if !sameSide(*prev, w) || endsSentence(prev.Text) {
			continue
		}
		body, _ := trailingPunct(prev.Text)
		if body == "" {
			continue
		}
		prev.Text = body + p
	}
	return out
}
