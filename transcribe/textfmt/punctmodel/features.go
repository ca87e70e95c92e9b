package punctmodel

import (
	"strconv"
	"strings"
)

// Mark is the punctuation after a word.
type Mark uint8

// The marks, in the order of the model's classes.
const (
	None Mark = iota
	Comma
	Period
	Question
	numMarks
)

// String returns "", ",", "." or "?".
func (m Mark) String() string {
	switch m {
	case Comma:
		return ","
	case Period:
		return "."
	case Question:
		return "?"
	}
	return ""
}

// EndsSentence reports whether m is "." or "?".
func (m Mark) EndsSentence() bool { return m == Period || m == Question }

// MarkOf reads the mark a formatted word ends with ("dollars." Period,
// "it?\"" Question, "well," or "so;" Comma), as the evaluation scores a
// punctuate stage's output.
func MarkOf(text string) Mark {
	switch t := strings.TrimRight(text, `"')`); {
	case strings.HasSuffix(t, "?"):
		return Question
	case strings.HasSuffix(t, ".") || strings.HasSuffix(t, "!"):
		return Period
	case strings.HasSuffix(t, ",") || strings.HasSuffix(t, ";") || strings.HasSuffix(t, ":"):
		return Comma
	}
	return None
}

// Gap is what the model knows about the gap after one word: the pause
// before the next word, whether the speaker or channel changes there, and
// whether the gap lies inside a span that must stay whole.
type Gap struct {
	PauseMs int64
	Turn    bool // a change of speaker or channel: a sentence end
	// Hold: the gap lies inside a span that takes no mark (a number, a
	// date, an address, a name, spelled letters: the caller knows them),
	// so decoding leaves it unmarked unless Turn is set.
	Hold bool
}

// pauseBucket maps a pause to one of the model's pause classes.
func pauseBucket(ms int64) int {
	for i, b := range pauseBounds {
		if ms < b {
			return i
		}
	}
	return len(pauseBounds)
}

// pauseBounds are the upper bounds (ms) of the pause classes.
var pauseBounds = []int64{20, 100, 200, 350, 550, 800, 1200}

// fnv-1a, 32 bit.
const (
	offset32 = 2166136261
	prime32  = 16777619
)

func hashStr(h uint32, s string) uint32 {
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= prime32
	}
	return h
}

// featurizer hashes the features of gaps into a table of 1<<bits rows.
type featurizer struct {
	mask uint32
	out  []uint32
}

func (f *featurizer) add(parts ...string) {
	h := uint32(offset32)
	for i, p := range parts {
		if i > 0 {
			h ^= 0x1f
			h *= prime32
		}
		h = hashStr(h, p)
	}
	f.out = append(f.out, h&f.mask)
}

// state is what the decoder has decided before a gap: where the current
// sentence and clause started and the mark at the previous gap.
type state struct {
	start  int // the current sentence's first word
	clause int // the current clause's first word (after the last mark)
	prev   Mark
}

// next returns the state after mark mk on word i.
func (st state) next(i int, mk Mark) state {
	st.prev = mk
	if mk != None {
		st.clause = i + 1
	}
	if mk.EndsSentence() {
		st.start = i + 1
	}
	return st
}

// whWords begin a question ("what", "where" ...).
var whWords = map[string]bool{"what": true, "where": true, "when": true, "why": true, "who": true, "whom": true,
	"whose": true, "which": true, "how": true, "what's": true, "where's": true, "who's": true, "how's": true,
	"why's": true, "when's": true}

// auxWords begin a yes-no question when a subject follows ("do you",
// "is it", "can we").
var auxWords = map[string]bool{"do": true, "does": true, "did": true, "is": true, "are": true, "was": true,
	"were": true, "am": true, "can": true, "could": true, "will": true, "would": true, "shall": true,
	"should": true, "may": true, "might": true, "must": true, "have": true, "has": true, "had": true,
	"don't": true, "doesn't": true, "didn't": true, "isn't": true, "aren't": true, "wasn't": true,
	"weren't": true, "can't": true, "couldn't": true, "won't": true, "wouldn't": true, "shan't": true,
	"shouldn't": true, "haven't": true, "hasn't": true, "hadn't": true, "mustn't": true, "ain't": true}

// subjects follow an auxiliary in a yes-no question.
var subjects = map[string]bool{"i": true, "you": true, "he": true, "she": true, "it": true, "we": true,
	"they": true, "there": true, "that": true, "this": true, "anyone": true, "anybody": true, "one": true}

// finite are finite verbs that follow a clause's subject ("my new job
// is", "mortgage rates have"): the first of them among the next words
// shows where a new clause may start.
var finite = map[string]bool{"is": true, "was": true, "are": true, "were": true, "am": true, "has": true,
	"have": true, "had": true, "will": true, "would": true, "can": true, "could": true, "shall": true,
	"should": true, "may": true, "might": true, "must": true, "does": true, "do": true, "did": true}

