package punctmodel

import (
	"bufio"
	"crypto/sha256"
	_ "embed" // the committed classifier
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Capitals is the contextual casing classifier: for a word the casing
// lexicon and rules leave in lower case, it decides from the words around
// it whether the word is written with a capital here ("the labour party",
// "the world cup", "the home office"), which a lexicon of single words
// cannot: each of those words is an ordinary word elsewhere. A logistic
// regression over hashed features of the word, its neighbours, their
// pairs and triples, and whether the lexicon capitalises the neighbours,
// trained on current text (see the package documentation, "Capitals").
type Capitals struct {
	bits uint
	w    []float32
	// Threshold is the log-odds over which a word is capitalised (tuned
	// on development data).
	Threshold float32
	// forms are the written forms of words capitalised other than at the
	// first letter alone ("pc" -> "PC"), as the training text writes them.
	forms map[string]string
}

const magicC = "ECAPS001"

// The committed casing classifier (see the package documentation,
// "Capitals"); Default uses it.
//
//go:embed capitals.bin.gz
var capitalsFile []byte

// CapitalsChecksum returns the SHA-256 (hex) of the committed casing
// classifier file.
func CapitalsChecksum() string {
	s := sha256.Sum256(capitalsFile)
	return hex.EncodeToString(s[:])
}

// capCandidate reports whether the classifier decides the case of w.
func capCandidate(w string) bool {
	// Titles are the rules' ("miss" before a capitalised name): "i
	// shall miss you", "yes sir".
	return len(w) >= 2 && w != NumberWord && isAlpha(w) && w != "i" && !strings.HasPrefix(w, "i'") && !titles[w]
}

// capFeatures returns the hashed features of word i; rule are the forms
// the lexicon and rules gave ("" for lower case).
func (f *featurizer) capFeatures(ws, rule []string, i int) []uint32 {
	f.out = f.out[:0]
	w0, wm1, w1, wm2, w2 := at(ws, i), at(ws, i-1), at(ws, i+1), at(ws, i-2), at(ws, i+2)
	rc := func(j int) string {
		if j < 0 || j >= len(rule) {
			return "x"
		}
		if rule[j] != "" {
			return "C"
		}
		return "-"
	}
	rm1, r1 := rc(i-1), rc(i+1)
	f.add("b")
	f.add("w0", w0)
	f.add("wm1", wm1)
	f.add("w1", w1)
	f.add("wm1w0", wm1, w0)
	f.add("w0w1", w0, w1)
	f.add("wm2wm1w0", wm2, wm1, w0)
	f.add("w0w1w2", w0, w1, w2)
	f.add("wm1w0w1", wm1, w0, w1)
	f.add("suf0", suffix(w0))
	f.add("rm1", rm1)
	f.add("r1", r1)
	f.add("rm1r1", rm1, r1)
	f.add("rm1w0", rm1, w0)
	f.add("w0r1", w0, r1)
	return f.out
}

// apply capitalises in out the words the classifier reads as written with
// a capital; out are the lexicon's and rules' forms. It reads them twice:
// the second time with the capitals of the first, so that a word before
// a name it capitalised can join it ("world" before "Cup").
func (c *Capitals) apply(words, out []string) {
	c.pass(words, out)
	c.pass(words, out)
}

// pass decides each lower-case candidate once, reading the neighbours'
// forms as they were before the pass.
func (c *Capitals) pass(words, out []string) {
	rule := append([]string(nil), out...)
	f := featurizer{mask: 1<<c.bits - 1}
	for i, w := range words {
		if out[i] != "" || !capCandidate(w) {
			continue
		}
		var z float32
		for _, h := range f.capFeatures(words, rule, i) {
			z += c.w[h]
		}
		if z > c.Threshold {
			out[i] = c.form(w)
		}
	}
}

// form returns w's capitalised form.
func (c *Capitals) form(w string) string {
	if f, ok := c.forms[w]; ok {
		return f
	}
	return capitalize(w)
}

// WithCapitals returns a copy of m, sharing its tables, whose casing also
// asks c (nil: the lexicon and rules alone).
func (m *Model) WithCapitals(c *Capitals) *Model {
	cp := *m
	cp.c = c
	return &cp
}

// Capitals returns the model's contextual casing classifier (nil when
// none).
func (m *Model) Capitals() *Capitals { return m.c }

// TrainCapitals trains the contextual casing classifier on texts
// (paragraphs of tokens, as Tokenize gives them): each word m's lexicon
// and rules leave in lower case, not at a sentence start, is an example,
// capitalised when the text writes it so.
func TrainCapitals(m *Model, texts [][]Token, bits uint, epochs int, seed uint64) *Capitals {
	if bits == 0 {
		bits = 20
	}
	if epochs == 0 {
		epochs = 3
	}
	base := m.WithCapitals(nil)
	type text struct{ words, rule []string }
	type ex struct {
		t, i int
		y    bool
	}
	ts := make([]text, len(texts))
	var exs []ex
	formCount := map[string]map[string]int{}
	for ti, toks := range texts {
		words := make([]string, len(toks))
		for i, tk := range toks {
			words[i] = tk.Word
		}
		rule := base.Case(words)
		ts[ti] = text{words, rule}
		heading := len(toks) > 3 && allCaps(toks)
		for i, tk := range toks {
			if tk.Start || rule[i] != "" || !capCandidate(tk.Word) || tk.Form == "" {
				continue
			}
			r, _ := utf8.DecodeRuneInString(tk.Form)
			up := unicode.IsUpper(r)
			if up && heading && tk.Form == strings.ToUpper(tk.Form) {
				continue // a heading written in capitals
			}
			exs = append(exs, ex{ti, i, up})
			if up && strings.EqualFold(tk.Form, tk.Word) {
				if formCount[tk.Word] == nil {
					formCount[tk.Word] = map[string]int{}
				}
				formCount[tk.Word][tk.Form]++
			}
		}
	}
	c := &Capitals{bits: bits, forms: map[string]string{}}
	for w, fc := range formCount {
		best, n := "", 0
		for f, k := range fc {
			if k > n || (k == n && f < best) {
				best, n = f, k
			}
		}
		if best != capitalize(w) {
			c.forms[w] = best
		}
	}
	f := featurizer{mask: uint32(1<<bits - 1)}
	rng := rand.New(rand.NewPCG(seed, 0xca95))
	c.w = fitLogistic(len(exs), func(k int) ([]uint32, bool) {
		x := exs[k]
		return f.capFeatures(ts[x.t].words, ts[x.t].rule, x.i), x.y
	}, bits, epochs, rng)
	return c
}

// allCaps reports whether most of the tokens are written all in capitals.
func allCaps(toks []Token) bool {
	n := 0
	for _, tk := range toks {
		if tk.Form != "" && tk.Form == strings.ToUpper(tk.Form) && tk.Form != strings.ToLower(tk.Form) {
			n++
		}
	}
	return 2*n > len(toks)
}

// Write writes c (gzip of a binary body, see hashed.go, then the forms as
// sorted lines "word\tform").
func (c *Capitals) Write(w io.Writer) error {
	return writeHashed(w, magicC, c.bits, c.Threshold, c.w, func(bw *bufio.Writer) error {
		words := make([]string, 0, len(c.forms))
		for w := range c.forms {
			words = append(words, w)
		}
		sort.Strings(words)
		for _, w := range words {
			if _, err := fmt.Fprintf(bw, "%s\t%s\n", w, c.forms[w]); err != nil {
				return err
			}
		}
		return nil
	})
}

// ReadCapitals reads a classifier written by Capitals.Write.
func ReadCapitals(r io.Reader) (*Capitals, error) {
	bits, th, w, br, err := readHashed(r, magicC, "casing")
	if err != nil {
		return nil, err
	}
	c := &Capitals{bits: bits, w: w, Threshold: th, forms: map[string]string{}}
	sc := bufio.NewScanner(br)
	for sc.Scan() {
		w, f, ok := strings.Cut(sc.Text(), "\t")
		if !ok || w == "" || !strings.EqualFold(w, f) {
			return nil, fmt.Errorf("punctmodel: casing: bad form line %q", sc.Text())
		}
		c.forms[w] = f
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("punctmodel: casing: %w", err)
	}
	return c, nil
}
