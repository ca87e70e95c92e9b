package summary

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp/nlptest"
)

// passage is one single-topic text of a labelled set with its hand-written
// one-sentence summary.
type passage struct {
	id, ref, text string
}

func readPassages(t testing.TB, name string) []passage {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var out []passage
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "#"):
		case strings.HasPrefix(l, "== "):
			id, ref, _ := strings.Cut(strings.TrimPrefix(l, "== "), " | ")
			out = append(out, passage{id: id, ref: ref})
		case l != "" && len(out) > 0:
			p := &out[len(out)-1]
			p.text = strings.TrimSpace(p.text + " " + l)
		}
	}
	return out
}

// Documents are concatenations of unrelated passages (indexes into the
// set), fixed so that results are reproducible.
var (
	devDocs  = [][]int{{0, 1, 2}, {3, 4, 5}, {6, 7, 8, 9}, {0, 3, 6, 9}, {1, 4, 7}, {2, 5, 8}}
	testDocs = [][]int{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15}, {0, 5, 10, 15}, {1, 6, 11, 12}, {2, 7, 8, 13}, {3, 4, 9, 14}}
)

// doc is one test document: a transcript and where each passage starts.
type doc struct {
	t      *transcribe.Transcript
	starts []int // word index where each passage starts
	parts  []int // passage indexes
}

// referenceDocs builds documents from the passages' written text, joined
// without a paragraph break, so that only the words tell where the topic
// changes.
func referenceDocs(ps []passage, docs [][]int) []doc {
	var out []doc
	for _, d := range docs {
		var texts []string
		var starts []int
		n := 0
		for _, i := range d {
			starts = append(starts, n)
			texts = append(texts, ps[i].text)
			n += len(strings.Fields(ps[i].text))
		}
		out = append(out, doc{t: nlptest.Transcript(nlptest.Words(strings.Join(texts, " "))), starts: starts, parts: d})
	}
	return out
}

// recognizedDocs builds the same documents from the passages spoken by
// flite and recognized by pocketsphinx (each passage once), joined with
// the passages' times shifted to follow each other with a gap of
// joinGapMillis, no longer than the pauses flite leaves between sentences
// inside a passage, so that no pause marks where a passage ends. The
// joined words are formatted as one continuous recording, so formatting
// does not know where a passage ends.
func recognizedDocs(t testing.TB, ps []passage, docs [][]int) ([]doc, float64) {
	texts := make([]string, len(ps))
	for i, p := range ps {
		texts[i] = p.text
	}
	rec := nlptest.RecognizeRaw(t, texts)
	errs, n := 0.0, 0
	for i := range ps {
		wer, k := nlptest.WordErrorRate(ps[i].text, nlptest.Format(rec[i]))
		errs += wer * float64(k)
		n += k
	}
	var out []doc
	for _, d := range docs {
		var ws []transcribe.Word
		var begins []int64 // where each passage begins, in the joined time
		at := int64(0)
		for _, i := range d {
			begins = append(begins, at)
			if len(rec[i]) == 0 {
				continue
			}
			shift := at - rec[i][0].Start
			for _, w := range rec[i] {
				w.Start += shift
				w.End += shift
				ws = append(ws, w)
			}
			at = ws[len(ws)-1].End + joinGapMillis
		}
		// Formatting may join words (numbers), so passages are found
		// again by time.
		ws = nlptest.Format(ws)
		starts := make([]int, len(begins))
		for k, b := range begins {
			starts[k] = len(ws)
			for j, w := range ws {
				if w.Start >= b {
					starts[k] = j
					break
				}
			}
		}
		out = append(out, doc{t: nlptest.Transcript(ws), starts: starts, parts: d})
	}
	return out, errs / float64(max(n, 1))
}

// joinGapMillis is the silence between joined recognized passages.
const joinGapMillis = 100

// sentenceOf returns the index of the sentence holding word w.
func sentenceOf(spans []nlp.Span, w int) int {
	for i, s := range spans {
		if w < s.To {
			return i
		}
	}
	return len(spans) - 1
}

