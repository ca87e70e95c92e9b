package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/earshot-dev/earshot/transcribe/analysis/topics/topicdata"
	"github.com/earshot-dev/earshot/transcribe/textfmt/punctmodel"
)

// trainCapitals trains the contextual casing classifier on current text:
// the BBC News articles of the train part (bbc, package topicdata's
// split), the News Category Dataset's short descriptions but its test
// part (news) and WikiText-2 files (wiki); it sets the threshold on the
// BBC dev part, CoNLL-2003's valid.txt (conllDev) and the development
// book (see below), writes it to out and prints the figures.
func trainCapitals(corpus, bbc, news string, wiki []string, conllDev, out string, epochs int, seed uint64) {
	if bbc == "" || news == "" || conllDev == "" {
		log.Fatal("trainpunct: -capitals needs -bbc, -news and -conll-dev (and -corpus and -wikitext for the committed classifier)")
	}
	start := time.Now()
	m, err := punctmodel.Default()
	if err != nil {
		log.Fatal(err)
	}
	m = m.WithCapitals(nil)
	docs, err := topicdata.ReadBBC(bbc)
	if err != nil {
		log.Fatal(err)
	}
	var train, devBBC [][]punctmodel.Token
	for _, d := range docs {
		_, body, _ := strings.Cut(d.Text, "\n")
		for _, p := range strings.Split(body, "\n\n") {
			t := punctmodel.Tokenize(strings.Join(strings.Fields(p), " "))
			switch d.Split {
			case topicdata.Train:
				train = append(train, t)
			case topicdata.Dev:
				devBBC = append(devBBC, t)
			}
		}
	}
	nBBC := words(train)
	nt, _ := newsTexts(news)
	train = append(train, nt...)
	nNews := words(train) - nBBC
	for _, p := range wiki {
		wt, _ := wikiTexts(p)
		train = append(train, wt...)
	}
	nCurrent := words(train)
	if corpus != "" {
		// Dialogue and narration of the training books, past the part
		// the marks' model trained on: "yes sir", "i shall miss you".
		trainingBooks(corpus, func(full punctmodel.Doc) {
			d, _ := wordRange(full, capitalsFrom, capitalsTo)
			train = append(train, d.Paras...)
		})
	}
	log.Printf("read %d paragraphs, %d words (BBC %d, HuffPost %d, WikiText %d, books %d) in %v", len(train), words(train), nBBC, nNews, nCurrent-nBBC-nNews, words(train)-nCurrent, time.Since(start).Round(time.Millisecond))
	c := punctmodel.TrainCapitals(m, train, capitalBits, epochs, seed)
	fmt.Printf("casing classifier: %d paragraphs, %d words, %d epochs, seed %d, trained in %v\n", len(train), words(train), epochs, seed, time.Since(start).Round(time.Second))
	devCoNLL := conllTexts(conllDev)
	var book [][]punctmodel.Token
	if corpus != "" {
		d, _ := readDoc(filepath.Join(corpus, devBook), 1<<30)
		book = d.Paras
	}
	b0, c0, k0 := capScore(m, devBBC), capScore(m, devCoNLL), capScore(m, book)
	// The threshold is the lowest at which at least 90 % of the capitals
	// the classifier adds are right on each development set: a wrong
	// capital in everyday speech ("the best Apple pie", "back in the
	// Cabinet") reads worse than a name left in lower case, and the F1
	// optimum (-1.0: BBC dev +3,345 names for +744 wrong capitals,
	// CoNLL valid +662 for +407) added mostly such capitals to speech.
	bestT := float32(math.Inf(1))
	for t := float32(-1); t <= 4.01; t += 0.25 {
		c.Threshold = t
		cm := m.WithCapitals(c)
		b, k, bk := capScore(cm, devBBC), capScore(cm, devCoNLL), capScore(cm, book)
		log.Printf("threshold %+.2f: BBC dev %v; CoNLL valid %v; development book %v", t, b, k, bk)
		if t < bestT && precise(b, b0) && precise(k, c0) && precise(bk, k0) {
			bestT = t
		}
	}
	if math.IsInf(float64(bestT), 1) {
		log.Fatal("trainpunct: no threshold adds capitals 90 % right")
	}
	c.Threshold = bestT
	var buf bytes.Buffer
	if err := c.Write(&buf); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	sum := sha256.Sum256(buf.Bytes())
	cm := m.WithCapitals(c)
	fmt.Printf("casing classifier %s: %d bytes, sha256 %s; threshold %+.2f\n", out, buf.Len(), hex.EncodeToString(sum[:]), bestT)
	fmt.Printf("capitals inside sentences, lower-case words: BBC dev %v (lexicon and rules alone %v); CoNLL valid %v (%v); development book %v (%v)\n",
		capScore(cm, devBBC), b0, capScore(cm, devCoNLL), c0, capScore(cm, book), k0)
}

