package punctmodel

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	_ "embed" // the committed model
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Model is a trained punctuation, sentence-boundary and casing model. It is
// read-only once made and safe for concurrent use.
type Model struct {
	bits  uint
	w     []int16 // (1<<bits) rows of numMarks class weights
	tbits uint
	tw    []int16 // turn-end weights, 1<<tbits
	tbias float32 // turn-end weights are tw/tscale
	tsc   float32
	bias  [numMarks]int32 // added to the class scores (tuned on development data)
	// unpaused is added to the sentence-end scores at a gap with no pause
	// (tuned on development data; 0 in files of the first format)
	unpaused int32
	cased    strTable // lower-case word -> its usual written form
	known    strTable // words seen in lower case
	pairs    strTable // "w1 w2" usually written with both capitalised
	// q, when set, decides "?" or "." for each sentence end (Questions).
	q *Questions
	// c, when set, capitalises words by their context (Capitals).
	c *Capitals
}

//go:embed model.bin.gz
var embedded []byte

// Checksum returns the SHA-256 (hex) of the committed model file.
func Checksum() string {
	s := sha256.Sum256(embedded)
	return hex.EncodeToString(s[:])
}

// Default returns the committed model, read once.
var Default = sync.OnceValues(defaultModel)

// magic begins a model file; magic1 files (before the unpaused offset)
// are read too.
const (
	magic  = "EPUNCT02"
	magic1 = "EPUNCT01"
)

// Write writes m in the model file format (gzip of a binary body).
func (m *Model) Write(w io.Writer) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(zw)
	le := binary.LittleEndian
	hdr := []any{[]byte(magic), uint32(m.bits), uint32(m.tbits), m.tbias, m.tsc, m.bias, m.unpaused}
	for _, v := range hdr {
		if err := binary.Write(bw, le, v); err != nil {
			return err
		}
	}
	if err := binary.Write(bw, le, m.w); err != nil {
		return err
	}
	if err := binary.Write(bw, le, m.tw); err != nil {
		return err
	}
	return m.finishLexicon(zw, bw)
}

// finishLexicon writes the lexicon to bw, sorted lines "word\tform" (form
// empty for known lower-case words, "+" for a pair "w1 w2" written
// capitalised), and closes the gzip stream under it.
func (m *Model) finishLexicon(zw *gzip.Writer, bw *bufio.Writer) error {
	for _, line := range m.lexiconLines() {
		bw.WriteString(line)
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return zw.Close()
}

// Read reads a model written by Write.
func Read(r io.Reader) (*Model, error) { return read(r, true) }

// read reads a model file, with its lexicon unless lexicon is false (the
// weights alone, for a model whose lexicon is replaced: see Default).
func read(r io.Reader, lexicon bool) (*Model, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("punctmodel: %w", err)
	}
	br := bufio.NewReader(zr)
	le := binary.LittleEndian
	mg := make([]byte, len(magic))
	if _, err := io.ReadFull(br, mg); err != nil || string(mg) != magic && string(mg) != magic1 {
		return nil, errors.New("punctmodel: not a model file")
	}
	var bits, tbits uint32
	m := &Model{}
	hdr := []any{&bits, &tbits, &m.tbias, &m.tsc, &m.bias}
	if string(mg) == magic {
		hdr = append(hdr, &m.unpaused)
	}
	for _, v := range hdr {
		if err := binary.Read(br, le, v); err != nil {
			return nil, fmt.Errorf("punctmodel: header: %w", err)
		}
	}
	if bits < 8 || bits > 24 || tbits < 8 || tbits > 24 {
		return nil, fmt.Errorf("punctmodel: table sizes %d/%d out of range", bits, tbits)
	}
	m.bits, m.tbits = uint(bits), uint(tbits)
	m.w = make([]int16, (1<<bits)*int(numMarks))
	m.tw = make([]int16, 1<<tbits)
	if err := readInt16s(br, m.w); err != nil {
		return nil, fmt.Errorf("punctmodel: weights: %w", err)
	}
	if err := readInt16s(br, m.tw); err != nil {
		return nil, fmt.Errorf("punctmodel: turn-end weights: %w", err)
	}
	if !lexicon {
		return m, nil
	}
	if err := m.readLexicon(br); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *Model) lexiconLines() []string {
	lines := make([]string, 0, m.known.len()+m.cased.len()+m.pairs.len())
	m.known.each(func(w, _ string) { lines = append(lines, w+"\t") })
	m.cased.each(func(w, f string) { lines = append(lines, w+"\t"+f) })
	m.pairs.each(func(p, _ string) { lines = append(lines, p+"\t+") })
	sortStrings(lines)
	return lines
}

