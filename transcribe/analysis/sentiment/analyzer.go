package sentiment

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/jonreiter/govader"

	"github.com/earshot-dev/earshot/transcribe/analysis/nlp"
)

// The three labels of the API (sentiment_analysis_results[].sentiment).
const (
	Positive = "POSITIVE"
	Neutral  = "NEUTRAL"
	Negative = "NEGATIVE"
)

// Labels returns the three sentiment labels.
func Labels() []string { return []string{Positive, Neutral, Negative} }

// DefaultThreshold is the default Options.Threshold.
const DefaultThreshold = 0.2

// ErrOptions is wrapped by the error of an invalid Options.
var ErrOptions = errors.New("sentiment: invalid options")

// Options configures the analyser and the stage. The zero value means the
// defaults.
type Options struct {
	// Threshold is the absolute score (VADER's compound score, -1..1, after
	// the spoken-language rules) from which a sentence is POSITIVE or
	// NEGATIVE; below it the sentence is NEUTRAL. Zero means
	// DefaultThreshold, chosen on the dev set (testdata/dev.txt). Valid:
	// 0 < Threshold < 1.
	Threshold float64
}

// Validate reports an invalid field, wrapping ErrOptions.
func (o Options) Validate() error {
	if o.Threshold < 0 || o.Threshold >= 1 || math.IsNaN(o.Threshold) {
		return fmt.Errorf("%w: Threshold must be in (0, 1), got %v", ErrOptions, o.Threshold)
	}
	return nil
}

func (o Options) threshold() float64 {
	if o.Threshold == 0 {
		return DefaultThreshold
	}
	return o.Threshold
}

// Result is the sentiment of one piece of text.
type Result struct {
	// Sentiment is Positive, Neutral or Negative.
	Sentiment string
	// Confidence is the probability given to Sentiment, in [0.5, 1].
	Confidence float64
	// Score is the compound score in [-1, 1] the label was read from.
	Score float64
}

// Analyzer classifies the sentiment of sentences. The zero value uses the
// defaults; an Analyzer is safe for concurrent use.
type Analyzer struct {
	Options Options
}

// vader is govader's analyser with the lexicon extended for speech (see
// lexicon.go), built once: loading the 7,500-entry lexicon takes a few
// milliseconds.
var vader = sync.OnceValue(func() *govader.SentimentIntensityAnalyzer {
	a := govader.NewSentimentIntensityAnalyzer()
	for w, v := range lexicon {
		a.Lexicon[w] = v
	}
	for w := range neutralWords {
		delete(a.Lexicon, w)
	}
	a.Constants.NegateList = append(a.Constants.NegateList, extraNegations...)
	return a
})

// Classify returns the sentiment of text, read as one or more sentences of
// transcribed speech. Empty text is NEUTRAL. Invalid options give an error
// wrapping ErrOptions.
func (a Analyzer) Classify(text string) (Result, error) {
	if err := a.Options.Validate(); err != nil {
		return Result{}, err
	}
	toks := nlp.Tokens(wordsOf(text))
	return a.classifyTokens(toks), nil
}

func (a Analyzer) classifyTokens(toks []nlp.Token) Result {
	if a.Options.Threshold == 0 && written(toks) {
		return label(plainVader().PolarityScores(rawText(toks)).Compound, plainThreshold)
	}
	score := vader().PolarityScores(prepare(toks)).Compound
	if a.Options.Threshold == 0 && len(toks) > 0 {
		if m, err := DefaultModel(); err == nil {
			return m.classify(toks, score)
		}
	}
	return label(score, a.Options.threshold())
}

func newPlainVader() *govader.SentimentIntensityAnalyzer {
	return govader.NewSentimentIntensityAnalyzer()
}

// label turns a compound score into a label and a confidence. The
// confidence is a logistic reading of the distance from the threshold: a
// score at the threshold is a coin toss between the two labels on either
// side (0.5), a score far from it approaches 1. Neutral sentences are most
// certain at 0.
func label(score, th float64) Result {
	const k = 8 // steepness: 0.9 at about 0.27 past the threshold
	sig := func(x float64) float64 { return 1 / (1 + math.Exp(-k*x)) }
	r := Result{Score: score}
	switch {
	case score >= th:
		r.Sentiment, r.Confidence = Positive, sig(score-th)
	case score <= -th:
		r.Sentiment, r.Confidence = Negative, sig(-score-th)
	default:
		r.Sentiment, r.Confidence = Neutral, sig(th-math.Abs(score))
	}
	r.Confidence = math.Round(r.Confidence*1e4) / 1e4
	return r
}

// prepare rebuilds a sentence for VADER: lower case (transcripts have no
// emphatic capitals, and acronyms would read as shouting), multi-word
// expressions joined into single lexicon entries ("on_hold"), and the
// discourse uses of words VADER scores as sentiment removed ("like" as a
// preposition or filler, "well" and "so" opening a clause). Punctuation
// stays attached, since VADER reads "!" and "?".
func prepare(toks []nlp.Token) string { return prepareCase(toks, false) }