// qshape returns the question shape of the words from first to last: "wh"
// (a wh-word), "auxs" (an auxiliary and a subject pronoun), "aux" (an
// auxiliary alone) or "-".
func qshape(ws []string, first, last int) string {
	w := at(ws, first)
	switch {
	case whWords[w]:
		return "wh"
	case auxWords[w] && first+1 <= last && subjects[at(ws, first+1)]:
		return "auxs"
	case auxWords[w]:
		return "aux"
	}
	return "-"
}

func at(ws []string, i int) string {
	switch {
	case i < 0:
		return "<s>"
	case i >= len(ws):
		return "</s>"
	}
	return ws[i]
}

func suffix(w string) string {
	if len(w) <= 3 {
		return w
	}
	return w[len(w)-3:]
}

func lenBucket(n int) string {
	switch {
	case n <= 2:
		return strconv.Itoa(n)
	case n <= 4:
		return "3-4"
	case n <= 7:
		return "5-7"
	case n <= 11:
		return "8-11"
	case n <= 17:
		return "12-17"
	case n <= 25:
		return "18-25"
	}
	return "26+"
}

// gapFeatures returns the hashed features of the gap after word i.
func (f *featurizer) gapFeatures(ws []string, gaps []Gap, i int, st state) []uint32 {
	f.out = f.out[:0]
	w0, w1, wm1, w2, wm2 := at(ws, i), at(ws, i+1), at(ws, i-1), at(ws, i+2), at(ws, i-2)
	p := strconv.Itoa(pauseBucket(gaps[i].PauseMs))
	s0, s1 := opening(ws, st.start, i)
	n := lenBucket(i - st.start + 1)
	f.add("b")
	f.add("w0", w0)
	f.add("w1", w1)
	f.add("wm1", wm1)
	f.add("w2", w2)
	f.add("w0w1", w0, w1)
	f.add("wm1w0", wm1, w0)
	f.add("w1w2", w1, w2)
	f.add("wm2wm1w0", wm2, wm1, w0)
	f.add("wm1w0w1", wm1, w0, w1)
	f.add("w0w1w2", w0, w1, w2)
	f.add("w1w2w3", w1, w2, at(ws, i+3))
	f.add("w0_w2", w0, w2)
	f.add("wm1_w1", wm1, w1)
	f.add("suf0", suffix(w0))
	f.add("p", p)
	f.add("pw0", p, w0)
	f.add("pw1", p, w1)
	f.add("pn", p, n)
	f.add("n", n)
	f.add("nw1", n, w1)
	f.add("s0", s0)
	f.add("s0s1", s0, s1)
	f.add("s0w0", s0, w0)
	f.add("s0n", s0, n)
	c0, c1 := opening(ws, st.clause, i)
	qs, qc := qshape(ws, st.start, i), qshape(ws, st.clause, i)
	f.add("c0c1", c0, c1)
	f.add("c0w0", c0, w0)
	f.add("qs", qs)
	f.add("qc", qc)
	f.add("qsqc", qs, qc)
	f.add("qsn", qs, n)
	f.add("qcw1", qc, w1)
	for j := 1; j <= 4; j++ {
		if finite[at(ws, i+j)] {
			v := strconv.Itoa(j)
			f.add("rv", v)
			f.add("rvw1", v, w1)
			break
		}
	}
	f.add("prev", strconv.Itoa(int(st.prev)))
	f.add("prevw1", strconv.Itoa(int(st.prev)), w1)
	if gaps[i].Turn {
		f.add("turn")
	}
	return f.out
}

// opening returns the first two words of the span of ws from start to
// i, the second "</s>" when the span is one word long.
func opening(ws []string, start, i int) (first, second string) {
	if start+1 <= i {
		return at(ws, start), at(ws, start+1)
	}
	return at(ws, start), "</s>"
}

// endFeatures returns the hashed features of a possible turn end after
// word i, from the words before it and the pause only (the next word is
// not known yet).
func (f *featurizer) endFeatures(ws []string, pauseMs int64, i int, start int) []uint32 {
	f.out = f.out[:0]
	w0, wm1, wm2 := at(ws, i), at(ws, i-1), at(ws, i-2)
	p := strconv.Itoa(pauseBucket(pauseMs))
	s0, s1 := opening(ws, start, i)
	n := lenBucket(i - start + 1)
	f.add("b")
	f.add("w0", w0)
	f.add("wm1w0", wm1, w0)
	f.add("wm2wm1w0", wm2, wm1, w0)
	f.add("suf0", suffix(w0))
	f.add("p", p)
	f.add("pw0", p, w0)
	f.add("pn", p, n)
	f.add("n", n)
	f.add("s0", s0)
	f.add("s0s1", s0, s1)
	f.add("s0w0", s0, w0)
	return f.out
}

// Normalize returns the model's form of a recognized word: lower case,
// without attached marks, and NumberWord for any word with a digit.
func Normalize(text string) string {
	w := strings.ToLower(strings.Trim(text, ".,?!;:\"()[]"))
	if strings.ContainsAny(w, "0123456789") {
		return NumberWord
	}
	return w
}
