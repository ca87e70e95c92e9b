package textfmt

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	goaway "github.com/TwiN/go-away"

	"github.com/earshot-dev/earshot/transcribe"
)

// ProfanityFilter is the filter_profanity stage: a profane word keeps its
// first letter and every other letter becomes an asterisk ("shit" ->
// "s***", "Fucking," -> "F******,").
//
// The word list is github.com/TwiN/go-away's (DefaultProfanities and
// DefaultFalseNegatives), but matching is by whole word, not substring as
// go-away does, so "assess", "class", "passion", "Scunthorpe" and
// "cocktail" stay. A word is profane when it is a listed word, or a listed
// word with an inflection or compound part: an optional prefix from a short
// list ("bull", "horse", "mother", "dumb", "jack", ...) and an optional
// suffix ("s", "es", "ed", "er", "ing", "y", "head", "hole", ..., the last
// consonant possibly doubled as in "shitty"). Words that start with one of
// go-away's DefaultFalsePositives ("butter", "cocktail") and a few common
// words that the inflection rule would catch ("jerky", "cocky", "muffin")
// are never profane.
//
// The zero value is ready to use and safe for concurrent use.
type ProfanityFilter struct {
	// Extra are more profane words (or stems), matched like the list's.
	// Default: none.
	Extra []string
	// Allow are words never filtered, matched whole and case-insensitively.
	// Default: none.
	Allow []string
}

// Name returns "filter_profanity".
func (ProfanityFilter) Name() string { return "filter_profanity" }

// Enabled reports whether filter_profanity is true.
func (ProfanityFilter) Enabled(p *transcribe.TranscriptParams) bool {
	return p != nil && p.FilterProfanity != nil && *p.FilterProfanity
}

// Apply masks profane words in job.Transcript.Words in place.
func (f ProfanityFilter) Apply(ctx context.Context, job *transcribe.Job) error {
	if job == nil || job.Transcript == nil {
		return nil
	}
	m := f.compile()
	for i := range job.Transcript.Words {
		w := &job.Transcript.Words[i]
		w.Text = m.censor(w.Text)
	}
	return ctx.Err()
}

var (
	profaneStems = func() map[string]bool {
		m := map[string]bool{}
		for _, l := range [][]string{goaway.DefaultProfanities, goaway.DefaultFalseNegatives} {
			for _, w := range l {
				m[strings.ToLower(w)] = true
			}
		}
		return m
	}()
	profanePrefixes = []string{"", "bull", "horse", "mother", "dumb", "jack", "dip", "bat", "ape",
		"chicken", "smart", "bad", "fat", "dog", "holy", "cluster", "lard", "hard", "tight", "half",
		"mutha"}
	profaneSuffixes = set("s es ed er ers ing in y e ion ions ie ier iest head heads hole holes face faces bag bags " +
		"hat hats wipe wipes sucker suckers sucking off wad tard ass")
	notProfane = set("jerky cocky cocker cockers spunky muffin muffins muffle muffled dicker dickens " +
		"hoes hoed hoeing sexes butte buttes crappie titter titters cumin crape crapes craps")
)

// IsProfane reports whether word (punctuation and case ignored) is profane.
func (f ProfanityFilter) IsProfane(word string) bool {
	return f.compile().isProfane(word)
}

// profanityMatcher is a ProfanityFilter with its Extra and Allow words
// normalised once.
type profanityMatcher struct {
	f            ProfanityFilter
	extra, allow map[string]bool
}

func (f ProfanityFilter) compile() *profanityMatcher {
	m := &profanityMatcher{f: f}
	if len(f.Extra) > 0 {
		m.extra = map[string]bool{}
		for _, e := range f.Extra {
			if n := strings.ReplaceAll(norm(e), "'", ""); n != "" {
				m.extra[n] = true
			}
		}
	}
	if len(f.Allow) > 0 {
		m.allow = map[string]bool{}
		for _, a := range f.Allow {
			m.allow[strings.ReplaceAll(norm(a), "'", "")] = true
		}
	}
	return m
}

func (m *profanityMatcher) isProfane(word string) bool {
	w := strings.ReplaceAll(norm(word), "'", "")
	if w == "" || notProfane[w] || m.allow[w] {
		return false
	}
	for _, fp := range goaway.DefaultFalsePositives {
		if strings.HasPrefix(w, fp) {
			return false
		}
	}
	return m.f.matches(w, profaneStems) || (m.extra != nil && m.f.matches(w, m.extra))
}

func (ProfanityFilter) matches(w string, stems map[string]bool) bool {
	for _, pre := range profanePrefixes {
		if !strings.HasPrefix(w, pre) {
			continue
		}
		rest := w[len(pre):]
		for stem := range stems {
			if !strings.HasPrefix(rest, stem) {
				continue
			}
			suf := rest[len(stem):]
			if suf == "" && (pre == "" || len(pre) > 2) {
				return true
			}
			if suf == "" {
				continue
			}
			if profaneSuffixes[suf] || (len(suf) > 1 && suf[0] == stem[len(stem)-1] && profaneSuffixes[suf[1:]]) {
				return true
			}
		}
		// A stem ending in "e" drops it before a suffix: "raping", "raped".
		for stem := range stems {
			if len(stem) > 3 && stem[len(stem)-1] == 'e' && strings.HasPrefix(rest, stem[:len(stem)-1]) {
				switch rest[len(stem)-1:] {
				case "ed", "er", "ers", "ing", "ist", "ists":
					return true
				}
			}
		}
	}
	return false
}

// Censor returns word masked when it is profane: its first letter kept,
// every later letter or digit replaced by '*', punctuation kept ("shit." ->
// "s***."). Other words are returned unchanged.
func (f ProfanityFilter) Censor(word string) string {
	return f.compile().censor(word)
}

func (m *profanityMatcher) censor(word string) string {
	if !m.isProfane(word) {
		return word
	}
	var b strings.Builder
	first := true
	for len(word) > 0 {
		r, size := utf8.DecodeRuneInString(word)
		word = word[size:]
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if first {
				b.WriteRune(r)
				first = false
			} else {
				b.WriteByte('*')
			}
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