// Bytes returns the memory the model's tables take (weights and lexicon).
func (m *Model) Bytes() int {
	n := 2*len(m.w) + 2*len(m.tw)
	if m.q != nil {
		n += 4 * len(m.q.w)
	}
	if m.c != nil {
		n += 4 * len(m.c.w)
		for w, f := range m.c.forms {
			n += len(w) + len(f) + 48
		}
	}
	return n + m.cased.bytes() + m.known.bytes() + m.pairs.bytes()
}

func (m *Model) scores(feats []uint32, out *[numMarks]int32) {
	*out = m.bias
	for _, f := range feats {
		row := m.w[int(f)*int(numMarks) : int(f+1)*int(numMarks)]
		for c := range numMarks {
			out[c] += int32(row[c])
		}
	}
}

// Marks returns the mark after each word. words are recognized words in
// the model's form (see Normalize); gaps[i] describes the gap after
// words[i] (the last is ignored). The last word always ends a sentence.
// Decoding is greedy, left to right: each decision sees where the current
// sentence started and the mark before. A change of speaker or channel
// (Gap.Turn) always ends a sentence; a held gap (Gap.Hold) never takes a
// mark otherwise, and the decoding after it knows that.
func (m *Model) Marks(words []string, gaps []Gap) []Mark {
	d := m.decode(words, gaps)
	if m.q != nil {
		m.q.apply(words, gaps, d.marks, d.qMargin)
	}
	return d.marks
}

// decoded is what the decoder found: the marks, and at each gap its score
// of "?" less that of ".".
type decoded struct {
	marks   []Mark
	qMargin []int32
}

// decode is Marks without the classifiers that come after the decoder.
func (m *Model) decode(words []string, gaps []Gap) decoded {
	d := decoded{marks: make([]Mark, len(words)), qMargin: make([]int32, len(words))}
	marks := d.marks
	f := featurizer{mask: 1<<m.bits - 1}
	st := state{}
	var sc [numMarks]int32
	for i := range words {
		m.scores(f.gapFeatures(words, gaps, i, st), &sc)
		if gaps[i].PauseMs == 0 {
			sc[Period] += m.unpaused
			sc[Question] += m.unpaused
		}
		d.qMargin[i] = sc[Question] - sc[Period]
		best := None
		if i == len(words)-1 || gaps[i].Turn {
			// A forced end is a question when the model scores "?" over
			// ".": "no mark" and "," are out of the question there (and
			// "no mark" is never learnt at a text's last word).
			best = Period
			if sc[Question] > sc[Period] {
				best = Question
			}
		} else if !gaps[i].Hold {
			for c := Comma; c < numMarks; c++ {
				if sc[c] > sc[best] {
					best = c
				}
			}
		}
		marks[i] = best
		st = st.next(i, best)
	}
	endAtPause(marks, gaps)
	return d
}

