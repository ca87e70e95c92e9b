package summary

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp"
)

// Summarize returns the extractive summary of x of the given type and
// model (see doc.go for what each looks like). Unknown values mean the
// defaults, bullets and informative. An empty text gives "".
func (x *Text) Summarize(typ transcribe.SummaryType, model transcribe.SummaryModel) string {
	switch typ {
	case transcribe.SummaryGist:
		return x.Gist(model)
	case transcribe.SummaryHeadline:
		return x.Headline(model)
	case transcribe.SummaryParagraph:
		return x.Paragraph(model, paragraphCount(x.nWord))
	case transcribe.SummaryBulletsVerbose:
		return x.bullets(model, verboseBulletCount(x.nWord), true)
	}
	return x.bullets(model, bulletCount(x.nWord), false)
}

// prefix returns "Speaker A: " for sentence i in a conversational summary
// of a text with two or more main voices.
func (x *Text) prefix(i int, st style, voices []string) string {
	if !st.speakers || len(voices) < 2 || x.sents[i].voice == "" {
		return ""
	}
	return x.sents[i].voice + ": "
}

// bullets renders k chosen sentences as "- " lines in text order. Verbose
// bullets also take the following sentence when it continues the chosen
// one.
func (x *Text) bullets(model transcribe.SummaryModel, k int, verbose bool) string {
	st := styleOf(model)
	if st.short {
		k = max(k-1, 2)
	}
	idx := x.pick(k, st)
	chosen := map[int]bool{}
	for _, i := range idx {
		chosen[i] = true
	}
	voices := x.mainVoices()
	units, ranges := x.rendered(idx)
	var b strings.Builder
	for n, i := range units {
		line := x.rangeText(ranges[n][0], ranges[n][1])
		if verbose && x.similarNext(i) && !chosen[i+1] && x.sents[i].Len()+x.sents[i+1].Len() <= 60 {
			if f, t := x.renderRange(i + 1); f >= ranges[n][1] && (n+1 == len(ranges) || t <= ranges[n+1][0]) {
				line += " " + x.rangeText(f, t)
			}
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("- " + x.prefix(i, st, voices) + line)
	}
	return b.String()
}

// Paragraph returns k chosen sentences in text order as one paragraph
// (with "Speaker A: " before each turn in a conversational summary).
func (x *Text) Paragraph(model transcribe.SummaryModel, k int) string {
	st := styleOf(model)
	idx := x.pick(k, st)
	voices := x.mainVoices()
	units, ranges := x.rendered(idx)
	parts := make([]string, 0, len(units))
	last := ""
	for n, i := range units {
		p := x.prefix(i, st, voices)
		if p != "" && x.sents[i].voice == last {
			p = ""
		}
		last = x.sents[i].voice
		parts = append(parts, p+x.rangeText(ranges[n][0], ranges[n][1]))
	}
	return strings.Join(parts, " ")
}

// Headline returns one sentence: the most central sentence of moderate
// length (informative); for a conversation between two or more main
// speakers, "Speaker A and Speaker B discuss the <gist>." (conversational);
// the most central short sentence in title case without its final period
// (catchy).
func (x *Text) Headline(model transcribe.SummaryModel) string {
	st := styleOf(model)
	if st.speakers {
		if vs := x.mainVoices(); len(vs) >= 2 {
			if g := x.gistPhrase(); g != "" {
				if r, _ := utf8.DecodeRuneInString(g); unicode.IsLower(r) {
					g = "the " + g
				}
				return joinVoices(vs) + " discuss " + g + "."
			}
		}
		st = style{}
	}
	i := x.best(st)
	if i < 0 {
		return ""
	}
	s := x.sentenceText(i)
	if t := strings.TrimRight(s, ".!…"); st.short && t != "" {
		return titleCase(shorten(t))
	}
	return s // a sentence of only marks stays as it is
}

// Gist returns a few words: the text's best noun phrase, capitalized
// (title case for catchy). A text with no noun phrase gives the first
// words of its headline.
func (x *Text) Gist(model transcribe.SummaryModel) string {
	g := x.gistPhrase()
	if g == "" {
		h := strings.Fields(strings.TrimRight(x.Headline(transcribe.SummaryInformative), ".?!"))
		g = strings.Join(h[:min(len(h), maxGistWords)], " ")
	}
	if model == transcribe.SummaryCatchy {
		return titleCase(g)
	}
	return capitalize(g)
}

// joinVoices lists voices as "A and B" or "A, B and C".
func joinVoices(vs []string) string {
	if len(vs) <= 1 {
		return strings.Join(vs, "")
	}
	return strings.Join(vs[:len(vs)-1], ", ") + " and " + vs[len(vs)-1]
}

// shorten cuts a catchy headline longer than catchyWords at its first
// clause break that leaves at least five words.
func shorten(s string) string {
	ws := strings.Fields(s)
	if len(ws) <= catchyWords {
		return s
	}
	for i := 4; i < len(ws)-1; i++ {
		if strings.HasSuffix(ws[i], ",") || strings.HasSuffix(ws[i], ";") || strings.HasSuffix(ws[i], ":") {
			return strings.TrimRight(strings.Join(ws[:i+1], " "), ",;:")
		}
	}
	return s
}

// catchyWords is the length above which a catchy headline is shortened.
const catchyWords = 12

// maxTitleWords is the longest chapter headline.
const maxTitleWords = 12

// Title returns a chapter headline: a title, not a sentence. It is the
// most central short sentence of the main topic (shorter sentences
// favoured, as for catchy headlines) without its final period, cut at a
// clause break when longer than maxTitleWords words, and otherwise ending
// at its last noun within the first maxTitleWords words ("Smoke from
// hundreds of wildfires in Canada is triggering air quality alerts");
// the gist when no noun is found.
func (x *Text) Title() string {
	i := x.best(style{short: true})
	if i < 0 {
		return ""
	}
	from, to := x.renderRange(i)
	t := strings.TrimRight(x.rangeText(from, to), ".!?…")
	if len(strings.Fields(t)) > maxTitleWords {
		t = shorten(t)
	}
	ws := strings.Fields(t)
	if len(ws) <= maxTitleWords {
		return t
	}
	// The rendered text may lack a few lead-in words: align on its end.
	toks := append([]nlp.Token(nil), x.toks[to-len(ws):to]...)
	if nlp.Tag(toks) == nil {
		for e := min(maxTitleWords, len(toks)); e >= 3; e-- {
			if nlp.IsNounTag(toks[e-1].Tag) && !toks[e-1].Redacted {
				return strings.TrimRight(strings.Join(ws[:e], " "), ",;:.!?")
			}
		}
	}
	return x.Gist(transcribe.SummaryInformative)
}
