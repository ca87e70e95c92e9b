package summary

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/earshot-dev/earshot/transcribe/analysis/nlp"
)

// Gist phrases (see doc.go).
const (
	maxGistWords = 5 // longest gist phrase
)

// phrase is a gist candidate: a run of tokens of one sentence.
type phrase struct {
	sent, from, to int // sentence index and token range [from, to)
}

// candidates returns the noun phrases of sentence i: runs of adjectives
// and nouns (Penn tags JJ*, NN*) that end in a noun, optionally joined by "of" ("price of gas"), within a clause, at
// most maxGistWords words, with stop words and redactions only inside
// "of" joins.
func (x *Text) candidates(i int, tags []string) []phrase {
	toks := x.sents[i].toks
	var out []phrase
	isMod := func(k int) bool {
		t := tags[k]
		return nlp.IsAdjectiveTag(t) || nlp.IsNounTag(t)
	}
	ok := func(k int) bool {
		tk := toks[k]
		return tk.IsWord() && !nlp.IsStopWord(tk.Norm) && !timeWords[tk.Norm] && isMod(k)
	}
	for k := 0; k < len(toks); {
		if !ok(k) {
			k++
			continue
		}
		j := k
		for j < len(toks) && ok(j) && (j == k || !toks[j-1].EndsClause()) {
			j++
		}
		// "of" + another run.
		if j+1 < len(toks) && toks[j].Norm == "of" && !toks[j-1].EndsClause() && ok(j+1) {
			e := j + 1
			for e < len(toks) && ok(e) && !toks[e-1].EndsClause() {
				e++
			}
			if e-k <= maxGistWords {
				j = e
			}
		}
		// Trim to end in a noun.
		e := j
		for e > k && !nlp.IsNounTag(tags[e-1]) {
			e--
		}
		if e > k {
			for s := k; s < e; s++ {
				if e-s <= maxGistWords {
					out = append(out, phrase{i, numberBefore(toks, tags, s, e), e})
					break
				}
			}
		}
		k = j
	}
	return out
}

// numberBefore returns where a phrase that starts at from with a unit
// ("year", "mile", "dollar") begins once the number before it is taken
// in: "a four year deal" gives "four year deal", not "year deal". The
// phrase stays within maxGistWords words and its clause.
func numberBefore(toks []nlp.Token, tags []string, from, to int) int {
	if !genericNouns[nlp.Stem(toks[from].Norm)] {
		return from
	}
	s := from
	for s > 0 && tags[s-1] == "CD" && toks[s-1].IsWord() && !toks[s-1].EndsClause() && to-(s-1) <= maxGistWords {
		s--
	}
	return s
}

// gistPhrase returns the best noun phrase of the text's most central
// sentences, or "" when there is none. A phrase scores the sum of its
// content words' weights (see below) over the square root of their
// number; a single generic noun ("week", "people") is never chosen.
func (x *Text) gistPhrase() string {
	if len(x.sents) == 0 {
		return ""
	}
	// Candidates come from the main topic only (the longest of the
	// segments Segment finds, or the whole text): the gist names what the
	// text is mainly about. A content word weighs the summed centrality of
	// the topic's sentences that use it, so the words the topic keeps
	// coming back to weigh most.
	from, to := x.mainTopic()
	t := x.topic(from, to)
	weight := map[int]float64{}
	for i, s := range t.sents {
		seen := map[int]bool{}
		for _, id := range s.terms {
			if !seen[id] {
				seen[id] = true
				weight[id] += t.rank[i]
			}
		}
	}
	top := make([]int, 0, to-from)
	for i := from; i < to; i++ {
		top = append(top, i)
	}
	type scored struct {
		p     phrase
		key   string
		score float64
		lower bool // capitalized only because it starts its sentence
	}
	best := scored{score: -1}
	var all []scored
	for _, i := range top {
		toks := append([]nlp.Token(nil), x.sents[i].toks...)
		if nlp.Tag(toks) != nil {
			return ""
		}
		tags := make([]string, len(toks))
		for k, tk := range toks {
			tags[k] = tk.Tag
		}
		for _, p := range x.candidates(i, tags) {
			var key []string
			w := 0.0
			content := 0
			last := ""
			for k := p.from; k < p.to; k++ {
				tk := x.sents[i].toks[k]
				if tk.Norm == "of" || tags[k] == "CD" {
					key = append(key, tk.Norm) // a join, or the number of a unit (numberBefore)
					continue
				}
				st := nlp.Stem(tk.Norm)
				key = append(key, st)
				if id, ok := x.vocab[st]; ok {
					w += weight[id]
				}
				content++
				last = st
			}
			if content == 0 {
				continue
			}
			if content == 1 && genericNouns[last] {
				continue
			}
			k := strings.Join(key, " ")
			lower := p.from == 0 && tags[0] != "NNP" && tags[0] != "NNPS"
			all = append(all, scored{p, k, w / math.Sqrt(float64(content)), lower})
		}
	}
	for _, c := range all {
		if c.score > best.score {
			best = c
		}
	}
	if best.score < 0 {
		return ""
	}
	text := x.phraseText(best.p)
	if best.lower {
		text = lowerInitial(text)
	}
	return text
}

// timeWords end a noun phrase: "colonies last winter" gives "colonies".
var timeWords = map[string]bool{
	"last": true, "next": true, "past": true, "previous": true, "coming": true, "early": true, "late": true,
	"winter": true, "summer": true, "spring": true, "autumn": true, "weekend": true, "today": true, "tonight": true,
	"yesterday": true, "tomorrow": true, "monday": true, "tuesday": true, "wednesday": true, "thursday": true,
	"friday": true, "saturday": true, "sunday": true,
}

// genericNouns name no subject on their own; they are never a one-word
// gist (stems).
var genericNouns = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("time day week month year hour minute second today tonight morning evening night " +
		"people person way part kind sort number lot place thing problem question answer point end start side case fact " +
		"idea reason example percent dollar mile other others one ones") {
		m[nlp.Stem(w)] = true
	}
	return m
}()

// phraseText returns the words of a phrase as written, without
// surrounding punctuation.
func (x *Text) phraseText(p phrase) string {
	s := x.sents[p.sent]
	var ws []string
	for k := p.from; k < p.to; k++ {
		ws = append(ws, s.toks[k].Text)
	}
	return strings.Join(ws, " ")
}

// lowerInitial lower-cases the first letter of s unless its first word
// is an acronym ("NASA").
func lowerInitial(s string) string {
	w, _, _ := strings.Cut(s, " ")
	if len(w) > 1 && strings.ToUpper(w) == w {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}

// titleCase capitalizes the words of s except short function words that
// are not first ("Rise of the Machines").
func titleCase(s string) string {
	ws := strings.Fields(s)
	for i, w := range ws {
		if i > 0 && smallWords[strings.ToLower(w)] {
			ws[i] = strings.ToLower(w)
			continue
		}
		ws[i] = capitalize(w)
	}
	return strings.Join(ws, " ")
}

var smallWords = map[string]bool{
	"a": true, "an": true, "the": true, "and": true, "but": true, "or": true, "nor": true, "of": true,
	"in": true, "on": true, "at": true, "to": true, "for": true, "by": true, "with": true, "from": true, "as": true,
}
