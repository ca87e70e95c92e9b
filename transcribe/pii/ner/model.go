package ner

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed" // the committed models
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"sync"
)

// Tags are the BIO tags of the models, in their weight order.
var Tags = []string{"O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG", "B-MISC", "I-MISC"}

const nTags = 9

// Model is a trained tagger: per-feature weights for each tag and the
// tag-to-tag transition weights, scored by Viterbi.
type Model struct {
	// Cased models read the words' casing; lower-case models read
	// lower-cased words only.
	Cased bool
	// Lexicon maps a lower-case phrase to its lexicon classes (given,
	// surname, location, organization, nationality...); it is part of
	// the model because its features were trained with it.
	Lexicon map[string][]string
	// Ordinary holds the words the training text writes in lower case
	// (three times or more): common vocabulary, not names.
	Ordinary map[string]bool
	lexMax   int
	feats    map[string]int32
	w        []float32 // len(feats) * nTags
	trans    [nTags + 1][nTags]float32
}

// Span is one entity: CoNLL type (PER, LOC, ORG, MISC) over the words
// [From, To).
type Span struct {
	Type     string
	From, To int
}

//go:embed cased.bin.gz
var casedBin []byte

//go:embed lower.bin.gz
var lowerBin []byte

// Checksums return the SHA-256 of the embedded cased and lower-case models.
func Checksums() (cased, lower string) {
	a, b := sha256.Sum256(casedBin), sha256.Sum256(lowerBin)
	return hex.EncodeToString(a[:]), hex.EncodeToString(b[:])
}

var (
	casedModel = sync.OnceValues(func() (*Model, error) { return Read(bytes.NewReader(casedBin)) })
	lowerModel = sync.OnceValues(func() (*Model, error) { return Read(bytes.NewReader(lowerBin)) })
)

// Cased returns the embedded model for written text with casing.
func Cased() (*Model, error) { return casedModel() }

// Lower returns the embedded model for lower-case text.
func Lower() (*Model, error) { return lowerModel() }

// HasCasing reports whether words are written with casing: some word
// inside a sentence other than "I" starts with a capital, or a sentence
// starts with one. Lower-case recognizer output has neither.
func HasCasing(words []string) bool {
	for _, w := range words {
		_, core, _ := split(w)
		if core == "" || core == "I" || strings.HasPrefix(core, "I'") {
			continue
		}
		for _, r := range core {
			if r >= 'A' && r <= 'Z' || r > 127 && strings.ToLower(string(r)) != string(r) {
				return true
			}
			break
		}
	}
	return false
}

// Spans tags words (transcript words, punctuation attached) and returns
// the entities. starts marks the words that start a sentence (or a turn);
// nil derives them from sentence-final punctuation.
func (m *Model) Spans(words []string, starts []bool) []Span {
	return spansOf(m.Tag(words, starts))
}

// Tag returns the BIO tag of every word.
func (m *Model) Tag(words []string, starts []bool) []string {
	if len(words) == 0 {
		return nil
	}
	fs := m.features(m.prepare(words, starts))
	ids := make([][]int32, len(fs))
	for i, f := range fs {
		for _, s := range f {
			if id, ok := m.feats[s]; ok {
				ids[i] = append(ids[i], id)
			}
		}
	}
	best := viterbi(ids, m.w, &m.trans)
	out := make([]string, len(best))
	for i, t := range best {
		out[i] = Tags[t]
	}
	return out
}

// allowed reports whether tag b may follow tag a (a == nTags: start).
func allowed(a, b int) bool {
	if b == 0 || b%2 == 1 { // O or B-
		return true
	}
	return a != nTags && (a == b || a == b-1) // I-X after B-X or I-X
}

// viterbi returns the best tag sequence under emission weights w and
// transitions tr (row nTags is the start).
func viterbi(ids [][]int32, w []float32, tr *[nTags + 1][nTags]float32) []int {
	n := len(ids)
	score := make([][nTags]float32, n)
	back := make([][nTags]int8, n)
	for i, f := range ids {
		var em [nTags]float32
		for _, id := range f {
			row := w[int(id)*nTags : int(id)*nTags+nTags]
			for t := range em {
				em[t] += row[t]
			}
		}
		for t := 0; t < nTags; t++ {
			if i == 0 {
				if !allowed(nTags, t) {
					score[0][t] = float32(math.Inf(-1))
				} else {
					score[0][t] = em[t] + tr[nTags][t]
				}
				continue
			}
			bs, bp := float32(math.Inf(-1)), 0
			for p := 0; p < nTags; p++ {
				if !allowed(p, t) {
					continue
				}
				if s := score[i-1][p] + tr[p][t]; s > bs {
					bs, bp = s, p
				}
			}
			score[i][t], back[i][t] = bs+em[t], int8(bp)
		}
	}
	out := make([]int, n)
	bt := 0
	for t := 1; t < nTags; t++ {
		if score[n-1][t] > score[n-1][bt] {
			bt = t
		}
	}
	for i := n - 1; i >= 0; i-- {
		out[i] = bt
		bt = int(back[i][bt])
	}
	return out
}

// spansOf reads entities from BIO tags.
func spansOf(tags []string) []Span {
	var out []Span
	for i := 0; i < len(tags); i++ {
		if tags[i] == "O" {
			continue
		}
		typ := tags[i][2:]
		j := i + 1
		for j < len(tags) && tags[j] == "I-"+typ {
			j++
		}
		out = append(out, Span{typ, i, j})
		i = j - 1
	}
	return out
}

