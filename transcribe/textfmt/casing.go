package textfmt

import (
	"context"
	"strings"

	"github.com/earshot-dev/earshot/transcribe"
)

// Casing is the casing half of format_text. It capitalises the first word
// of every sentence (the first word, the word after sentence-final
// punctuation, and the first word after a change of speaker or channel),
// the pronoun "I" and its contractions (I'm, I'll, I've, I'd), titles
// before a name ("mister john" -> "Mr. John", also Mrs., Ms., Dr.), and the
// proper nouns of the gazetteer shipped with the package: common given
// names, US states, countries and nationalities, major cities, months,
// days of the week and holidays. It only ever raises letters to upper case.
// Addresses ("john@example.com", "example.com") are left as written.
//
// It runs after punctuation, which decides where sentences start. The zero
// value is ready to use and safe for concurrent use.
type Casing struct{}

// Name returns "casing".
func (Casing) Name() string { return "casing" }

// Enabled reports whether format_text is on (the default).
func (Casing) Enabled(p *transcribe.TranscriptParams) bool { return formatText(p) }

// Apply capitalises job.Transcript.Words in place.
func (c Casing) Apply(ctx context.Context, job *transcribe.Job) error {
	if job == nil || job.Transcript == nil {
		return nil
	}
	c.Case(job.Transcript.Words)
	return ctx.Err()
}

var (
	pronounI = set("i i'm i'll i've i'd")
	// titles are written abbreviated before a name.
	titles      = map[string]string{"mr": "Mr.", "mrs": "Mrs.", "ms": "Ms.", "dr": "Dr.", "mister": "Mr.", "missus": "Mrs."}
	monthCueMay = set("in since until till of early late mid last next")
)

// isAddress reports whether a token is an e-mail or web address, which
// keeps its case.
func isAddress(s string) bool {
	body, _ := trailingPunct(s)
	return strings.ContainsAny(body, "@/") || strings.Contains(strings.TrimLeft(body, "."), ".")
}

func startsWithDigit(s string) bool {
	s = strings.TrimLeft(s, "$")
	return s != "" && s[0] >= '0' && s[0] <= '9'
}

// Case capitalises ws in place, each channel on its own.
func (c Casing) Case(ws []transcribe.Word) {
	copy(ws, perChannel(ws, c.caseOne))
}

func (Casing) caseOne(ws []transcribe.Word) []transcribe.Word {
	t := norms(ws)
	lookup := make([]string, len(t)) // possessive stripped: "sarah's" -> "sarah"
	for i, w := range t {
		lookup[i] = strings.TrimSuffix(w, "'s")
	}
	for i := 0; i < len(ws); {
		if isAddress(ws[i].Text) {
			i++
			continue
		}
		if title, ok := titles[t[i]]; ok && i+1 < len(ws) && sameSide(ws[i], ws[i+1]) && !hasPunct(ws[i].Text) && t[i+1] != "" {
			// "mr john" -> "Mr. John": the name after a title is capitalised
			// as a sentence start would be.
			ws[i].Text = title
			i++
			continue
		}
		start := i == 0 || endsSentence(ws[i-1].Text) || !sameSide(ws[i-1], ws[i])
		if start || pronounI[t[i]] {
			ws[i].Text = capitalize(ws[i].Text)
		}
		// Gazetteer phrases, longest first.
		n, room := 0, 1
		for room < gazetteerMax && i+room < len(ws) && !hasPunct(ws[i+room-1].Text) && sameSide(ws[i], ws[i+room]) {
			room++
		}
		for k := room; k >= 1 && n == 0; k-- {
			if _, ok := gazetteer[strings.Join(lookup[i:i+k], " ")]; ok {
				n = k
			}
		}
		if n == 0 && (t[i] == "may" || t[i] == "march") {
			next := i+1 < len(ws) && startsWithDigit(ws[i+1].Text)
			prev := i > 0 && monthCueMay[t[i-1]]
			if next || prev {
				n = 1
			}
		}
		for j := i; j < i+n; j++ {
			switch t[j] {
			case "de", "of", "the":
			default:
				ws[j].Text = capitalize(ws[j].Text)
			}
		}
		i += max(n, 1)
	}
	return ws
}