// capitalBits is log2 of the casing classifier's table rows.
const capitalBits = 20

// Words of each training book the casing classifier reads.
const (
	capitalsFrom = 30000
	capitalsTo   = 31500
)

// precise reports whether at least 90 % of the capitals s adds over base
// are right.
func precise(s, base punctmodel.F1) bool {
	right, wrong := s.TP-base.TP, s.FP-base.FP
	return wrong <= 0 || float64(right) >= 0.9*float64(right+wrong)
}

func words(ts [][]punctmodel.Token) int {
	n := 0
	for _, t := range ts {
		n += len(t)
	}
	return n
}

// capScore scores m's casing of the texts' words, in lower case, against
// the capitals the texts write inside sentences (sentence starts and
// headings in capitals left out).
func capScore(m *punctmodel.Model, texts [][]punctmodel.Token) punctmodel.F1 {
	var s punctmodel.F1
	for _, toks := range texts {
		ws := make([]string, len(toks))
		for i, tk := range toks {
			ws[i] = tk.Word
		}
		out := m.Case(ws)
		for i, tk := range toks {
			if tk.Start || tk.Form == "" || tk.Word == punctmodel.NumberWord || tk.Word == "i" || strings.HasPrefix(tk.Word, "i'") {
				continue
			}
			r, _ := utf8.DecodeRuneInString(tk.Form)
			gold, pred := unicode.IsUpper(r), out[i] != ""
			switch {
			case gold && pred:
				s.TP++
			case pred:
				s.FP++
			case gold:
				s.FN++
			}
		}
	}
	return s
}

// newsTexts returns the News Category Dataset's short descriptions but
// its test part (every tenth record from the first, as package topicdata
// splits it), tokenized, and the number of records; writeLexicon and
// trainCapitals read them.
func newsTexts(path string) (texts [][]punctmodel.Token, records int) {
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for ; sc.Scan(); records++ {
		var r struct {
			Desc string `json:"short_description"`
		}
		if json.Unmarshal(sc.Bytes(), &r) != nil || records%10 == 0 || strings.TrimSpace(r.Desc) == "" {
			continue
		}
		texts = append(texts, punctmodel.Tokenize(r.Desc))
	}
	if err := sc.Err(); err != nil {
		log.Fatal(err)
	}
	return texts, records
}

// wikiTexts returns the paragraphs of a WikiText file, headings left out,
// and the number of its articles (headings "= Title =", not "= = Section
// = ="); writeLexicon and trainCapitals read them.
func wikiTexts(path string) (texts [][]punctmodel.Token, articles int) {
	b, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "= ") {
			if !strings.HasPrefix(line, "= = ") {
				articles++
			}
			continue
		}
		if line != "" {
			texts = append(texts, punctmodel.Tokenize(wikiText(line)))
		}
	}
	return texts, articles
}

// conllTexts returns the sentences of a CoNLL-2003 file (one token a
// line, first column), the headlines written in capitals left out.
func conllTexts(path string) [][]punctmodel.Token {
	b, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	var out [][]punctmodel.Token
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			t := punctmodel.Tokenize(strings.Join(cur, " "))
			if len(t) > 0 && !headline(t) {
				out = append(out, t)
			}
		}
		cur = nil
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] == "-DOCSTART-" {
			flush()
			continue
		}
		cur = append(cur, f[0])
	}
	flush()
	return out
}

// headline reports whether most words of t are written in capitals.
func headline(t []punctmodel.Token) bool {
	n := 0
	for _, tk := range t {
		if tk.Form != "" && tk.Form == strings.ToUpper(tk.Form) && tk.Form != strings.ToLower(tk.Form) {
			n++
		}
	}
	return 2*n > len(t)
}