// boundaryScore counts predicted and gold chapter boundaries and the
// matches within a tolerance (each matched at most once).
type boundaryScore struct{ pred, gold, hit int }

func (b *boundaryScore) add(pred, gold []int, tol int) {
	b.pred += len(pred)
	b.gold += len(gold)
	used := make([]bool, len(pred))
	for _, g := range gold {
		for i, p := range pred {
			if !used[i] && p >= g-tol && p <= g+tol {
				used[i] = true
				b.hit++
				break
			}
		}
	}
}

func (b boundaryScore) f1() (p, r, f float64) {
	if b.pred > 0 {
		p = float64(b.hit) / float64(b.pred)
	}
	if b.gold > 0 {
		r = float64(b.hit) / float64(b.gold)
	}
	if p+r > 0 {
		f = 2 * p * r / (p + r)
	}
	return p, r, f
}

// scoreChapters segments every document with the default options and
// scores the boundaries twice: within one sentence (the target's
// definition), and within tolerance words, for transcripts whose
// sentences are not the reference's (recognized speech, where the
// restored punctuation differs).
func scoreChapters(t *testing.T, name string, docs []doc, tolerance int) (bySentence, byWords boundaryScore) {
	o := Options{}.withDefaults()
	for _, d := range docs {
		spans := nlp.Sentences(d.t)
		x := NewText(d.t.Words, spans)
		var predS, predW, goldS []int
		for _, c := range x.Segment(o.MinChapterSentences, o.MinChapterMillis) {
			w := x.sents[c].From
			predW = append(predW, w)
			predS = append(predS, sentenceOf(spans, w))
		}
		for _, w := range d.starts[1:] {
			goldS = append(goldS, sentenceOf(spans, w))
		}
		bySentence.add(predS, goldS, 1)
		byWords.add(predW, d.starts[1:], tolerance)
		t.Logf("%s doc %v: %d sentences, gold %v, predicted %v (words: gold %v, predicted %v)", name, d.parts, len(spans), goldS, predS, d.starts[1:], predW)
	}
	p, r, f := bySentence.f1()
	t.Logf("%s: chapter boundaries within 1 sentence: precision %.2f, recall %.2f, F1 %.2f (%d gold, %d predicted)", name, p, r, f, bySentence.gold, bySentence.pred)
	p, r, f = byWords.f1()
	t.Logf("%s: chapter boundaries within %d words: precision %.2f, recall %.2f, F1 %.2f", name, tolerance, p, r, f)
	return bySentence, byWords
}

// sentenceWords returns the mean length in words of the passages'
// reference sentences: the word tolerance equivalent to one sentence.
func sentenceWords(ps []passage) int {
	words, sents := 0, 0
	for _, p := range ps {
		words += len(strings.Fields(p.text))
		sents += len(nlp.Sentences(nlptest.Transcript(nlptest.Words(p.text))))
	}
	return (words + sents/2) / max(sents, 1)
}

// ---------------------------------------------------------------------
// Summary quality: ROUGE against the hand-written passage summaries.

// rougeTokens are the stemmed content words of a text.
func rougeTokens(s string) []string {
	var out []string
	for _, tk := range nlp.Tokens(nlptest.Words(s)) {
		if tk.IsWord() && !nlp.IsStopWord(tk.Norm) {
			out = append(out, nlp.Stem(tk.Norm))
		}
	}
	return out
}

func ngrams(ts []string, n int) map[string]int {
	m := map[string]int{}
	for i := 0; i+n <= len(ts); i++ {
		m[strings.Join(ts[i:i+n], " ")]++
	}
	return m
}

