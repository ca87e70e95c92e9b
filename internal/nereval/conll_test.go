package nereval

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/pii"
)

// conllTypes maps CoNLL's types to entity_detection's; MISC has none.
var conllTypes = map[string]string{"PER": "person_name", "LOC": "location", "ORG": "organization"}

type span struct {
	typ      string
	from, to int // word range
}

type conllDoc struct {
	words []string
	ends  []bool // the word ends a sentence
	gold  []span
}

// punctOnly reports whether a CoNLL token is punctuation written apart
// that belongs to the word before it.
func punctOnly(tok string) bool {
	switch strings.ToLower(tok) {
	case ".", ",", ":", ";", "?", "!", ")", "'s", "'", "%", "n't", "'m", "'re", "'ve", "'ll", "'d":
		return true
	}
	return false
}

// readCoNLL reads documents of the four-column CoNLL-2003 form, joining
// punctuation tokens to the word before them as a transcript writes them,
// with gold entities over those words.
func readCoNLL(t *testing.T, path string) []conllDoc {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var docs []conllDoc
	var d *conllDoc
	prevType := "O"
	var open *span
	closeSpan := func() {
		if open != nil {
			d.gold = append(d.gold, *open)
			open = nil
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 {
			if d != nil {
				closeSpan()
				if n := len(d.ends); n > 0 {
					d.ends[n-1] = true
				}
			}
			prevType = "O"
			continue
		}
		if fs[0] == "-DOCSTART-" {
			if d != nil {
				closeSpan()
			}
			docs = append(docs, conllDoc{})
			d = &docs[len(docs)-1]
			continue
		}
		if d == nil {
			docs = append(docs, conllDoc{})
			d = &docs[len(docs)-1]
		}
		tok, tag := fs[0], fs[len(fs)-1]
		typ := "O"
		if i := strings.IndexByte(tag, '-'); i > 0 {
			typ = tag[i+1:]
		}
		begins := strings.HasPrefix(tag, "B-") || typ != prevType
		if typ == "O" || begins {
			closeSpan()
		}
		if punctOnly(tok) && len(d.words) > 0 && !d.ends[len(d.words)-1] && typ == "O" {
			d.words[len(d.words)-1] += tok
		} else {
			d.words = append(d.words, tok)
			d.ends = append(d.ends, false)
		}
		w := len(d.words) - 1
		if typ != "O" {
			if open == nil {
				open = &span{typ: typ, from: w}
			}
			open.to = w + 1
		}
		prevType = typ
	}
	if d != nil {
		closeSpan()
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return docs
}

type prf struct{ tp, fp, fn int }

func (c prf) f1() (p, r, f float64) {
	if c.tp+c.fp > 0 {
		p = float64(c.tp) / float64(c.tp+c.fp)
	}
	if c.tp+c.fn > 0 {
		r = float64(c.tp) / float64(c.tp+c.fn)
	}
	if p+r > 0 {
		f = 2 * p * r / (p + r)
	}
	return
}

// score runs the detector over each document (words as a transcript
// would hold them, lower-cased when lower) and counts exact span matches
// per type.
func score(docs []conllDoc, lower bool, det pii.Detector) map[string]*prf {
	out := map[string]*prf{"PER": {}, "LOC": {}, "ORG": {}}
	for _, d := range docs {
		ws := make([]transcribe.Word, len(d.words))
		at := int64(0)
		for i, w := range d.words {
			if lower {
				w = strings.ToLower(w)
			}
			ws[i] = transcribe.Word{Text: w, Start: at, End: at + 300, Confidence: 0.9}
			at += 350
			if d.ends[i] {
				at += 400
			}
		}
		count(out, d.gold, det.Spans(ws))
	}
	return out
}

// count adds the exact matches of the detector's spans got to the gold
// spans (over the same words) to out.
func count(out map[string]*prf, goldSpans []span, spans []pii.Span) {
	back := map[string]string{}
	for k, v := range conllTypes {
		back[v] = k
	}
	got := map[span]bool{}
	for _, s := range spans {
		if typ, ok := back[s.Type]; ok {
			got[span{typ, s.From, s.To}] = true
		}
	}
	gold := map[span]bool{}
	for _, g := range goldSpans {
		if _, ok := conllTypes[g.typ]; ok {
			gold[g] = true
		}
	}
	for g := range gold {
		if got[g] {
			out[g.typ].tp++
		} else {
			out[g.typ].fn++
		}
	}
	for g := range got {
		if !gold[g] {
			out[g.typ].fp++
		}
	}
}

func table(m map[string]*prf) (string, float64) {
	var all prf
	s := fmt.Sprintf("  %-5s %6s %6s %6s\n", "", "P", "R", "F1")
	for _, k := range []string{"PER", "LOC", "ORG"} {
		p, r, f := m[k].f1()
		s += fmt.Sprintf("  %-5s %6.3f %6.3f %6.3f\n", k, p, r, f)
		all.tp += m[k].tp
		all.fp += m[k].fp
		all.fn += m[k].fn
	}
	p, r, f := all.f1()
	s += fmt.Sprintf("  %-5s %6.3f %6.3f %6.3f\n", "all", p, r, f)
	return s, f
}

// TestCoNLL2003 prints person, location and organization precision,
// recall and F1 (exact spans, micro-averaged) of entity_detection's
// detector on the CoNLL-2003 test set, as written and lower-cased (as a
// recognizer without casing writes it), next to the baseline in the same
// run: the detector without the learned tagger (pii.Detector.RulesOnly,
// the gazetteers and cues entity_detection used before). The target is
// F1 >= 0.80 on the cased text; the test fails below it, and below a floor
// of what was measured on the lower-cased text, rounded down.
func TestCoNLL2003(t *testing.T) {
	path := os.Getenv("EARSHOT_CONLL_DATA")
	if path == "" {
		t.Skip("EARSHOT_CONLL_DATA not set (CoNLL-2003 English test set, four columns)")
	}
	docs := readCoNLL(t, path)
	n := 0
	for _, d := range docs {
		n += len(d.gold)
	}
	for _, lower := range []bool{false, true} {
		name := "cased"
		if lower {
			name = "lower-cased"
		}
		base, bf := table(score(docs, lower, pii.Detector{RulesOnly: true}))
		tab, f := table(score(docs, lower, pii.Detector{}))
		t.Logf("CoNLL-2003, %d documents, %d gold entities (incl. MISC), %s\nentity_detection (tagger and rules):\n%s"+
			"baseline (rules only):\n%s", len(docs), n, name, tab, base)
		if f < floor[lower] {
			t.Errorf("%s F1 %.3f below the floor %.2f", name, f, floor[lower])
		}
		if f <= bf {
			t.Errorf("%s F1 %.3f not above the rules-only baseline's %.3f", name, f, bf)
		}
	}
}

// floor is the least F1 (PER, LOC, ORG together) the test accepts, cased
// (issue 23's target) and lower-cased (what was measured, rounded down).
var floor = map[bool]float64{false: 0.80, true: 0.75}
