package safety

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/earshot-dev/earshot/transcribe/analysis/nlp"
	"github.com/earshot-dev/earshot/transcribe/textfmt"
)

// term is one lexicon entry.
type term struct {
	label    string
	weight   float64
	severity float64
	stems    []string        // the term's words, stemmed and split at hyphens
	exclude  map[string]bool // stems that cancel the term nearby
	anywhere map[string]bool // stems that cancel the term anywhere in the segment
	noun     bool            // counts only as a noun: not before a word it would modify
	text     string
}

type lexiconIndex struct {
	byFirst map[string][]*term // terms by their first stem, longest first
}

// lex parses lexiconText once. A malformed line is a programming error
// caught by TestLexicon; it is skipped here rather than panicking.
var lex = sync.OnceValue(func() *lexiconIndex {
	idx, _ := parseLexicon(lexiconText)
	return idx
})

func parseLexicon(text string) (*lexiconIndex, error) {
	idx := &lexiconIndex{byFirst: map[string][]*term{}}
	var errs []string
	for n, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) < 4 {
			errs = append(errs, fmt.Sprintf("line %d: %q: want label weight severity term", n, line))
			continue
		}
		w, err1 := strconv.ParseFloat(f[1], 64)
		s, err2 := strconv.ParseFloat(f[2], 64)
		if err1 != nil || err2 != nil || w <= 0 || s < 0 || s > 1 {
			errs = append(errs, fmt.Sprintf("line %d: %q: bad weight or severity", n, line))
			continue
		}
		t := &term{label: f[0], weight: w, severity: s, exclude: map[string]bool{}, anywhere: map[string]bool{}}
		var words []string
		for _, x := range f[3:] {
			if strings.HasPrefix(x, "!!") {
				for _, st := range units(x[2:]) {
					t.anywhere[st] = true
				}
				continue
			}
			if strings.HasPrefix(x, "!") {
				for _, st := range units(x[1:]) {
					t.exclude[st] = true
				}
				continue
			}
			if strings.HasPrefix(x, "^") {
				t.noun, x = true, x[1:]
			}
			words = append(words, strings.TrimPrefix(x, "="))
			if strings.HasPrefix(x, "=") {
				// Exact word: compared with the unit's word, not its stem.
				t.stems = append(t.stems, x)
				continue
			}
			t.stems = append(t.stems, units(x)...)
		}
		t.text = strings.Join(words, " ")
		if len(t.stems) == 0 {
			errs = append(errs, fmt.Sprintf("line %d: %q: no term", n, line))
			continue
		}
		idx.byFirst[t.stems[0]] = append(idx.byFirst[t.stems[0]], t)
	}
	for _, ts := range idx.byFirst {
		sort.SliceStable(ts, func(i, j int) bool { return len(ts[i].stems) > len(ts[j].stems) })
	}
	if len(errs) > 0 {
		return idx, fmt.Errorf("safety: lexicon: %s", strings.Join(errs, "; "))
	}
	return idx, nil
}

// units splits a normalized word at hyphens and stems the parts.
func units(norm string) []string {
	var out []string
	for _, p := range strings.Split(strings.ToLower(norm), "-") {
		if p = strings.Trim(p, "'"); p != "" {
			out = append(out, nlp.Stem(p))
		}
	}
	return out
}

// unit is one matchable piece of a token: its word, stem and token index.
type unit struct {
	word, stem string
	tok        int
}

// negators open a negation that weakens a mention ("no one was
// injured", "I don't drink").
var negators = map[string]bool{"no": true, "not": true, "never": true, "without": true, "nobody": true,
	"none": true, "nothing": true, "neither": true, "nor": true}

func isNegator(norm string) bool {
	return negators[norm] || strings.HasSuffix(norm, "n't") || strings.HasSuffix(norm, "n’t")
}

// notCursing are words go-away lists as profane that name sexual or
// anatomical things rather than curse; they count towards pornography
// and nsfw instead.
var notCursing = map[string]bool{"sex": true, "sexy": true, "porn": true, "naked": true, "nude": true, "penis": true,
	"vagina": true, "boobs": true, "boob": true, "horny": true, "nazi": true, "nazis": true, "erotic": true,
	"nipple": true, "nipples": true, "breast": true, "breasts": true, "anal": true, "orgasm": true, "sperm": true,
	"semen": true, "condom": true, "gay": true, "lesbian": true, "xxx": true, "bra": true, "lingerie": true,
	// Words news uses as plain words: an identity, a crime, a body part,
	// a ball game.
	"queer": true, "rape": true, "raped": true, "rapist": true, "rapists": true, "prostitute": true,
	"prostitutes": true, "clitoris": true, "sexier": true, "sexiest": true, "poop": true, "pooped": true,
	"balls": true, "ball's": true, "butt": true, "butting": true}

var profanity textfmt.ProfanityFilter

// Score is the evidence found for one label in a stretch of text.
type Score struct {
	Label string
	// Confidence is in [0, 1].
	Confidence float64
	// Severity is in [0, 1], or -1 for labels without severity.
	Severity float64
}

