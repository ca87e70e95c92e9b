package punctmodel

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed" // the committed casing lexicon
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"sync"
)

// Lexicon is a casing lexicon: the words usually written with capitals
// inside a sentence (form by lower-case word), the words seen in lower
// case, and the pairs whose second word is capitalised after a
// capitalised first.
type Lexicon struct {
	Cased map[string]string
	Known map[string]struct{}
	Pairs map[string]struct{}
}

// Counted returns the counts as a Lexicon.
func (lc *LexiconCounter) Counted() Lexicon {
	c, k, p := lc.Lexicon()
	return Lexicon{Cased: c, Known: k, Pairs: p}
}

// The committed casing lexicon, counted on the training books and on
// current text (see the package documentation, "Casing lexicon"); it replaces the
// lexicon of the model file, which the books alone gave.
//
//go:embed lexicon.gz
var lexiconFile []byte

// LexiconChecksum returns the SHA-256 (hex) of the committed casing
// lexicon file.
func LexiconChecksum() string {
	s := sha256.Sum256(lexiconFile)
	return hex.EncodeToString(s[:])
}

// Books returns the committed model with the casing lexicon of its own
// file, counted on the books alone (the figures before the current text
// was counted, in tests).
var Books = sync.OnceValues(func() (*Model, error) { return Read(bytes.NewReader(embedded)) })

// defaultModel reads the model file's weights alone, not through Books:
// with the committed casing lexicon, question classifier and casing
// classifier;
// the books' lexicon it replaces is neither parsed at start-up nor kept in
// memory (Books is for tests and figures).
func defaultModel() (*Model, error) {
	m, err := read(bytes.NewReader(embedded), false)
	if err != nil {
		return nil, err
	}
	lx, err := ReadLexicon(bytes.NewReader(lexiconFile))
	if err != nil {
		return nil, err
	}
	q, err := ReadQuestions(bytes.NewReader(questionsFile))
	if err != nil {
		return nil, err
	}
	c, err := ReadCapitals(bytes.NewReader(capitalsFile))
	if err != nil {
		return nil, err
	}
	return m.WithLexicon(lx).WithQuestions(q).WithCapitals(c), nil
}

// WriteLexicon writes lx as gzip of sorted lines "word\tform" (form empty
// for a known lower-case word, "+" for a pair), the lexicon part of the
// model file.
func WriteLexicon(w io.Writer, lx Lexicon) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	m := &Model{cased: lx.Cased, known: lx.Known, pairs: lx.Pairs}
	return m.finishLexicon(zw, bufio.NewWriter(zw))
}

// ReadLexicon reads a lexicon written by WriteLexicon.
func ReadLexicon(r io.Reader) (Lexicon, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return Lexicon{}, fmt.Errorf("punctmodel: lexicon: %w", err)
	}
	lx := Lexicon{Cased: map[string]string{}, Known: map[string]struct{}{}, Pairs: map[string]struct{}{}}
	if err := readLexiconLines(bufio.NewReader(zr), lx); err != nil {
		return Lexicon{}, err
	}
	return lx, nil
}

func readLexiconLines(r io.Reader, lx Lexicon) error {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		word, form, ok := strings.Cut(sc.Text(), "\t")
		switch {
		case !ok || word == "":
			return fmt.Errorf("punctmodel: lexicon: bad line %q", sc.Text())
		case form == "+":
			lx.Pairs[word] = struct{}{}
		case form == "":
			lx.Known[word] = struct{}{}
		default:
			lx.Cased[word] = form
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("punctmodel: lexicon: %w", err)
	}
	return nil
}

// WithLexicon returns a copy of m whose casing lexicon is lx (the
// weights are shared).
func (m *Model) WithLexicon(lx Lexicon) *Model {
	c := *m
	c.cased, c.known, c.pairs = lx.Cased, lx.Known, lx.Pairs
	return &c
}
