package topics

import (
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp"
)

// Scoring constants (see doc.go, "How labels are scored").
const (
	// familyShare is the part of a label's score that comes from the
	// evidence of its whole tier-1 family; the rest is its own evidence
	// and that of its ancestors below tier 1.
	familyShare = 0.5
	// rootShare is the part of its tier-1 category's own evidence that a
	// subcategory inherits, so that "quarterback" and "touchdown" make
	// Sports>AmericanFootball outrank Sports even when "team" and "won"
	// are also said.
	rootShare = 0.5
	// relevanceScale turns a score into a relevance in [0, 1):
	// 1 - exp(-score/relevanceScale).
	relevanceScale = 4.0
)

// Classifier scores text against the 698 categories of the IAB Content
// Taxonomy 2.0. It is immutable once built and safe for concurrent use.
type Classifier struct {
	p      *profiles
	strict *profiles    // the index the family model's ranking reads (buildProfiles)
	fm     *familyModel // nil: keyword profiles alone (the baseline)
}

var (
	defaultOnce sync.Once
	defaultC    *Classifier
	defaultErr  error
)

// Default returns the classifier built from the shipped taxonomy and
// keyword profiles, building it on first use (about 10 ms). The error is
// not nil only if the embedded data is inconsistent, which the package's
// tests rule out.
func Default() (*Classifier, error) {
	defaultOnce.Do(func() {
		tx, err := loadTaxonomy()
		if err != nil {
			defaultErr = err
			return
		}
		p, err := buildProfiles(tx, false)
		if err != nil {
			defaultErr = err
			return
		}
		fm, err := loadFamilyModel(tx)
		if err != nil {
			defaultErr = err
			return
		}
		strict, err := buildProfilesWith(tx, true, fm.everyday)
		if err != nil {
			defaultErr = err
			return
		}
		defaultC = &Classifier{p: p, strict: strict, fm: fm}
	})
	return defaultC, defaultErr
}

// Labels returns the 698 category labels in the API's form, in taxonomy
// order ("Automotive", "Automotive>AutoBodyStyles", ...).
func (c *Classifier) Labels() []string {
	out := make([]string, len(c.p.tx.nodes))
	for i, n := range c.p.tx.nodes {
		out[i] = n.label
	}
	return out
}

// Stems returns the stems of the words the classifier reads from ws:
// redacted words and punctuation are skipped, hyphenated words split.
func Stems(ws []transcribe.Word) []string {
	var out []string
	for _, tk := range nlp.Tokens(ws) {
		if tk.Redacted || tk.Text == "" {
			continue
		}
		out = append(out, termWords(tk.Norm)...)
	}
	return out
}

// textStems is Stems for plain text.
func textStems(text string) []string {
	fs := strings.Fields(text)
	ws := make([]transcribe.Word, len(fs))
	for i, f := range fs {
		ws[i].Text = f
	}
	return Stems(ws)
}

// scores holds one text's evidence for every category.
type scores struct {
	own    []float64 // evidence from the category's own terms
	family []float64 // evidence of the category's whole tier-1 family (by node)
}

// evidence scores stems: each matched term adds weight × family
// specificity × (1 + ln count) to every category whose profile holds it.
func (c *Classifier) evidence(stems []string) scores { return evidenceFrom(c.p, stems) }

// modelEvidence is the evidence the family model's ranking reads: from
// the strict index (buildProfiles).
func (c *Classifier) modelEvidence(stems []string) scores {
	if c.strict == nil {
		return c.evidence(stems)
	}
	return evidenceFrom(c.strict, stems)
}

func evidenceFrom(p *profiles, stems []string) scores {
	nodes := p.tx.nodes
	s := scores{own: make([]float64, len(nodes)), family: make([]float64, len(nodes))}
	for id, n := range p.match(stems) {
		tf := 1 + math.Log(float64(n))
		for _, q := range p.postings[id] {
			s.own[q.node] += q.weight * p.idf[id] * tf
		}
	}
	fam := map[int]float64{}
	for i, n := range nodes {
		fam[n.root] += s.own[i]
	}
	for i, n := range nodes {
		s.family[i] = fam[n.root]
	}
	return s
}

// rank turns evidence into labels, most relevant first, at most max of
// them with relevance of at least minRel. A category is a candidate when
// its own terms occur; its score is
//
//	familyShare × (family evidence) + (1 − familyShare) × (own evidence +
//	own evidence of its ancestors below tier 1 + rootShare × own evidence
//	of its tier-1 category)
//
// so a specific category backed by its family ranks first, and a tier-1
// category ranks above its subcategories only when the text uses its
// general vocabulary much more than any subcategory's.
func (c *Classifier) rank(s scores, max int, minRel float64) []transcribe.TopicLabel {
	nodes := c.p.tx.nodes
	type cand struct {
		node  int
		score float64
	}
	var cs []cand
	for i, n := range nodes {
		if s.own[i] <= 0 {
			continue
		}
		path := s.own[i]
		for a := n.parent; a >= 0; a = nodes[a].parent {
			if nodes[a].parent < 0 {
				path += rootShare * s.own[a]
			} else {
				path += s.own[a]
			}
		}
		cs = append(cs, cand{i, familyShare*s.family[i] + (1-familyShare)*path})
	}
	sort.Slice(cs, func(a, b int) bool {
		if cs[a].score != cs[b].score {
			return cs[a].score > cs[b].score
		}
		return cs[a].node < cs[b].node
	})
	out := []transcribe.TopicLabel{}
	for _, x := range cs {
		rel := relevance(x.score)
		if len(out) >= max || rel < minRel {
			break
		}
		out = append(out, transcribe.TopicLabel{Label: nodes[x.node].label, Relevance: rel})
	}
	return out
}