// labelEvidence accumulates one label's matches.
type labelEvidence struct {
	score    float64
	severity float64 // highest severity of a mention
	negated  int     // mentions under negation
	mentions int
	at       []int // unit index of each lexicon mention
}

// Scale is the evidence that gives confidence 1-1/e (0.63): one
// unambiguous mention (weight 2) gives 0.71, one usual signal (weight 1)
// 0.46, below the default threshold of 0.5.
const Scale = 1.6

// Detect scores every label on a run of tokens and returns those with
// confidence above zero, highest first.
func Detect(toks []nlp.Token) []Score {
	m, _ := learned()
	return detectWith(toks, m)
}

// detectWith is Detect with the learned models m, or with the lexicon
// and its rules alone when m is nil.
func detectWith(toks []nlp.Token, m *models) []Score {
	ev := evidence(toks, m)
	var out []Score
	for _, l := range Labels() {
		e := ev[l]
		if e == nil || e.score <= 0 {
			continue
		}
		s := Score{Label: l, Confidence: round(1 - math.Exp(-e.score/Scale)), Severity: -1}
		if HasSeverity(l) {
			s.Severity = round(e.severity)
		}
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Confidence > out[j].Confidence })
	return out
}

func round(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// evidence runs the lexicon, the context rules and the learned models m
// (none when nil) over toks.
func evidence(toks []nlp.Token, m *models) map[string]*labelEvidence {
	var us []unit
	for i, t := range toks {
		if t.Text == "" || t.Redacted {
			continue
		}
		for _, p := range strings.Split(t.Norm, "-") {
			if p = strings.Trim(p, "'"); p != "" {
				us = append(us, unit{p, nlp.Stem(p), i})
			}
		}
	}
	ev := map[string]*labelEvidence{}
	get := func(l string) *labelEvidence {
		if ev[l] == nil {
			ev[l] = &labelEvidence{}
		}
		return ev[l]
	}
	seen := map[*term]int{}
	trigger := make([]bool, len(toks)) // tokens a lexicon term matched
	idx := lex()
	stems := map[string]bool{}
	for _, u := range us {
		stems[u.stem] = true
	}
	candidates := func(i int) []*term {
		return slices.Concat(idx.byFirst[us[i].stem], idx.byFirst["="+us[i].word])
	}
	// Idioms first: their words count for no label.
	safe := make([]bool, len(us))
	for i := range us {
		for _, t := range candidates(i) {
			if t.label == "safe" && i+len(t.stems) <= len(us) && matchAt(us, i, t.stems) {
				for k := i; k < i+len(t.stems); k++ {
					safe[k] = true
				}
			}
		}
	}
	for i := 0; i < len(us); i++ {
		var done []string // labels matched at this position: longest term wins
		for _, t := range candidates(i) {
			n := len(t.stems)
			if t.label == "safe" || slices.Contains(done, t.label) || i+n > len(us) || slices.Contains(safe[i:i+n], true) ||
				!matchAt(us, i, t.stems) || excluded(us, i, n, t.exclude) || anyIn(stems, t.anywhere) ||
				!tobaccoSense(t, us, i, stems) || t.noun && modifies(toks, us, i+n-1) {
				continue
			}
			done = append(done, t.label)
			neg := negatedAt(toks, us[i].tok)
			f := math.Pow(0.5, float64(seen[t])) // repeats add less and less
			seen[t]++
			if neg {
				f *= 0.5
			}
			e := get(t.label)
			e.score += t.weight * f
			e.mentions++
			e.at = append(e.at, i)
			for k := i; k < i+n; k++ {
				trigger[us[k].tok] = true
			}
			if neg {
				e.negated++
			}
			e.severity = max(e.severity, t.severity)
		}
	}
	// Cursing: go-away's profanity list, matched whole-word by textfmt, and
	// words the profanity filter masked ("s***").
	curses := 0
	for i, t := range toks {
		if t.Redacted || t.Text == "" {
			continue
		}
		if masked(t) || !notCursing[t.Norm] && profanity.IsProfane(t.Norm) && !properName(toks, i) {
			e := get(Profanity)
			e.score += 2 * math.Pow(0.6, float64(curses))
			e.mentions++
			e.severity = max(e.severity, 0.5+0.1*float64(curses))
			curses++
		}
	}
	if m != nil {
		m.gate(ev, toks, trigger)
		if s, sv := m.hateEvidence(toks); s > 0 {
			e := get(HateSpeech)
			e.score += s
			e.mentions++
			e.severity = max(e.severity, sv)
		}
	}
	combine(ev)
	// Severity: intensity cues raise it, an educational framing and
	// negation lower it.
	intense, educational := ev["intense"], ev["educational"]
	for l, e := range ev {
		if !HasSeverity(l) || e.mentions == 0 {
			continue
		}
		if intense != nil {
			e.severity += 0.15 * float64(intense.mentions)
		}
		if educational != nil {
			e.severity *= 0.5
		}
		if e.negated == e.mentions {
			e.severity *= 0.5
		}
		e.severity = min(max(e.severity, 0.05), 1)
	}
	return ev
}

// combine applies the rules that involve several labels.
func combine(ev map[string]*labelEvidence) {
	score := func(l string) float64 {
		if e := ev[l]; e != nil {
			return e.score
		}
		return 0
	}
	add := func(l string, s, sev float64) {
		if s <= 0 {
			return
		}
		e := ev[l]
		if e == nil {
			e = &labelEvidence{}
			ev[l] = e
		}
		e.score += s
		e.mentions++
		e.severity = max(e.severity, sev)
	}
	// Hate speech: a group of people and a dehumanising or hostile claim
	// about it, within hateWindow words of each other ("those immigrants
	// are vermin"; not "women" and "lazy" sentences apart).
	if t, d := ev["hate_target"], ev["hate_derog"]; t != nil && d != nil {
		if n := near(d.at, t.at, hateWindow); n > 0 {
			add(HateSpeech, 1.5+0.7*float64(n-1)+0.3*float64(t.mentions-1), d.severity)
		}
	}
	// Negative news: negative events told in the third person, news style.
	events := max(score(Accidents), score(CrimeViolence), score(Disasters), score(Terrorism))
	if cues := score("news"); cues >= 0.8 {
		if neg := score("newsneg") + events; neg >= 0.8 {
			add(NegativeNews, min(cues, 2)+0.6*score("newsneg")+0.3*events, 0)
		}
	} else if s := score("newsneg"); s >= 1.5 {
		add(NegativeNews, s*0.5, 0)
	}
	// Terrorism is criminal violence too; sexual content is not safe for
	// work.
	add(CrimeViolence, 0.6*score(Terrorism), sev(ev, Terrorism))
	add(NSFW, score(Pornography), 0)
}

// hateWindow is how many words apart a group of people and a hostile
// claim may be for the hate speech rule: the claims of testdata/dev.txt
// are at most four words from their group; in neutral news the two are
// most often sentences apart ("women's tennis" and a "lazy" serve).
const hateWindow = 8

// near counts the positions of as within window of some position of bs.
func near(as, bs []int, window int) int {
	n := 0
	for _, a := range as {
		if slices.ContainsFunc(bs, func(b int) bool { return a-b <= window && b-a <= window }) {
			n++
		}
	}
	return n
}

func sev(ev map[string]*labelEvidence, l string) float64 {
	if e := ev[l]; e != nil {
		return e.severity
	}
	return 0
}

func matchAt(us []unit, i int, stems []string) bool {
	for k, s := range stems {
		u := us[i+k]
		if u.stem != s && (s[0] != '=' || u.word != s[1:]) {
			return false
		}
	}
	return true
}

// anyIn reports whether any key of want is in have.
func anyIn(have, want map[string]bool) bool {
	for k := range want {
		if have[k] {
			return true
		}
	}
	return false
}

// excluded reports whether an exclusion stem occurs within three units of
// the match us[i:i+n].
func excluded(us []unit, i, n int, ex map[string]bool) bool {
	if len(ex) == 0 {
		return false
	}
	for k := max(0, i-3); k < min(len(us), i+n+3); k++ {
		if (k < i || k >= i+n) && ex[us[k].stem] {
			return true
		}
	}
	return false
}

// modifies reports whether the word of unit i modifies the word after it
// ("joint bids", "blunt style", "joint venture") rather than standing as
// a noun ("smoked a joint behind the shed", "a joint."): whether the next
// word of its clause is tagged a noun or an adjective (the tagger's own
// tag for the word is not trusted: it calls "a joint behind" JJ). Without
// tags (the tagger failed to load) any content word after it counts.
func modifies(toks []nlp.Token, us []unit, i int) bool {
	t := us[i].tok
	if toks[t].EndsClause() || t+1 >= len(toks) || i+1 < len(us) && us[i+1].tok == t {
		return false
	}
	from := max(0, t-4)
	w := slices.Clone(toks[from:min(len(toks), t+4)])
	if nlp.Tag(w) != nil {
		return toks[t+1].IsWord() && !nlp.IsStopWord(toks[t+1].Norm)
	}
	next := w[t+1-from].Tag
	return nlp.IsNounTag(next) || nlp.IsAdjectiveTag(next)
}

// negatedAt reports whether one of the three words before toks[i], in
// its clause, is a negation.
func negatedAt(toks []nlp.Token, i int) bool {
	for k := i - 1; k >= 0 && k >= i-3; k-- {
		if toks[k].EndsClause() {
			return false
		}
		if isNegator(toks[k].Norm) {
			return true
		}
	}
	return false
}

// masked reports whether a word was masked by the profanity filter: one
// letter followed by asterisks ("s***", "F******,").
func masked(t nlp.Token) bool {
	return len([]rune(t.Text)) == 1 && strings.HasPrefix(t.Post, "**")
}
