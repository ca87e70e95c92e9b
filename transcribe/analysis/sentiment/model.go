package sentiment

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/earshot-dev/earshot/transcribe/analysis/nlp"
)

// NumFeatures is the length of Features' result.
const NumFeatures = 17

// Model is a multinomial logistic regression over Features: one weight
// row per label (Labels' order). It is trained by internal/cmd/trainsentiment
// on VADER's human-rated sentences (see doc.go) and stored in model.json.
type Model struct {
	// Weights[k] scores label Labels()[k]: the dot product with Features.
	Weights [3][NumFeatures]float64 `json:"weights"`
	// Source describes the training data, split and figures; informative.
	Source string `json:"source"`
}

//go:embed model.json
var modelJSON []byte

// ModelSHA256 returns the hex SHA-256 of the embedded model.json, the
// checksum the training command prints with its figures.
func ModelSHA256() string {
	s := sha256.Sum256(modelJSON)
	return hex.EncodeToString(s[:])
}

// LoadModel parses a model written by the training command.
func LoadModel(b []byte) (*Model, error) {
	var m Model
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("sentiment: model: %w", err)
	}
	for _, row := range m.Weights {
		for _, w := range row {
			if math.IsNaN(w) || math.IsInf(w, 0) {
				return nil, fmt.Errorf("sentiment: model: weight %v", w)
			}
		}
	}
	return &m, nil
}

// DefaultModel returns the embedded model.
var DefaultModel = sync.OnceValues(func() (*Model, error) { return LoadModel(modelJSON) })

// Features returns the model's inputs for a sentence of text (see
// featuresOf).
func Features(text string) []float64 {
	toks := nlp.Tokens(wordsOf(text))
	return featuresOf(toks)
}

// featuresOf returns the model's inputs for one sentence: a bias; the
// compound score after the speech rules (prepare) and its magnitude;
// VADER's positive, negative and neutral proportions after those rules;
// and plain VADER's (its published lexicon, without this package's
// additions) compound score of the sentence after the same rules but with
// its capitals kept, which VADER reads as emphasis, and its
// magnitude; whether each score passes its usual threshold (±0.05 for
// plain VADER, as its documentation gives, ±DefaultThreshold after the
// speech rules); and the log of the number of words, scaled.
func featuresOf(toks []nlp.Token) []float64 {
	s := vader().PolarityScores(prepare(toks))
	ps := plainVader().PolarityScores(prepareCase(toks, true))
	plain := ps.Compound
	ind := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	words, caps := 0, 0
	for _, t := range toks {
		if t.IsWord() {
			words++
			if len(t.Text) > 1 && strings.ToUpper(t.Text) == t.Text && strings.ToLower(t.Text) != t.Text {
				caps++
			}
		}
	}
	return []float64{1, s.Compound, math.Abs(s.Compound), s.Positive, s.Negative, s.Neutral, plain, math.Abs(plain),
		ind(plain >= 0.05), ind(plain <= -0.05), ind(s.Compound >= DefaultThreshold), ind(s.Compound <= -DefaultThreshold),
		math.Log1p(float64(words)) / 4, ps.Positive, ps.Negative, ps.Neutral, float64(caps) / float64(max(words, 1))}
}

// plainVader is govader's analyser as published, for the written-text
// feature.
var plainVader = sync.OnceValue(newPlainVader)

// Predict returns the probability of each label (Labels' order) for the
// features x.
func (m *Model) Predict(x []float64) [3]float64 {
	var z [3]float64
	hi := math.Inf(-1)
	for k := range z {
		for j, w := range m.Weights[k] {
			if j < len(x) {
				z[k] += w * x[j]
			}
		}
		hi = math.Max(hi, z[k])
	}
	sum := 0.0
	for k := range z {
		z[k] = math.Exp(z[k] - hi)
		sum += z[k]
	}
	for k := range z {
		z[k] /= sum
	}
	return z
}

// classify labels a sentence with the model: the most probable label, with
// confidence its probability against the runner-up's (p1 / (p1 + p2), in
// [0.5, 1]). Score stays the compound score after the speech rules.
func (m *Model) classify(toks []nlp.Token, score float64) Result {
	p := m.Predict(featuresOf(toks))
	best, second := 0, -1
	for k := 1; k < 3; k++ {
		if p[k] > p[best] {
			best = k
		}
	}
	for k := range 3 {
		if k != best && (second < 0 || p[k] > p[second]) {
			second = k
		}
	}
	conf := p[best] / (p[best] + p[second])
	if math.IsNaN(conf) {
		conf = 0.5
	}
	return Result{Sentiment: Labels()[best], Confidence: math.Round(conf*1e4) / 1e4, Score: score}
}
