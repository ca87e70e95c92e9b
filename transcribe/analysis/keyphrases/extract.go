package keyphrases

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp"
)

// Defaults of Options.
const (
	DefaultMaxResults = 15
	DefaultMaxWords   = 4
)

// ErrOptions is wrapped by the error of an invalid Options.
var ErrOptions = errors.New("keyphrases: invalid options")

// Options configures the extractor. The zero value means the defaults.
type Options struct {
	// MaxResults caps the number of key phrases reported. Zero means
	// DefaultMaxResults (15); see the package documentation for why.
	MaxResults int
	// MaxWords caps the words of a phrase. Zero means DefaultMaxWords (4).
	MaxWords int
	// Chooser, when not nil, lets a language model pick the key phrases
	// among three times MaxResults of Extract's best (Stage only; Extract
	// ignores it). Default: Extract's ranking alone.
	Chooser Chooser
}

// Chooser picks the items of a list that fit a text, best first, at most
// max of them, each as written in options: a language model (package
// llm's Client). Stage keeps Extract's own result on any error or an
// empty choice. Implementations must be safe for concurrent use.
type Chooser interface {
	Choose(ctx context.Context, task, text string, options []string, max int) ([]string, error)
}

// Validate reports an invalid field, wrapping ErrOptions.
func (o Options) Validate() error {
	if o.MaxResults < 0 {
		return fmt.Errorf("%w: MaxResults must not be negative, got %d", ErrOptions, o.MaxResults)
	}
	if o.MaxWords < 0 {
		return fmt.Errorf("%w: MaxWords must not be negative, got %d", ErrOptions, o.MaxWords)
	}
	return nil
}

func (o Options) withDefaults() Options {
	if o.MaxResults == 0 {
		o.MaxResults = DefaultMaxResults
	}
	if o.MaxWords == 0 {
		o.MaxWords = DefaultMaxWords
	}
	return o
}

// candidate is one distinct phrase: its stem key and occurrences.
type candidate struct {
	key   string   // stems joined by spaces
	stems []string // one per word
	occ   [][2]int // token ranges [from, to) of its occurrences
	forms map[string]int
	score float64
}

// Extract returns the key phrases of ws, best first: at most
// o.MaxResults, each with its count, rank in (0, 1] (its score over the
// best phrase's) and the times of every occurrence. Invalid options give
// an error wrapping ErrOptions; no words give no phrases.
func Extract(ws []transcribe.Word, o Options) ([]transcribe.AutoHighlight, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	out := []transcribe.AutoHighlight{}
	toks := nlp.Tokens(ws)
	if err := nlp.Tag(toks); err != nil {
		return nil, err
	}
	fixCompounds(toks)
	stems := make([]string, len(toks))
	for i, t := range toks {
		if t.IsWord() {
			stems[i] = nlp.Stem(strings.ReplaceAll(t.Norm, "'s", ""))
		}
	}
	runs := nounRuns(toks, o.MaxWords)
	if len(runs) == 0 {
		return out, nil
	}
	wordScore := rankWords(toks, stems, runs)
	cands := candidates(toks, stems, runs, o.MaxWords)
	repeated := map[[2]int]bool{} // occurrences of candidates found twice or more
	for _, c := range cands {
		if len(c.occ) >= 2 {
			for _, r := range c.occ {
				repeated[r] = true
			}
		}
	}
	for _, c := range cands {
		c.score = phraseScore(c, wordScore, freeCount(c, repeated, o.MaxWords))
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].score != cands[j].score {
			return cands[i].score > cands[j].score
		}
		return cands[i].occ[0][0] < cands[j].occ[0][0]
	})
	chosen := selectPhrases(cands, o.MaxResults)
	if len(chosen) == 0 {
		return out, nil
	}
	best := chosen[0].score
	for _, c := range chosen {
		h := transcribe.AutoHighlight{
			Count: int64(len(c.occ)),
			Rank:  math.Max(0.01, math.Round(c.score/best*100)/100),
			Text:  surface(c),
		}
		for _, r := range c.occ {
			h.Timestamps = append(h.Timestamps, transcribe.Timestamp{Start: toks[r[0]].Start, End: toks[r[1]-1].End})
		}
		out = append(out, h)
	}
	return out, nil
}