// siblingPower: in the family model's ranking a subcategory gets its
// family's evidence in proportion to (its own evidence ÷ the most own
// evidence of one of its siblings)^siblingPower, so that the family
// backs the subcategory the text is about rather than every sibling with
// a stray word (a story about a browser gave Photo Editing, Video and
// Graphics Software 0.99 each). Chosen on the 20 Newsgroups dev part
// (Test20NewsSubtopics; see doc.go).
var siblingPower = 2.0

// relevance maps a score to [0, 1), rounded to four decimals.
func relevance(score float64) float64 {
	r := 1 - math.Exp(-score/relevanceScale)
	return math.Round(r*1e4) / 1e4
}

// Classify returns the labels of a text, most relevant first: at most max
// (0 means DefaultMaxLabels) with relevance of at least minRel (0 means
// none is dropped for being weak). Text with no topical words gives an
// empty, non-nil slice.
func (c *Classifier) Classify(text string, max int, minRel float64) []transcribe.TopicLabel {
	return c.ClassifyStems(textStems(text), max, minRel)
}

// ClassifyStems is Classify on the output of Stems.
func (c *Classifier) ClassifyStems(stems []string, max int, minRel float64) []transcribe.TopicLabel {
	if max <= 0 {
		max = DefaultMaxLabels
	}
	if c.fm != nil {
		s := c.modelEvidence(stems)
		if p, known := c.fm.familyShares(stems, s); known {
			return c.rankCombined(s, p, max, minRel)
		}
	}
	return c.rank(c.evidence(stems), max, minRel)
}

// keywordsOnly returns the classifier without its family model: the
// keyword profiles alone, the baseline the tests measure against.
func (c *Classifier) keywordsOnly() *Classifier { return &Classifier{p: c.p} }

// rankCombined ranks labels by the keyword evidence s and the family
// model's class probabilities p (see doc.go, "How labels are scored"): a
// label backed by keywords gets the geometric mean of its keyword
// relevance and its family's probability; every family the model finds
// likely also offers its tier-1 category (the one its keywords favour
// among a class's members) at tierOneShare × its probability.
func (c *Classifier) rankCombined(s scores, p []float64, max int, minRel float64) []transcribe.TopicLabel {
	nodes := c.p.tx.nodes
	rel := map[int]float64{}
	bestChild := map[int]float64{} // by node: the most own evidence of one of its children
	for i, n := range nodes {
		if n.parent >= 0 && s.own[i] > bestChild[n.parent] {
			bestChild[n.parent] = s.own[i]
		}
	}
	for i, n := range nodes {
		if s.own[i] <= 0 {
			continue
		}
		path := s.own[i]
		for a := n.parent; a >= 0; a = nodes[a].parent {
			if nodes[a].parent < 0 {
				path += rootShare * s.own[a]
			} else {
				path += s.own[a]
			}
		}
		fam := familyShare * s.family[i]
		if n.parent >= 0 {
			fam *= math.Pow(s.own[i]/bestChild[n.parent], siblingPower)
		}
		kw := 1 - math.Exp(-(fam+(1-familyShare)*path)/relevanceScale)
		rel[i] = combined(kw, p[c.fm.classOf[i]])
	}
	for k, pk := range p {
		best := -1
		for _, l := range c.fm.members[k] {
			i := c.p.tx.index[l]
			if best < 0 || s.family[i] > s.family[best] {
				best = i
			}
		}
		if r := tierOneShare * pk; best >= 0 && r > rel[best] {
			rel[best] = r
		}
	}
	type cand struct {
		node int
		rel  float64
	}
	cs := make([]cand, 0, len(rel))
	for i, r := range rel {
		cs = append(cs, cand{i, math.Round(r*1e4) / 1e4})
	}
	sort.Slice(cs, func(a, b int) bool {
		if cs[a].rel != cs[b].rel {
			return cs[a].rel > cs[b].rel
		}
		return cs[a].node < cs[b].node
	})
	out := []transcribe.TopicLabel{}
	for _, x := range cs {
		if len(out) >= max || x.rel < minRel || x.rel <= 0 {
			break
		}
		out = append(out, transcribe.TopicLabel{Label: nodes[x.node].label, Relevance: x.rel})
	}
	return out
}