// prepareCase is prepare, keeping the words' capitals when keepCase is set
// (for the model's written-text feature, where capitals are emphasis).
func prepareCase(toks []nlp.Token, keepCase bool) string {
	if len(toks) > 0 && toks[0].Tag == "" {
		_ = nlp.Tag(toks) // fails only if the model cannot load; tags stay empty
	}
	lex := vader().Lexicon
	negators := vader().Constants.NegateList
	var out []string
	lastNeg := -1 // index in out of a negation word whose scope is open
	emit := func(w, tag string, endsClause bool) {
		bare := strings.Trim(w, punctuation)
		_, sentimental := lex[bare]
		switch {
		case slices.Contains(negators, bare):
			out = append(out, w)
			lastNeg = len(out) - 1
		case sentimental && lastNeg >= 0:
			// A negation's scope runs to the first sentiment word of its
			// clause ("nobody on the team is happy") and ends there
			// ("hasn't fixed the leak"). VADER looks back three words, so
			// bring the negation next to the word when it is further, and
			// pad after the word so that it does not reach the next one.
			if len(out)-lastNeg > 3 {
				out = append(out, "not")
			}
			out = append(out, w, pad, pad, pad)
			lastNeg = -1
		default:
			out = append(out, w)
			if lastNeg >= 0 && (clauseBreak[bare] || endsNegation(bare, tag)) {
				out = append(out, pad, pad, pad) // out of VADER's look-back
				lastNeg = -1
			}
		}
		if endsClause {
			lastNeg = -1
		}
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.Redacted {
			continue
		}
		if t.Text == "" {
			if keepCase && t.Pre+t.Post != "" {
				emit(t.Pre+t.Post, "", false) // emoticons: ":)", ":-("
			}
			continue
		}
		if p, n := phraseAt(toks, i); n > 0 {
			last := toks[i+n-1]
			emit(p+last.Post, "", last.EndsClause())
			i += n - 1
			continue
		}
		if discourse(toks, i) {
			continue
		}
		w := t.Norm
		if keepCase && strings.ToLower(t.Text) == t.Norm {
			w = t.Text
		}
		emit(w+t.Post, t.Tag, t.EndsClause())
	}
	return strings.Join(out, " ")
}

// endsNegation reports whether a word without sentiment closes the scope
// of a negation before it: a main verb ("didn't fix the broken heater":
// the fixing is negated, not the brokenness), except auxiliaries and the
// verbs that pass negation on to their clause ("don't think it's good").
func endsNegation(w, tag string) bool {
	if !strings.HasPrefix(tag, "VB") || tag == "VBG" && w == "going" {
		return false
	}
	switch w {
	case "be", "is", "are", "was", "were", "been", "being", "am", "'s", "'re", "'m",
		"have", "has", "had", "do", "does", "did", "get", "gets", "got", "getting",
		"think", "believe", "expect", "suppose", "feel", "guess", "imagine", "reckon", "seem", "seems", "seemed":
		return false
	}
	return true
}

// clauseBreak are conjunctions that end a negation's scope.
var clauseBreak = map[string]bool{"and": true, "but": true, "so": true, "because": true, "while": true,
	"although": true, "though": true, "or": true, "when": true, "whereas": true}

// pad is a token VADER ignores (not in its lexicon, not a booster).
const pad = "~"

// punctuation is what VADER strips from the ends of a word.
const punctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// discourse reports whether toks[i] is a discourse marker or filler that
// VADER would wrongly score: "like" not used as a verb; "well", "okay",
// "right", "yeah", "sure", "honestly" or "frankly" opening a clause;
// "okay", "right" or "yeah" closing one (a tag question); "please"
// anywhere.
func discourse(toks []nlp.Token, i int) bool {
	w := toks[i].Norm
	clauseStart := i == 0 || toks[i-1].EndsClause()
	switch w {
	case "like":
		return !strings.HasPrefix(toks[i].Tag, "VB")
	case "please":
		return true
	case "okay", "ok", "right", "yeah", "alright":
		return clauseStart || toks[i].EndsClause()
	case "well", "sure", "honestly", "frankly":
		return clauseStart
	}
	return false
}

// phraseAt returns the joined lexicon entry of the longest multi-word
// expression starting at toks[i] and its length in words, or 0.
func phraseAt(toks []nlp.Token, i int) (string, int) {
	for n := maxPhraseWords; n >= 2; n-- {
		if i+n > len(toks) {
			continue
		}
		parts := make([]string, n)
		ok := true
		for k := range n {
			if k < n-1 && toks[i+k].EndsClause() {
				ok = false
				break
			}
			parts[k] = toks[i+k].Norm
		}
		if !ok {
			continue
		}
		key := strings.Join(parts, "_")
		if _, found := lexicon[key]; found {
			return key, n
		}
	}
	return "", 0
}
