package summary

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp/nlptest"
)

// External chapter evaluation on Choi's text-segmentation set (Choi,
// NAACL 2000: documents of ten segments, each the first 3 to 11
// sentences of a random Brown-corpus text), from the copy in
// github.com/koomri/text-segmentation (commit 874d6ef3ca0e402709b70924608d0894be9a93e1,
// data/choi), read from the directory EARSHOT_CHOI_DATA names (its data/choi).
// The Brown corpus texts are not licensed for redistribution here, so none
// is committed. Set 3/3-11 (300 documents) is the held-out set; set 1 is
// the dev set. The measure is Pk (Beeferman et al., 1999; lower is better)
// over sentences, k half the mean reference segment length.

type choiDoc struct {
	sents  []string
	starts []int // index of the first sentence of every segment after the first
}

var choiPunct = regexp.MustCompile(` ([.,;:!?%)]|'s|'re|n't|'ll|'d|'ve|'m|'')`)

func readChoi(t testing.TB, sub string) []choiDoc {
	dir := os.Getenv("EARSHOT_CHOI_DATA")
	if dir == "" {
		t.Skip("EARSHOT_CHOI_DATA not set (Choi's data/choi directory)")
	}
	files, _ := filepath.Glob(filepath.Join(dir, sub, "*.ref"))
	if len(files) == 0 {
		t.Fatalf("%s: no %s/*.ref", dir, sub)
	}
	sort.Strings(files)
	var out []choiDoc
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var d choiDoc
		for _, l := range strings.Split(string(b), "\n") {
			l = strings.TrimSpace(l)
			switch {
			case l == "":
			case strings.HasPrefix(l, "=========="):
				if len(d.sents) > 0 {
					d.starts = append(d.starts, len(d.sents))
				}
			default:
				// Untokenize ("bank , Chicago ." -> "bank, Chicago.").
				l = strings.NewReplacer("`` ", "\"", " ''", "\"", "``", "\"").Replace(l)
				d.sents = append(d.sents, choiPunct.ReplaceAllString(l, "$1"))
			}
		}
		if n := len(d.starts); n > 0 && d.starts[n-1] == len(d.sents) {
			d.starts = d.starts[:n-1]
		}
		out = append(out, d)
	}
	return out
}

// transcript returns the document as words with one span per sentence.
func (d choiDoc) transcript() ([]transcribe.Word, []nlp.Span) {
	ws := nlptest.Words(strings.Join(d.sents, " "))
	var spans []nlp.Span
	at := 0
	for _, s := range d.sents {
		n := len(strings.Fields(s))
		if n == 0 {
			continue
		}
		spans = append(spans, nlp.Span{From: at, To: at + n, Text: s, Start: ws[at].Start, End: ws[at+n-1].End})
		at += n
	}
	return ws, spans
}

// pk is Beeferman's Pk over n sentences: the share of sentence pairs k
// apart that the hypothesis puts in the same segment and the reference
// does not, or the other way round.
func pk(ref, hyp []int, n, k int) float64 {
	seg := func(starts []int) []int {
		s := make([]int, n)
		id, j := 0, 0
		for i := range s {
			for j < len(starts) && starts[j] <= i {
				id++
				j++
			}
			s[i] = id
		}
		return s
	}
	r, h := seg(ref), seg(hyp)
	errs := 0
	for i := 0; i+k < n; i++ {
		if (r[i] == r[i+k]) != (h[i] == h[i+k]) {
			errs++
		}
	}
	return float64(errs) / float64(max(n-k, 1))
}

// sentenceCuts maps word-index cuts to the nearest sentence starts.
func sentenceCuts(spans []nlp.Span, wordCuts []int) []int {
	var out []int
	seen := map[int]bool{}
	for _, w := range wordCuts {
		best, dist := -1, math.MaxInt
		for i, sp := range spans {
			if i == 0 {
				continue
			}
			if d := abs(sp.From - w); d < dist {
				best, dist = i, d
			}
		}
		if best > 0 && !seen[best] {
			seen[best] = true
			out = append(out, best)
		}
	}
	sort.Ints(out)
	return out
}

func abs(a int) int {
	if a < 0 {
		return -a
	}
	return a
}

