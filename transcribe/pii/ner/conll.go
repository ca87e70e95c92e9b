package ner

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Doc is one document as a transcript holds it: words with their
// punctuation attached, the words that start a sentence, and a BIO tag
// per word.
type Doc struct {
	Words  []string
	Starts []bool
	Tags   []string
}

// Lower returns a copy of d with every word lower-cased.
func (d Doc) Lower() Doc {
	c := Doc{Words: make([]string, len(d.Words)), Starts: d.Starts, Tags: d.Tags}
	for i, w := range d.Words {
		c.Words[i] = strings.ToLower(w)
	}
	return c
}

// attaches reports whether a CoNLL token is punctuation written apart
// that a transcript attaches to the word before it.
func attaches(tok string) bool {
	switch strings.ToLower(tok) {
	case ".", ",", ":", ";", "?", "!", ")", "'s", "'", "%", "n't", "'m", "'re", "'ve", "'ll", "'d":
		return true
	}
	return false
}

// ReadCoNLL reads documents in the CoNLL-2003 column form (token first,
// IOB1 or IOB2 tag last, "-DOCSTART-" between documents, a blank line
// between sentences). Punctuation tokens outside entities are joined to
// the word before them in the sentence, as a transcript writes them
// ("Japan ," -> "Japan,"), and tags become BIO.
func ReadCoNLL(r io.Reader) ([]Doc, error) {
	var docs []Doc
	var d *Doc
	newSent := true
	prevType := "O"
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	line := 0
	for sc.Scan() {
		line++
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 {
			newSent, prevType = true, "O"
			continue
		}
		if fs[0] == "-DOCSTART-" {
			docs = append(docs, Doc{})
			d = &docs[len(docs)-1]
			newSent, prevType = true, "O"
			continue
		}
		if len(fs) < 2 {
			return nil, fmt.Errorf("conll line %d: want a token and a tag, got %q", line, sc.Text())
		}
		if d == nil {
			docs = append(docs, Doc{})
			d = &docs[len(docs)-1]
		}
		tok, tag := fs[0], fs[len(fs)-1]
		typ := "O"
		if tag != "O" {
			if len(tag) < 3 || (tag[:2] != "B-" && tag[:2] != "I-") {
				return nil, fmt.Errorf("conll line %d: tag %q is not O, B-X or I-X", line, tag)
			}
			typ = tag[2:]
		}
		bio := "O"
		if typ != "O" {
			bio = "I-" + typ
			if strings.HasPrefix(tag, "B-") || typ != prevType {
				bio = "B-" + typ
			}
		}
		if attaches(tok) && !newSent && typ == "O" && len(d.Words) > 0 {
			d.Words[len(d.Words)-1] += tok
		} else {
			d.Words = append(d.Words, tok)
			d.Starts = append(d.Starts, newSent)
			d.Tags = append(d.Tags, bio)
		}
		newSent, prevType = false, typ
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return docs, nil
}

// Counts are exact-span matches of one entity type.
type Counts struct{ TP, FP, FN int }

// PRF returns precision, recall and F1.
func (c Counts) PRF() (p, r, f float64) {
	if c.TP+c.FP > 0 {
		p = float64(c.TP) / float64(c.TP+c.FP)
	}
	if c.TP+c.FN > 0 {
		r = float64(c.TP) / float64(c.TP+c.FN)
	}
	if p+r > 0 {
		f = 2 * p * r / (p + r)
	}
	return
}

// Add adds o to c.
func (c *Counts) Add(o Counts) { c.TP += o.TP; c.FP += o.FP; c.FN += o.FN }

// Evaluate tags every document (lower-cased first for a lower-case
// model) and counts exact span matches per type; sentence starts are
// derived from punctuation, as in a transcript.
func Evaluate(m *Model, docs []Doc) map[string]*Counts {
	out := map[string]*Counts{"PER": {}, "LOC": {}, "ORG": {}, "MISC": {}}
	for _, d := range docs {
		if !m.Cased {
			d = d.Lower()
		}
		got := map[Span]bool{}
		for _, s := range m.Spans(d.Words, nil) {
			got[s] = true
		}
		gold := map[Span]bool{}
		for _, s := range spansOf(d.Tags) {
			gold[s] = true
		}
		for s := range gold {
			if got[s] {
				out[s.Type].TP++
			} else {
				out[s.Type].FN++
			}
		}
		for s := range got {
			if !gold[s] {
				out[s.Type].FP++
			}
		}
	}
	return out
}

// F1 returns the micro-averaged F1 of PER, LOC and ORG together.
func F1(c map[string]*Counts) float64 {
	var all Counts
	for _, t := range []string{"PER", "LOC", "ORG"} {
		all.Add(*c[t])
	}
	_, _, f := all.PRF()
	return f
}
