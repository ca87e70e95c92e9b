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
	zr, err := gzip.NewReader(bytes.NewReader(lexiconFile))
	if err != nil {
		return nil, fmt.Errorf("punctmodel: lexicon: %w", err)
	}
	if err := m.readLexicon(bufio.NewReader(zr)); err != nil {
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
	return m.WithQuestions(q).WithCapitals(c), nil
}

// WriteLexicon writes lx as gzip of sorted lines "word\tform" (form empty
// for a known lower-case word, "+" for a pair), the lexicon part of the
// model file.
func WriteLexicon(w io.Writer, lx Lexicon) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	m := &Model{}
	m.setLexicon(lx)
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
	return eachLexiconLine(r, func(word, form []byte) {
		switch string(form) {
		case "+":
			lx.Pairs[string(word)] = struct{}{}
		case "":
			lx.Known[string(word)] = struct{}{}
		default:
			lx.Cased[string(word)] = string(form)
		}
	})
}

// eachLexiconLine calls fn with the word and form of each line of r (the
// bytes are the scanner's, valid during the call).
func eachLexiconLine(r io.Reader, fn func(word, form []byte)) error {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		word, form, ok := bytes.Cut(sc.Bytes(), []byte{'\t'})
		if !ok || len(word) == 0 {
			return fmt.Errorf("punctmodel: lexicon: bad line %q", sc.Text())
		}
		fn(word, form)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("punctmodel: lexicon: %w", err)
	}
	return nil
}

// readLexicon reads lexicon lines into m's tables, without the maps of a
// Lexicon.
func (m *Model) readLexicon(r io.Reader) error {
	var cased, known, pairs tableBuilder
	if err := eachLexiconLine(r, func(word, form []byte) {
		switch string(form) {
		case "+":
			pairs.add(word, nil, false)
		case "":
			known.add(word, nil, false)
		default:
			cased.add(word, form, true)
		}
	}); err != nil {
		return err
	}
	m.cased, m.known, m.pairs = cased.table(), known.table(), pairs.table()
	return nil
}

// setLexicon sets m's tables to lx.
func (m *Model) setLexicon(lx Lexicon) {
	m.cased, m.known, m.pairs = mapTable(lx.Cased), setTable(lx.Known), setTable(lx.Pairs)
}

// WithLexicon returns a copy of m whose casing lexicon is lx (the
// weights are shared).
func (m *Model) WithLexicon(lx Lexicon) *Model {
	c := *m
	c.setLexicon(lx)
	return &c
}