// nounRuns returns the token ranges of maximal noun phrases: optional
// adjectives (or nouns) followed by nouns, inside one clause, of content
// words only (no stop words, numbers or redacted words).
func nounRuns(toks []nlp.Token, maxWords int) [][2]int {
	var runs [][2]int
	start := -1
	end := func(i int) { // the run is toks[start:i]; trim to end with a noun
		if start < 0 {
			return
		}
		j := i
		for j > start && !nlp.IsNounTag(toks[j-1].Tag) {
			j--
		}
		if j > start {
			// Long runs keep their last maxWords words (the head noun and
			// its nearest modifiers).
			runs = append(runs, [2]int{max(start, j-maxWords), j})
		}
		start = -1
	}
	for i, t := range toks {
		ok := content(t) && !timeWord[t.Norm]
		if !ok && modifier(t) && i+1 < len(toks) && !t.EndsClause() && content(toks[i+1]) &&
			(i == 0 || !strings.HasPrefix(toks[i-1].Tag, "VB") && toks[i-1].Tag != "MD") {
			ok = true // "charging stations", "used cars"
		}
		if !ok {
			end(i)
			continue
		}
		if start < 0 {
			start = i
		}
		if t.EndsClause() {
			end(i + 1)
		}
	}
	end(len(toks))
	return runs
}

// content reports whether a token may be part of a key phrase: a noun or
// adjective that is not a stop word.
func content(t nlp.Token) bool {
	if !t.IsWord() || nlp.IsStopWord(t.Norm) || len(t.Norm) < 2 {
		return false
	}
	return nlp.IsNounTag(t.Tag) || nlp.IsAdjectiveTag(t.Tag)
}

// fixCompounds corrects a frequent tagging error: the last word of a
// compound noun read as a verb ("air quality alerts" tagged NN NN VBZ).
// A VBZ right after two nouns or an adjective and a noun, in one clause,
// is taken as a plural noun.
func fixCompounds(toks []nlp.Token) {
	for i := 2; i < len(toks); i++ {
		if toks[i].Tag != "VBZ" || toks[i-1].EndsClause() || toks[i-2].EndsClause() {
			continue
		}
		if toks[i-1].Tag == "NN" && (toks[i-2].Tag == "NN" || nlp.IsAdjectiveTag(toks[i-2].Tag)) {
			toks[i].Tag = "NNS"
		}
	}
}

// modifier reports whether a token is a participle that can modify a
// following noun ("charging", "used"); nounRuns takes it as one unless a
// verb comes before it ("is triggering alerts").
func modifier(t nlp.Token) bool {
	return t.IsWord() && !nlp.IsStopWord(t.Norm) && (t.Tag == "VBG" || t.Tag == "VBN")
}

// generic are nouns too general to be a key phrase on their own or with
// only adjectives ("many years", "other people"): units of time and
// quantity and the vaguest nouns of speech.
var generic = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`time times year years month months week weeks day days hour hours minute minutes
		second seconds night nights morning mornings evening afternoon weekend weekends today tomorrow yesterday
		moment moments while end beginning start lot lots bit number numbers percent half third quarter
		hundred hundreds thousand thousands million millions billion billions dozen dozens
		people person everyone everybody someone thing things way ways part parts kind kinds sort sorts
		place places case cases point points fact facts problem problems question questions idea ideas
		issue issues example examples reason reasons result results side sides group groups
		guy guys folks stuff area areas level levels type types form forms deal world life
		other others lot many much few several
		monday tuesday wednesday thursday friday saturday sunday january february march april may june
		july august september october november december spring summer autumn fall winter`) {
		generic[nlp.Stem(w)] = true
	}
}

// timeWord are words of time that end a noun phrase rather than belong to
// it: "the kitchen renovation last week" gives "kitchen renovation".
var timeWord = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`last next past previous coming week weeks month months year years day days
		today tomorrow yesterday tonight morning mornings evening evenings night nights weekend weekends
		monday tuesday wednesday thursday friday saturday sunday`) {
		timeWord[w] = true
	}
}

// isGeneric reports whether a phrase has no specific word: every word is
// generic or an adjective.
func isGeneric(toks []nlp.Token, stems []string) bool {
	for i, t := range toks {
		if !generic[stems[i]] && nlp.IsNounTag(t.Tag) {
			return false
		}
	}
	return true
}

// rankWords scores content words by TextRank: PageRank over the graph
// whose vertices are the stems of the words in noun runs and whose edges
// join stems that occur within coWindow words of each other in a run's
// sentence.
func rankWords(toks []nlp.Token, stems []string, runs [][2]int) map[string]float64 {
	inRun := make([]bool, len(toks))
	for _, r := range runs {
		for i := r[0]; i < r[1]; i++ {
			inRun[i] = true
		}
	}
	// The sequence of candidate words, with sentence breaks.
	type node struct {
		stem string
		sent int
	}
	var seq []node
	sent := 0
	for i, t := range toks {
		if inRun[i] {
			seq = append(seq, node{stems[i], sent})
		}
		if t.EndsSentence() {
			sent++
		}
	}
	edges := map[string]map[string]float64{}
	link := func(a, b string) {
		if a == b {
			return
		}
		if edges[a] == nil {
			edges[a] = map[string]float64{}
		}
		edges[a][b]++
	}
	for i := range seq {
		if edges[seq[i].stem] == nil {
			edges[seq[i].stem] = map[string]float64{}
		}
		for j := i + 1; j < len(seq) && j <= i+coWindow && seq[j].sent == seq[i].sent; j++ {
			link(seq[i].stem, seq[j].stem)
			link(seq[j].stem, seq[i].stem)
		}
	}
	return pageRank(edges)
}

