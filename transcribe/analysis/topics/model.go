package topics

import (
	"bytes"
	_ "embed"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/earshot-dev/earshot/transcribe/analysis/topics/nb"
)

// The family model: naive Bayes over word stems, trained by
// internal/cmd/traintopics (see doc.go, "Family model").
var (
	//go:embed data/model.nb.gz
	modelFile []byte
	//go:embed data/model.sha256
	modelSum string
)

// ModelChecksum is the SHA-256 recorded for the shipped model
// (data/model.sha256, written by the training command with the model).
func ModelChecksum() string { f, _, _ := strings.Cut(strings.TrimSpace(modelSum), " "); return f }

// familyModel is the family model with each taxonomy node's family. A
// family (a class of package topicdata) may be more than one class of
// the model, one per style of writing it was trained on: the news sets'
// "Sports" and the Usenet posts' "Sports@usenet". A family's
// log-likelihood is the mixture of its styles' (uniform weights), so a
// text in either style finds its family.
type familyModel struct {
	m        *nb.Model
	families []string   // family names, in the order of their first class
	members  [][]string // by family: its tier-1 categories
	familyOf []int      // by model class: its family
	classOf  []int      // by node index: the family of its tier-1 category
}

// styleSep separates a family's name from a style in a model class's
// name ("Sports@usenet").
const styleSep = "@"

func loadFamilyModel(tx *taxonomy) (*familyModel, error) {
	if got, want := nb.Checksum(modelFile), ModelChecksum(); got != want {
		return nil, fmt.Errorf("topics: data/model.nb.gz has SHA-256 %s, data/model.sha256 records %s", got, want)
	}
	m, err := nb.Read(bytes.NewReader(modelFile))
	if err != nil {
		return nil, fmt.Errorf("topics: data/model.nb.gz: %w", err)
	}
	return newFamilyModel(tx, m)
}

func newFamilyModel(tx *taxonomy, m *nb.Model) (*familyModel, error) {
	fm := &familyModel{m: m, familyOf: make([]int, len(m.Classes)), classOf: make([]int, len(tx.nodes))}
	index := map[string]int{}
	byLabel := map[string]int{}
	for i, name := range m.Classes {
		family, _, _ := strings.Cut(name, styleSep)
		f, ok := index[family]
		if !ok {
			f = len(fm.families)
			index[family] = f
			fm.families = append(fm.families, family)
			fm.members = append(fm.members, m.Members[i])
		} else if !slices.Equal(fm.members[f], m.Members[i]) {
			return nil, fmt.Errorf("topics: model class %s: members %v differ from %s's %v", name, m.Members[i], family, fm.members[f])
		}
		fm.familyOf[i] = f
		for _, l := range m.Members[i] {
			if _, ok := tx.index[l]; !ok || strings.Contains(l, ">") {
				return nil, fmt.Errorf("topics: model class %s: %q is not a tier-1 category", name, l)
			}
			if g, ok := byLabel[l]; ok && g != f {
				return nil, fmt.Errorf("topics: %s is a member of two families", l)
			}
			byLabel[l] = f
		}
	}
	for i, n := range tx.nodes {
		c, ok := byLabel[tx.nodes[n.root].label]
		if !ok {
			return nil, fmt.Errorf("topics: no model class for %s", tx.nodes[n.root].label)
		}
		fm.classOf[i] = c
	}
	return fm, nil
}

// familyShares returns the probability of each class given the stems
// and their keyword evidence s, and whether any stem was known to the
// model: softmax((ll_k + keywordWeight × E_k) / (1 + n/Tempering)),
// with ll_k the model's log-likelihood of class k, E_k the keyword
// evidence of its families and n the known features. The model knows news
// vocabulary from thousands of articles, the keyword profiles know the
// vocabulary of the categories news sets lack (pets, cars, careers); the
// model's evidence grows with every word and the keywords' with the log
// of their counts, so the model decides long news stories and the
// keywords weigh more in a short paragraph.
func (fm *familyModel) familyShares(stems []string, s scores) ([]float64, bool) {
	cl, n := fm.m.LogLikelihoods(Features(stems))
	if n == 0 {
		return nil, false
	}
	ll := fm.mixture(cl)
	for i, x := range s.own {
		ll[fm.classOf[i]] += keywordWeight * x
	}
	t := 1.0
	if fm.m.Tempering > 0 {
		t += float64(n) / fm.m.Tempering
	}
	best := math.Inf(-1)
	for _, x := range ll {
		best = max(best, x)
	}
	sum := 0.0
	p := make([]float64, len(ll))
	for k, x := range ll {
		p[k] = math.Exp((x - best) / t)
		sum += p[k]
	}
	for k := range p {
		p[k] /= sum
	}
	return p, true
}

// mixture returns each family's log-likelihood from its classes' (ll):
// log of the mean of their likelihoods. With one class a family (the
// shipped model), that is ll itself.
func (fm *familyModel) mixture(ll []float64) []float64 {
	if len(ll) == len(fm.families) {
		return ll // families are numbered in the order of their first class
	}
	best := make([]float64, len(fm.families))
	for f := range best {
		best[f] = math.Inf(-1)
	}
	for i, x := range ll {
		best[fm.familyOf[i]] = max(best[fm.familyOf[i]], x)
	}
	sum := make([]float64, len(fm.families))
	k := make([]float64, len(fm.families))
	for i, x := range ll {
		f := fm.familyOf[i]
		sum[f] += math.Exp(x - best[f])
		k[f]++
	}
	out := make([]float64, len(fm.families))
	for f := range out {
		out[f] = best[f] + math.Log(sum[f]/k[f])
	}
	return out
}

// keywordWeight scales the keyword evidence of a class against the
// family model's log-likelihood (chosen on the dev parts and
// testdata/dev.txt).
var keywordWeight = 0.25

// Combining the family model with the keyword profiles (see doc.go).
const (
	// tierOneShare is the relevance of a tier-1 category that the
	// family model alone gives: its family's probability times this, so
	// that a subcategory the keywords back well ranks above it.
	tierOneShare = 0.5
)

// combined returns a label's relevance from its keyword relevance kw
// and its family's probability p: their geometric mean, so that a
// keyword match in a family the model rules out stays weak ("foot" in a
// news interview), and strong keywords in the family the model favours
// rank first.
func combined(kw, p float64) float64 { return math.Sqrt(kw * p) }

// everydaySpread: a word whose Spread in the family model is below this
// is a word of every topic.
var everydaySpread = 4.0

// everyday reports whether the family model finds stem w in every family
// at about the same rate ("new", "first", "country", "news"): as a single
// word of a category's name ("New Age Music", "First Aid", "Country
// Music") it names no topic.
func (fm *familyModel) everyday(w string) bool {
	s := fm.m.Spread(w)
	return s > 0 && s < everydaySpread
}