// endAtPause moves a sentence end the model placed on a word with no pause
// after it back to the word before, when that word has a pause after it
// and a comma or no mark ("... survive somewhere around, mortgage. Rates
// have ..." -> "... somewhere around. Mortgage rates have ..."): greedy
// decoding has already passed the paused gap when the words after the
// next one show that a sentence starts there, and a pause is far more
// common at a sentence end than inside a sentence (see doc.go, "Pauses").
// A sentence end on a word with no pause after it, right after a paused
// sentence end, is dropped: a one-word sentence is rare where the speaker
// does not pause after it ("around. Mortgage. Rates have ..." ->
// "around. Mortgage rates have ..."). On the development book (simulated
// pauses, 28,078 words) it moves 92 ends and drops 86, sentence-end F1
// 0.675 -> 0.695.
func endAtPause(marks []Mark, gaps []Gap) {
	for i := 1; i+1 < len(marks); i++ {
		if marks[i].EndsSentence() && !gaps[i].Turn && gaps[i].PauseMs == 0 && marks[i-1].EndsSentence() && gaps[i-1].PauseMs > 0 {
			// A one-word sentence with no pause after it, after a
			// paused end: the end at the pause starts the sentence the
			// word begins ("around. Mortgage. Rates" -> "around.
			// Mortgage rates").
			marks[i] = None
			continue
		}
		if marks[i].EndsSentence() && !gaps[i].Turn && gaps[i].PauseMs == 0 && gaps[i-1].PauseMs > 0 && !gaps[i-1].Hold &&
			(marks[i-1] == Comma || marks[i-1] == None) && (i < 2 || !marks[i-2].EndsSentence()) {
			marks[i-1], marks[i] = marks[i], None
		}
	}
}

// Offsets are the score offsets the model adds to its classes' scores,
// tuned on development data.
type Offsets struct {
	SentenceEnd int32 // added to "." and "?"
	Question    int32 // added to "?" over SentenceEnd
	Comma       int32 // added to ","
	// Unpaused is added to "." and "?" at a gap with no pause (Gap.PauseMs
	// 0): a recognizer's words run on without a gap inside sentences, so
	// a sentence end there needs stronger words.
	Unpaused int32
}

// Offsets returns the model's score offsets.
func (m *Model) Offsets() Offsets {
	return Offsets{SentenceEnd: m.bias[Period], Question: m.bias[Question] - m.bias[Period], Comma: m.bias[Comma], Unpaused: m.unpaused}
}

// WithOffsets returns a copy of m, sharing its tables, with other score
// offsets: for tuning them through a punctuate stage
// (textfmt.Punctuator.Model).
func (m *Model) WithOffsets(o Offsets) *Model {
	c := *m
	c.bias = [numMarks]int32{Period: o.SentenceEnd, Question: o.SentenceEnd + o.Question, Comma: o.Comma}
	c.unpaused = o.Unpaused
	return &c
}

// TuneBias sets the score offset of the sentence-end marks ("." and "?")
// that gives the best sentence-end F1 on development data (never on test
// data), and returns it with that F1.
func (m *Model) TuneBias(words []string, gaps []Gap, gold []Mark) (int32, float64) {
	bestB, bestF := int32(0), -1.0
	for b := int32(-16000); b <= 32000; b += 2000 {
		m.bias = [numMarks]int32{Period: b, Question: b}
		if f := Score(gold, m.Marks(words, gaps)).SentenceEnd.F(); f > bestF {
			bestB, bestF = b, f
		}
	}
	m.bias = [numMarks]int32{Period: bestB, Question: bestB}
	return bestB, bestF
}

// TuneQuestion sets the score offset of "?" over that of "." (after
// TuneBias) that gives the best question F1 on development data (never
// on test data), and returns it with that F1 and the sentence-end F1.
func (m *Model) TuneQuestion(words []string, gaps []Gap, gold []Mark) (q int32, qF, seF float64) {
	base := m.bias
	bestQ, bestF := int32(0), -1.0
	for d := int32(-16000); d <= 16000; d += 1000 {
		m.bias = base
		m.bias[Question] += d
		s := Score(gold, m.Marks(words, gaps))
		// Ties go to the offset nearest 0.
		if f := s.Question.F(); f > bestF || (f == bestF && abs32(d) < abs32(bestQ)) {
			bestQ, bestF, seF = d, f, s.SentenceEnd.F()
		}
	}
	m.bias = base
	m.bias[Question] += bestQ
	return bestQ, bestF, seF
}