// coWindow is the co-occurrence window of rankWords, in candidate words.
const coWindow = 3

// pageRank runs weighted PageRank (damping 0.85) to convergence.
func pageRank(edges map[string]map[string]float64) map[string]float64 {
	const d = 0.85
	nodes := make([]string, 0, len(edges))
	for n := range edges {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes) // deterministic
	out := map[string]float64{}
	weightSum := map[string]float64{}
	for _, n := range nodes {
		out[n] = 1
		for _, w := range edges[n] {
			weightSum[n] += w
		}
	}
	for iter := 0; iter < 50; iter++ {
		next := map[string]float64{}
		delta := 0.0
		for _, n := range nodes {
			s := 0.0
			for m, w := range edges[n] { // edges are symmetric
				if weightSum[m] > 0 {
					s += w / weightSum[m] * out[m]
				}
			}
			next[n] = 1 - d + d*s
			delta += math.Abs(next[n] - out[n])
		}
		out = next
		if delta < 1e-6*float64(len(nodes)) {
			break
		}
	}
	return out
}

// candidates collects every phrase that ends a noun run's sub-range: the
// whole run and its suffixes and noun-ending prefixes, so that "air
// quality" is counted in "air quality alerts" and "air quality index".
func candidates(toks []nlp.Token, stems []string, runs [][2]int, maxWords int) []*candidate {
	proper := properNouns(toks)
	byKey := map[string]*candidate{}
	var order []*candidate
	for _, r := range runs {
		for a := r[0]; a < r[1]; a++ {
			for b := a + 1; b <= r[1] && b-a <= maxWords; b++ {
				if !nlp.IsNounTag(toks[b-1].Tag) {
					continue
				}
				if isGeneric(toks[a:b], stems[a:b]) {
					continue
				}
				key := strings.Join(stems[a:b], " ")
				c := byKey[key]
				if c == nil {
					c = &candidate{key: key, stems: slices.Clone(stems[a:b]), forms: map[string]int{}}
					byKey[key] = c
					order = append(order, c)
				}
				c.occ = append(c.occ, [2]int{a, b})
				c.forms[formOf(toks, a, b, proper)]++
			}
		}
	}
	return order
}

// properNouns returns the normalized words written with a capital
// somewhere other than at the start of a sentence: names, which keep
// their capital in key phrases.
func properNouns(toks []nlp.Token) map[string]bool {
	out := map[string]bool{}
	for i, t := range toks {
		initial := i == 0 || toks[i-1].EndsSentence()
		if !initial && t.Text != "" && t.Text != t.Norm {
			out[t.Norm] = true
		}
	}
	return out
}

// formOf is the written form of the phrase toks[a:b]: lower case except
// names and acronyms.
func formOf(toks []nlp.Token, a, b int, proper map[string]bool) string {
	parts := make([]string, 0, b-a)
	for _, t := range toks[a:b] {
		if proper[t.Norm] || isAcronym(t.Text) {
			parts = append(parts, t.Text)
		} else {
			parts = append(parts, t.Norm)
		}
	}
	return strings.Join(parts, " ")
}

func isAcronym(s string) bool {
	n := 0
	for _, r := range s {
		if r >= 'a' && r <= 'z' {
			return false
		}
		if r >= 'A' && r <= 'Z' {
			n++
		}
	}
	return n >= 2
}

// surface is the most frequent written form of a candidate (the first
// seen on ties).
func surface(c *candidate) string {
	best, n := "", -1
	forms := make([]string, 0, len(c.forms))
	for f := range c.forms {
		forms = append(forms, f)
	}
	sort.Strings(forms)
	for _, f := range forms {
		if c.forms[f] > n {
			best, n = f, c.forms[f]
		}
	}
	return best
}