// rouge returns ROUGE-n recall and F1 of a candidate against a reference
// (clipped n-gram counts over stemmed content words).
func rouge(cand, ref string, n int) (recall, f1 float64) {
	c, r := ngrams(rougeTokens(cand), n), ngrams(rougeTokens(ref), n)
	hit, nc, nr := 0, 0, 0
	for g, k := range r {
		hit += min(k, c[g])
		nr += k
	}
	for _, k := range c {
		nc += k
	}
	if nr == 0 || nc == 0 {
		return 0, 0
	}
	recall = float64(hit) / float64(nr)
	prec := float64(hit) / float64(nc)
	if hit > 0 {
		f1 = 2 * prec * recall / (prec + recall)
	}
	return recall, f1
}

// summaryScore averages ROUGE and passage coverage over documents for one
// way of choosing sentences.
type summaryScore struct {
	r1, r2, cover float64
	n             int
}

func (s *summaryScore) add(cand, ref string, cover float64) {
	_, f1 := rouge(cand, ref, 1)
	_, f2 := rouge(cand, ref, 2)
	s.r1 += f1
	s.r2 += f2
	s.cover += cover
	s.n++
}

func (s summaryScore) String() string {
	n := float64(max(s.n, 1))
	return fmt.Sprintf("ROUGE-1 F %.3f, ROUGE-2 F %.3f, passages covered %.0f%%", s.r1/n, s.r2/n, 100*s.cover/n)
}

// scoreSummaries compares the extractive bullets with two baselines that
// take the same number of sentences: the first ones (lead) and random
// ones (mean of 20 draws).
func scoreSummaries(t *testing.T, name string, docs []doc, ps []passage) (ours, lead, random summaryScore) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, d := range docs {
		x := NewTextFromTranscript(d.t)
		var refs []string
		for _, i := range d.parts {
			refs = append(refs, ps[i].ref)
		}
		ref := strings.Join(refs, " ")
		k := bulletCount(x.Words())
		passageOf := func(sent int) int {
			w := x.sents[sent].From
			p := 0
			for i, s := range d.starts {
				if w >= s {
					p = i
				}
			}
			return p
		}
		cover := func(idx []int) float64 {
			seen := map[int]bool{}
			for _, i := range idx {
				seen[passageOf(i)] = true
			}
			return float64(len(seen)) / float64(min(len(idx), len(d.parts)))
		}
		text := func(idx []int) string {
			var s []string
			for _, i := range idx {
				s = append(s, x.sentenceText(i))
			}
			return strings.Join(s, " ")
		}
		idx := x.pick(k, style{})
		ours.add(text(idx), ref, cover(idx))
		var first []int
		for i := 0; i < k && i < x.Len(); i++ {
			first = append(first, i)
		}
		lead.add(text(first), ref, cover(first))
		var rs summaryScore
		for range 20 {
			r := rng.Perm(x.Len())[:min(k, x.Len())]
			rs.add(text(r), ref, cover(r))
		}
		random.r1 += rs.r1 / 20
		random.r2 += rs.r2 / 20
		random.cover += rs.cover / 20
		random.n++
		t.Logf("%s doc %v bullets:\n%s", name, d.parts, x.Summarize(transcribe.SummaryBullets, transcribe.SummaryInformative))
	}
	t.Logf("%s summaries (%d documents, bullets of the default length):\n  extractive: %v\n  lead:       %v\n  random:     %v", name, len(docs), ours, lead, random)
	return ours, lead, random
}

// TestDevChaptersAndSummaries measures segmentation and summaries on the
// development documents, the ones the constants were tuned on.
func TestDevChaptersAndSummaries(t *testing.T) {
	t.Parallel()
	ps := readPassages(t, "dev.txt")
	docs := referenceDocs(ps, devDocs)
	b, _ := scoreChapters(t, "dev (reference text)", docs, sentenceWords(ps))
	if _, _, f := b.f1(); f < 0.8 {
		t.Errorf("dev chapter boundary F1 %.2f < 0.8", f)
	}
	scoreSummaries(t, "dev (reference text)", docs, ps)
}