func abs32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

// TurnEnd returns the probability that a sentence (and so possibly the
// speaker's turn) ends after the last of words, given the pause after it
// so far; words are the turn's words so far in the model's form. A
// streaming endpointer can end a turn early when it is high.
func (m *Model) TurnEnd(words []string, pauseMs int64) float64 {
	if len(words) == 0 {
		return 0
	}
	start := 0
	if len(words) > 1 {
		gaps := make([]Gap, len(words)-1)
		for i, mk := range m.Marks(words[:len(words)-1], gaps) {
			if mk.EndsSentence() && i < len(words)-2 {
				start = i + 1
			}
		}
	}
	f := featurizer{mask: 1<<m.tbits - 1}
	s := float64(m.tbias)
	for _, h := range f.endFeatures(words, pauseMs, len(words)-1, start) {
		s += float64(m.tw[h]) / float64(m.tsc)
	}
	return 1 / (1 + math.Exp(-s))
}

// titles precede a name; those that are words are capitalised with it
// ("aunt augusta" -> "Aunt Augusta").
var titles = map[string]bool{"mr": true, "mrs": true, "ms": true, "miss": true, "dr": true, "mister": true,
	"missus": true, "sir": true, "lady": true, "lord": true, "captain": true, "uncle": true, "aunt": true,
	"professor": true, "president": true, "senator": true, "governor": true, "general": true, "colonel": true,
	"saint": true, "doctor": true, "madame": true, "monsieur": true}

// verbObjects follow a verb, never a title: "miss you", "miss the".
var verbObjects = set(`you me him her it us them the a an this that my your his our their`)

// placeHeads end the name of a place ("lisson grove" -> "Lisson Grove",
// "eynsford hill" -> "Eynsford Hill"): after a word cased as a name they
// are part of it, although the training text has them in lower case.
// Found on the development book, where they add 51 names capitalised (29
// of them "HILL" in capitalised stage directions) and no word the book
// writes in lower case (TestDevNames).
var placeHeads = set(`street road lane avenue square park grove hill gardens terrace crescent
	bridge river lake abbey castle cottage manor`)

// notNames are cased words that are not names that a place's head could
// follow: days, months and adjectives of nations, languages and faiths
// ("an english lane", "on monday hill walkers").
var notNames = set(`monday tuesday wednesday thursday friday saturday sunday january february
	march april may june july august september october november december english french german
	spanish italian chinese japanese american british canadian mexican indian russian european
	african asian australian irish scottish welsh dutch greek swiss swedish polish turkish korean
	arab arabic latin roman christian jewish muslim catholic protestant`)

// compass words begin a place's name before a place ("north america" ->
// "North America", "south kensington" -> "South Kensington"); before a
// nation's adjective they stay ("north american" is left as it is).
var compass = set(`north south east west`)

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// namesPlace reports whether words[i] is a place's head after a name.
func (m *Model) namesPlace(words []string, i int, prevForm string) bool {
	p := words[i-1]
	if !placeHeads[words[i]] || notNames[p] || len(p) < 3 || !isAlpha(p) || strings.Contains(p, "'") {
		return false
	}
	// After a word cased as a name, or one the training text never had:
	// "largelady park" -> "Largelady Park".
	return prevForm != "" || !m.isKnown(p)
}