// phraseScore combines the TextRank scores of a phrase's words with how
// often the phrase itself occurs: the mean word score, times a bonus for
// length (a specific multi-word phrase says more than one of its words)
// and for repetition. Repetition counts the free occurrences only (see
// freeCount), and a phrase with none, which only ever occurs inside a
// repeated longer phrase ("bee" in "honey bees" and "bee colonies"),
// scores half.
func phraseScore(c *candidate, ws map[string]float64, free int) float64 {
	sum := 0.0
	for _, s := range c.stems {
		sum += ws[s]
	}
	mean := sum / float64(len(c.stems))
	length := 1 + lengthBonus*float64(len(c.stems)-1)
	freq := 1 + math.Log2(float64(max(free, 1)))
	if free == 0 {
		freq = 0.5
	}
	return mean * length * freq
}

// freeCount is the number of occurrences of c that are not inside an
// occurrence of a longer candidate occurring at least twice (repeated
// holds those occurrences; no candidate is longer than maxWords).
func freeCount(c *candidate, repeated map[[2]int]bool, maxWords int) int {
	n := 0
	for _, r := range c.occ {
		inside := false
		for a := r[0] - maxWords; a <= r[0] && !inside; a++ {
			for b := r[1]; b <= a+maxWords && !inside; b++ {
				inside = b-a > r[1]-r[0] && repeated[[2]int{a, b}]
			}
		}
		if !inside {
			n++
		}
	}
	return n
}

// lengthBonus is the weight of each word past the first in phraseScore.
const lengthBonus = 0.5

// selectPhrases takes the best candidates, never two that overlap:
//
//   - a candidate whose words run inside a phrase taken is skipped
//     ("quality alerts" or "alerts" after "air quality alerts"), except
//     that one word that is the last word of two or more phrases taken
//     replaces them, which are its variants ("old cabinets" and "new
//     cabinets" become "cabinets");
//   - a candidate every occurrence of which lies partly over an
//     occurrence of a phrase taken is skipped ("Zeno effect" after
//     "quantum Zeno");
//   - a candidate that lengthens a phrase of two or more words already
//     taken is skipped ("standard GHZ paradox" after "GHZ paradox"); one
//     that qualifies a single word taken is kept ("deep sleep" after
//     "sleep") unless it always comes with it.
//
// The result is in score order.
func selectPhrases(cands []*candidate, max int) []*candidate {
	var chosen []*candidate
	for _, c := range cands {
		if len(chosen) == max {
			break
		}
		inside := false
		for _, k := range chosen {
			inside = inside || len(k.stems) > len(c.stems) && containsRun(k.stems, c.stems)
		}
		if inside {
			if len(c.stems) != 1 {
				continue
			}
			var heads []int
			for i, k := range chosen {
				if len(k.stems) > 1 && k.stems[len(k.stems)-1] == c.stems[0] {
					heads = append(heads, i)
				}
			}
			if len(heads) >= 2 {
				chosen[heads[0]] = c
				for j := len(heads) - 1; j >= 1; j-- {
					chosen = slices.Delete(chosen, heads[j], heads[j]+1)
				}
			}
			continue
		}
		lengthens := false
		for _, k := range chosen {
			lengthens = lengthens || len(k.stems) > 1 && len(c.stems) > len(k.stems) && containsRun(c.stems, k.stems)
		}
		if !lengthens && !extendsOnly(c, chosen) && !overlapsAll(c, chosen) {
			chosen = append(chosen, c)
		}
	}
	sort.SliceStable(chosen, func(i, j int) bool { return chosen[i].score > chosen[j].score })
	return chosen
}

// containsRun reports whether inner occurs as consecutive words of outer.
func containsRun(outer, inner []string) bool {
	for i := 0; i+len(inner) <= len(outer); i++ {
		if slices.Equal(outer[i:i+len(inner)], inner) {
			return true
		}
	}
	return false
}

// overlapsAll reports whether every occurrence of c lies inside or
// partly over an occurrence of a chosen phrase (a chosen phrase inside c
// is not an overlap: selectPhrases decides on those).
func overlapsAll(c *candidate, chosen []*candidate) bool {
	for _, r := range c.occ {
		hit := false
		for _, k := range chosen {
			for _, o := range k.occ {
				if o[0] < r[1] && r[0] < o[1] && !(r[0] <= o[0] && o[1] <= r[1]) {
					hit = true
					break
				}
			}
			if hit {
				break
			}
		}
		if !hit {
			return false
		}
	}
	return true
}

// extendsOnly reports whether c is a chosen phrase with words it always
// comes with.
func extendsOnly(c *candidate, chosen []*candidate) bool {
	for _, k := range chosen {
		if len(k.stems) < len(c.stems) && len(c.occ) == len(k.occ) && covered(k.occ, c.occ) {
			return true
		}
	}
	return false
}

// covered reports whether every range of inner lies within a range of
// outer.
func covered(inner, outer [][2]int) bool {
	for _, r := range inner {
		ok := false
		for _, o := range outer {
			if o[0] <= r[0] && r[1] <= o[1] {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}