// File format (gzip): "EARSHOT-NER 1\n", cased byte, lexicon (count,
// then phrase and classes as length-prefixed strings), transitions
// (float32), feature count, then per feature its name, a 16-bit mask of
// the tags it has weights for and those weights (float32).

const magic = "EARSHOT-NER 1\n"

// Write writes the model; weights under prune (absolute) are dropped.
func (m *Model) Write(w io.Writer, prune float32) error {
	zw, _ := gzip.NewWriterLevel(w, gzip.BestCompression)
	bw := bufio.NewWriter(zw)
	bw.WriteString(magic)
	putBool(bw, m.Cased)
	keys := make([]string, 0, len(m.Lexicon))
	for k := range m.Lexicon {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	putUint(bw, uint64(len(keys)))
	for _, k := range keys {
		putStr(bw, k)
		putStr(bw, strings.Join(m.Lexicon[k], " "))
	}
	words := make([]string, 0, len(m.Ordinary))
	for k := range m.Ordinary {
		words = append(words, k)
	}
	sort.Strings(words)
	putStr(bw, strings.Join(words, " "))
	for a := range m.trans {
		for b := range m.trans[a] {
			binary.Write(bw, binary.LittleEndian, m.trans[a][b])
		}
	}
	names := make([]string, 0, len(m.feats))
	for name, id := range m.feats {
		for _, v := range m.w[int(id)*nTags : int(id)*nTags+nTags] {
			if float32(math.Abs(float64(v))) >= prune && v != 0 {
				names = append(names, name)
				break
			}
		}
	}
	sort.Strings(names)
	putUint(bw, uint64(len(names)))
	for _, name := range names {
		putStr(bw, name)
		row := m.w[int(m.feats[name])*nTags:][:nTags]
		var mask uint16
		for t, v := range row {
			if float32(math.Abs(float64(v))) >= prune && v != 0 {
				mask |= 1 << t
			}
		}
		binary.Write(bw, binary.LittleEndian, mask)
		for t, v := range row {
			if mask&(1<<t) != 0 {
				binary.Write(bw, binary.LittleEndian, v)
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return zw.Close()
}

// Read reads a model written by Write.
func Read(r io.Reader) (*Model, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("ner model: %w", err)
	}
	br := bufio.NewReader(zr)
	head := make([]byte, len(magic))
	if _, err := io.ReadFull(br, head); err != nil || string(head) != magic {
		return nil, errors.New("ner model: not an EARSHOT-NER 1 model")
	}
	m := &Model{Lexicon: map[string][]string{}, feats: map[string]int32{}}
	c, err := br.ReadByte()
	if err != nil {
		return nil, fmt.Errorf("ner model: %w", err)
	}
	m.Cased = c == 1
	n, err := binary.ReadUvarint(br)
	if err != nil {
		return nil, fmt.Errorf("ner model: %w", err)
	}
	for ; n > 0; n-- {
		k, err1 := getStr(br)
		v, err2 := getStr(br)
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("ner model: lexicon: %w", err)
		}
		m.Lexicon[k] = strings.Fields(v)
	}
	m.setLexMax()
	ord, err := getStr(br)
	if err != nil {
		return nil, fmt.Errorf("ner model: ordinary words: %w", err)
	}
	m.Ordinary = map[string]bool{}
	for _, w := range strings.Fields(ord) {
		m.Ordinary[w] = true
	}
	if err := binary.Read(br, binary.LittleEndian, &m.trans); err != nil {
		return nil, fmt.Errorf("ner model: transitions: %w", err)
	}
	if n, err = binary.ReadUvarint(br); err != nil || n > 1<<24 {
		return nil, fmt.Errorf("ner model: feature count: %v", err)
	}
	m.w = make([]float32, 0, int(n)*nTags)
	for id := int32(0); id < int32(n); id++ {
		name, err := getStr(br)
		var mask uint16
		if err == nil {
			err = binary.Read(br, binary.LittleEndian, &mask)
		}
		if err != nil {
			return nil, fmt.Errorf("ner model: feature %d: %w", id, err)
		}
		m.feats[name] = id
		for t := 0; t < nTags; t++ {
			var v float32
			if mask&(1<<t) != 0 {
				if err := binary.Read(br, binary.LittleEndian, &v); err != nil {
					return nil, fmt.Errorf("ner model: feature %d: %w", id, err)
				}
			}
			m.w = append(m.w, v)
		}
	}
	return m, nil
}

// Features returns the number of features with weights.
func (m *Model) Features() int { return len(m.feats) }

func (m *Model) setLexMax() {
	m.lexMax = 1
	for k := range m.Lexicon {
		m.lexMax = max(m.lexMax, len(strings.Fields(k)))
	}
}

func putBool(w *bufio.Writer, b bool) {
	if b {
		w.WriteByte(1)
	} else {
		w.WriteByte(0)
	}
}

func putUint(w *bufio.Writer, v uint64) {
	var b [binary.MaxVarintLen64]byte
	w.Write(b[:binary.PutUvarint(b[:], v)])
}

func putStr(w *bufio.Writer, s string) {
	putUint(w, uint64(len(s)))
	w.WriteString(s)
}

func getStr(r *bufio.Reader) (string, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return "", err
	}
	if n > 1<<24 {
		return "", errors.New("string too long")
	}
	b := make([]byte, n)
	_, err = io.ReadFull(r, b)
	return string(b), err
}