// TestDevRecognized measures the development documents spoken by flite
// and recognized by pocketsphinx (tuned on, like the reference text). It
// is for tuning only and runs when EARSHOT_EVAL_DEV=1, to keep the suite
// from recognizing seven more minutes of speech.
func TestDevRecognized(t *testing.T) {
	if testing.Short() || os.Getenv("EARSHOT_EVAL_DEV") != "1" {
		t.Skip("tuning measurement; set EARSHOT_EVAL_DEV=1 (recognizes about seven minutes of speech, cached after the first run)")
	}
	ps := readPassages(t, "dev.txt")
	docs, wer := recognizedDocs(t, ps, devDocs)
	t.Logf("recognizer word error rate on the dev passages: %.1f%%", 100*wer)
	scoreChapters(t, "dev (recognized speech)", docs, sentenceWords(ps))
	scoreSummaries(t, "dev (recognized speech)", docs, ps)
}

// TestTestChaptersAndSummaries measures segmentation and summaries on the
// held-out documents' reference text. Targets: chapter boundary F1 of at
// least 0.8 (a predicted boundary within one sentence of a true one), and
// summaries that beat both baselines on ROUGE-1 and cover more passages
// than the lead baseline.
func TestTestChaptersAndSummaries(t *testing.T) {
	t.Parallel()
	ps := readPassages(t, "test.txt")
	docs := referenceDocs(ps, testDocs)
	b, _ := scoreChapters(t, "test (reference text)", docs, sentenceWords(ps))
	if _, _, f := b.f1(); f < 0.8 {
		t.Errorf("test chapter boundary F1 %.2f < 0.8", f)
	}
	ours, lead, random := scoreSummaries(t, "test (reference text)", docs, ps)
	checkSummaries(t, "test (reference text)", ours, lead, random)
}

func checkSummaries(t *testing.T, name string, ours, lead, random summaryScore) {
	t.Helper()
	if ours.r1 <= lead.r1 || ours.r1 <= random.r1 {
		t.Errorf("%s: extractive ROUGE-1 %.3f does not beat lead %.3f and random %.3f", name, ours.r1/float64(ours.n), lead.r1/float64(lead.n), random.r1/float64(random.n))
	}
	if ours.cover <= lead.cover {
		t.Errorf("%s: extractive covers %.0f%% of passages, lead %.0f%%", name, 100*ours.cover/float64(ours.n), 100*lead.cover/float64(lead.n))
	}
}

// TestTestRecognized measures the same on the held-out passages spoken by
// flite and recognized by pocketsphinx. Recognition errors and the
// punctuation the formatter restores change the sentences; the floors
// guard against regressions.
func TestTestRecognized(t *testing.T) {
	if testing.Short() {
		t.Skip("recognizes about ten minutes of speech (cached after the first run)")
	}
	ps := readPassages(t, "test.txt")
	docs, wer := recognizedDocs(t, ps, testDocs)
	t.Logf("recognizer word error rate on the passages: %.1f%%", 100*wer)
	// flite pauses too briefly between sentences for the punctuator
	// (under 0.25 s), so each passage comes back as one or two long
	// sentences; boundaries are scored within one reference sentence's
	// worth of words.
	_, b := scoreChapters(t, "test (recognized speech)", docs, sentenceWords(ps))
	if _, _, f := b.f1(); f < recognizedChapterF1 {
		t.Errorf("recognized chapter boundary F1 %.2f < %.2f", f, recognizedChapterF1)
	}
	// Summaries of recognized speech must beat random choice on ROUGE-1
	// and cover more passages than the lead baseline (measured: ROUGE-1
	// 0.155 against lead 0.153 and random 0.093).
	ours, lead, random := scoreSummaries(t, "test (recognized speech)", docs, ps)
	if ours.r1 <= random.r1 || ours.cover <= lead.cover {
		t.Errorf("recognized summaries: ROUGE-1 %.3f (random %.3f), coverage %.2f (lead %.2f)", ours.r1/float64(ours.n), random.r1/float64(random.n), ours.cover/float64(ours.n), lead.cover/float64(lead.n))
	}
}

// recognizedChapterF1 is the floor for recognized speech, scored within
// one reference sentence's worth of words (measured: 0.70).
const recognizedChapterF1 = 0.6