// textTiling is Hearst's TextTiling (1997) as the baseline: pseudo-
// sentences of w = 20 content-word stems, blocks of 10 pseudo-sentences
// compared by cosine, similarities smoothed over three gaps, depth scores,
// boundaries where the depth exceeds mean - sd/2; it returns word-index
// cuts.
func textTiling(ws []transcribe.Word) []int {
	const w, block = 20, 10
	var stems []string
	var at []int
	for i, tk := range nlp.Tokens(ws) {
		if tk.IsWord() && !nlp.IsStopWord(tk.Norm) {
			stems = append(stems, nlp.Stem(tk.Norm))
			at = append(at, i)
		}
	}
	nps := (len(stems) + w - 1) / w
	if nps < 3 {
		return nil
	}
	count := func(from, to int) map[string]float64 {
		m := map[string]float64{}
		for p := max(from, 0); p < min(to, nps); p++ {
			for _, s := range stems[p*w : min((p+1)*w, len(stems))] {
				m[s]++
			}
		}
		return m
	}
	sim := make([]float64, nps) // gap g is before pseudo-sentence g
	for g := 1; g < nps; g++ {
		a, b := count(g-block, g), count(g, g+block)
		dot, na, nb := 0.0, 0.0, 0.0
		for s, v := range a {
			dot += v * b[s]
			na += v * v
		}
		for _, v := range b {
			nb += v * v
		}
		if na > 0 && nb > 0 {
			sim[g] = dot / math.Sqrt(na*nb)
		}
	}
	sm := make([]float64, nps)
	for g := 1; g < nps; g++ {
		s, c := sim[g], 1.0
		if g > 1 {
			s, c = s+sim[g-1], c+1
		}
		if g+1 < nps {
			s, c = s+sim[g+1], c+1
		}
		sm[g] = s / c
	}
	d := depths(sm)
	var ds []float64
	for g := 1; g < nps; g++ {
		ds = append(ds, d[g])
	}
	mean, sd := meanSD(ds)
	var cuts []int
	for g := 1; g < nps; g++ {
		// Local maxima of depth only, as Hearst does.
		if d[g] > mean-sd/2 && (g == 1 || d[g] >= d[g-1]) && (g+1 >= nps || d[g] >= d[g+1]) && d[g] > 0 {
			cuts = append(cuts, at[g*w])
		}
	}
	return cuts
}

// evalChoi returns the mean Pk of the chapter segmentation and of
// TextTiling over docs.
func evalChoi(docs []choiDoc) (ours, tt float64) {
	for _, d := range docs {
		ws, spans := d.transcript()
		n := len(spans)
		k := int(math.Round(float64(n) / float64(len(d.starts)+1) / 2))
		k = max(k, 1)
		x := NewText(ws, spans)
		var wc []int
		for _, u := range x.Segment(DefaultMinChapterSentences, 0) {
			wc = append(wc, x.sents[u].From)
		}
		ours += pk(d.starts, sentenceCuts(spans, wc), n, k)
		tt += pk(d.starts, sentenceCuts(spans, textTiling(ws)), n, k)
	}
	return ours / float64(len(docs)), tt / float64(len(docs))
}

// TestChoiSegmentation prints Pk of the chapter segmentation and of
// TextTiling on Choi's set 3 (3-11); the target is at most 0.8 ×
// TextTiling's.
func TestChoiSegmentation(t *testing.T) {
	docs := readChoi(t, "3/3-11")
	t.Parallel()
	ours, tt := evalChoi(docs)
	t.Logf("Choi 3/3-11 (%d documents), Pk (lower is better): chapters %.3f, TextTiling %.3f (target <= %.3f)", len(docs), ours, tt, 0.8*tt)
	if ours > 0.8*tt {
		t.Errorf("Pk %.3f above 0.8 x TextTiling's %.3f", ours, tt)
	}
}

// TestChoiSegmentationDev prints the same on set 1 (3-11), the dev set.
func TestChoiSegmentationDev(t *testing.T) {
	docs := readChoi(t, "1/3-11")
	t.Parallel()
	ours, tt := evalChoi(docs)
	t.Log(fmt.Sprintf("Choi 1/3-11 (%d documents), Pk: chapters %.3f, TextTiling %.3f", len(docs), ours, tt))
}