// Case returns the written form of each word where the model knows one
// that differs from lower case: names, places and acronyms as the
// training text wrote them inside sentences ("london" -> "London", "fbi"
// -> "FBI", also with "'s"), the second word of a capitalised pair
// ("scotland yard" -> "Scotland Yard"), a word the lexicon does not have
// in lower case ("dashwood" -> "Dashwood"), a title before a capitalised
// name, a compass word before a place ("north america" -> "North
// America"), and "US" after an article ("the us economy"); then, when
// the model has one, the casing classifier adds the capitals of ordinary
// words that are part of a name where they stand ("the labour party" ->
// "Labour"; Capitals). Other entries are "". Sentence starts are not the model's business (the
// casing stage capitalises them).
func (m *Model) Case(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		if f, ok := m.cased.get(w); ok {
			out[i] = f
			continue
		}
		if base, ok := strings.CutSuffix(w, "'s"); ok {
			if f, ok := m.cased.get(base); ok {
				out[i] = f + "'s"
				continue
			}
		}
		if len(w) >= 3 && isAlpha(w) && !strings.HasPrefix(w, "i'") && !m.isKnown(w) {
			// A word neither the texts nor the word lists have in lower
			// case is a name ("ladki", "zoellick"; found on the
			// development parts of the news sets, with the lexicon of the
			// books and current text: before it, such a word was a name
			// only after a title, a name, "at", "from" or "near").
			out[i] = capitalize(w)
			continue
		}
		if i == 0 {
			continue
		}
		if out[i-1] != "" {
			if m.pairs.has(words[i-1] + " " + w) {
				out[i] = capitalize(w)
				continue
			}
		}
		if m.namesPlace(words, i, out[i-1]) {
			if out[i-1] == "" {
				out[i-1] = capitalize(words[i-1])
			}
			out[i] = capitalize(w)
			continue
		}
	}
	for i, w := range words {
		// A title the lexicon capitalises ("Miss") is a verb before its
		// object: "i shall miss you" (development book: 3 fewer wrong
		// capitals, 1 name fewer; BBC News dev: 7 fewer wrong).
		if titles[w] && out[i] != "" && strings.ToLower(out[i]) == w && i+1 < len(words) && verbObjects[words[i+1]] {
			out[i] = ""
		}
	}
	neighbourRules(words, out)
	if m.c != nil {
		// The classifier reads the forms of the rules above; a title or a
		// compass word before a name it capitalised is a name's too.
		m.c.apply(words, out)
		neighbourRules(words, out)
	}
	return out
}

// neighbourRules capitalises titles and compass words before a
// capitalised name and "us" after an article in out, the forms of words.
func neighbourRules(words, out []string) {
	for i := 0; i+1 < len(words); i++ {
		if titles[words[i]] && out[i] == "" && out[i+1] != "" && len(words[i]) > 3 {
			out[i] = capitalize(words[i])
		}
		if compass[words[i]] && out[i] == "" && out[i+1] != "" && !notNames[words[i+1]] && !strings.HasSuffix(words[i+1], "'s") {
			out[i] = capitalize(words[i])
		}
		if (words[i] == "the" || words[i] == "a") && (words[i+1] == "us" || words[i+1] == "us's") {
			// The pronoun never follows an article: "the us economy",
			// "a us firm" (found on the news development part).
			out[i+1] = strings.Replace(words[i+1], "us", "US", 1)
		}
	}
}

// Known reports whether the training text had w (in the model's form)
// written in lower case inside a sentence, that is as an ordinary word and
// not only as a name.
func (m *Model) Known(w string) bool { return m.isKnown(w) }

func (m *Model) isKnown(w string) bool {
	if m.known.has(w) {
		return true
	}
	base, ok := strings.CutSuffix(w, "'s")
	return ok && m.known.has(base)
}

func isAlpha(w string) bool {
	for _, r := range w {
		if !unicode.IsLetter(r) && r != '\'' {
			return false
		}
	}
	return true
}

func capitalize(w string) string {
	r, n := utf8.DecodeRuneInString(w)
	return string(unicode.ToUpper(r)) + w[n:]
}
