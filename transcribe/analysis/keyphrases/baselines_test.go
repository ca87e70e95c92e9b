package keyphrases

import (
	"math"
	"sort"
	"strings"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp"
)

// Baselines for the external evaluation (external_test.go), written from
// their papers so that the figures mean something.

// textRankBaseline is TextRank as Mihalcea and Tarau (2004) describe it
// for keywords: nouns and adjectives are vertices, joined when they occur
// within two words of each other in the filtered sequence; PageRank
// (0.85); the top third of the vertices are keywords; keywords adjacent in
// the text are collapsed into phrases, scored by the sum of their words'
// ranks (the usual reading, as in the pke toolkit).
func textRankBaseline(ws []transcribe.Word, k int) []string {
	toks := nlp.Tokens(ws)
	if nlp.Tag(toks) != nil {
		return nil
	}
	ok := func(t nlp.Token) bool {
		return t.IsWord() && !nlp.IsStopWord(t.Norm) && (nlp.IsNounTag(t.Tag) || nlp.IsAdjectiveTag(t.Tag))
	}
	var seq []string
	for _, t := range toks {
		if ok(t) {
			seq = append(seq, t.Norm)
		}
	}
	edges := map[string]map[string]float64{}
	for i := range seq {
		if edges[seq[i]] == nil {
			edges[seq[i]] = map[string]float64{}
		}
		if i+1 < len(seq) && seq[i] != seq[i+1] {
			if edges[seq[i+1]] == nil {
				edges[seq[i+1]] = map[string]float64{}
			}
			edges[seq[i]][seq[i+1]] = 1
			edges[seq[i+1]][seq[i]] = 1
		}
	}
	rank := pageRank(edges)
	words := make([]string, 0, len(rank))
	for w := range rank {
		words = append(words, w)
	}
	sort.Slice(words, func(i, j int) bool {
		if rank[words[i]] != rank[words[j]] {
			return rank[words[i]] > rank[words[j]]
		}
		return words[i] < words[j]
	})
	top := map[string]bool{}
	for _, w := range words[:(len(words)+2)/3] {
		top[w] = true
	}
	score := map[string]float64{}
	var order []string
	for i := 0; i < len(toks); {
		if !ok(toks[i]) || !top[toks[i].Norm] {
			i++
			continue
		}
		j := i
		var parts []string
		s := 0.0
		for j < len(toks) && ok(toks[j]) && top[toks[j].Norm] && (j == i || !toks[j-1].EndsClause()) {
			parts = append(parts, toks[j].Norm)
			s += rank[toks[j].Norm]
			j++
		}
		p := strings.Join(parts, " ")
		if _, seen := score[p]; !seen {
			order = append(order, p)
		}
		score[p] = s
		i = j
	}
	sort.SliceStable(order, func(i, j int) bool { return score[order[i]] > score[order[j]] })
	return order[:min(k, len(order))]
}

// yakeBaseline is YAKE (Campos et al., 2020), unsupervised and
// statistical: each word gets S = rel·pos / (case + freq/rel + diff/rel)
// from its casing, position, frequency, relatedness to its neighbours and
// spread over sentences; candidates are n-grams of up to three words
// inside a sentence that neither start nor end with a stop word, scored
// prod(S) / (tf · (1 + sum(S))), lowest best; a candidate with the same
// stems as a better one is skipped.
func yakeBaseline(ws []transcribe.Word, k int) []string {
	toks := nlp.Tokens(ws)
	type stat struct {
		tf, upper, acro float64
		sents           map[int]bool
		firstSents      []float64
		left, right     map[string]bool
		nLeft, nRight   float64
	}
	st := map[string]*stat{}
	get := func(w string) *stat {
		s := st[w]
		if s == nil {
			s = &stat{sents: map[int]bool{}, left: map[string]bool{}, right: map[string]bool{}}
			st[w] = s
		}
		return s
	}
	sent, nSent := 0, 1
	sentOf := make([]int, len(toks))
	for i, t := range toks {
		sentOf[i] = sent
		if t.IsWord() {
			s := get(t.Norm)
			s.tf++
			s.sents[sent] = true
			s.firstSents = append(s.firstSents, float64(sent))
			initial := i == 0 || toks[i-1].EndsSentence()
			if isAcronym(t.Text) {
				s.acro++
			} else if !initial && t.Text != t.Norm {
				s.upper++
			}
			if i > 0 && toks[i-1].IsWord() && sentOf[i-1] == sent && !toks[i-1].EndsClause() {
				s.left[toks[i-1].Norm] = true
				s.nLeft++
				r := get(toks[i-1].Norm)
				r.right[t.Norm] = true
				r.nRight++
			}
		}
		if t.EndsSentence() {
			sent++
			nSent = sent + 1
		}
	}
	var tfs []float64
	maxTF := 0.0
	for w, s := range st {
		if !nlp.IsStopWord(w) {
			tfs = append(tfs, s.tf)
		}
		maxTF = math.Max(maxTF, s.tf)
	}
	mean, sd := 0.0, 0.0
	for _, v := range tfs {
		mean += v
	}
	mean /= math.Max(1, float64(len(tfs)))
	for _, v := range tfs {
		sd += (v - mean) * (v - mean)
	}
	sd = math.Sqrt(sd / math.Max(1, float64(len(tfs))))
	S := map[string]float64{}
	for w, s := range st {
		cas := math.Max(s.upper, s.acro) / (1 + math.Log(s.tf))
		sort.Float64s(s.firstSents)
		med := s.firstSents[len(s.firstSents)/2]
		pos := math.Log(math.Log(3 + med))
		freq := s.tf / (mean + sd)
		dl, dr := 0.0, 0.0
		if s.nLeft > 0 {
			dl = float64(len(s.left)) / s.nLeft
		}
		if s.nRight > 0 {
			dr = float64(len(s.right)) / s.nRight
		}
		rel := 1 + (dl+dr)*s.tf/maxTF
		diff := float64(len(s.sents)) / float64(nSent)
		S[w] = rel * pos / (cas + freq/rel + diff/rel)
	}
	type cand struct {
		text  string
		stems string
		score float64
		tf    float64
		words []string
	}
	cands := map[string]*cand{}
	var order []*cand
	for i := range toks {
		for n := 1; n <= 3 && i+n <= len(toks); n++ {
			okRun := true
			var parts, stems []string
			for j := i; j < i+n; j++ {
				if !toks[j].IsWord() || toks[j].Redacted || (j > i && (toks[j-1].EndsClause() || sentOf[j] != sentOf[i])) {
					okRun = false
					break
				}
				parts = append(parts, toks[j].Norm)
				stems = append(stems, nlp.Stem(toks[j].Norm))
			}
			if !okRun || nlp.IsStopWord(parts[0]) || nlp.IsStopWord(parts[n-1]) || len(parts[0]) < 3 {
				continue
			}
			key := strings.Join(parts, " ")
			c := cands[key]
			if c == nil {
				c = &cand{text: key, stems: strings.Join(stems, " "), words: parts}
				cands[key] = c
				order = append(order, c)
			}
			c.tf++
		}
	}
	for _, c := range order {
		prod, sum := 1.0, 0.0
		for _, w := range c.words {
			if nlp.IsStopWord(w) {
				continue
			}
			prod *= S[w]
			sum += S[w]
		}
		c.score = prod / (c.tf * (1 + sum))
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].score < order[j].score })
	var out []string
	seen := map[string]bool{}
	for _, c := range order {
		if len(out) == k {
			break
		}
		if seen[c.stems] {
			continue
		}
		seen[c.stems] = true
		out = append(out, c.text)
	}
	return out
}
