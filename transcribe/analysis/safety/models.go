package safety

import (
	"bytes"
	_ "embed"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/earshot-dev/earshot/transcribe/analysis/nlp"
	"github.com/earshot-dev/earshot/transcribe/analysis/safety/lr"
	"github.com/earshot-dev/earshot/transcribe/analysis/topics/nb"
)

// The learned models (doc.go, "Learned models"), written with their
// checksums by internal/cmd/trainsafety.
var (
	//go:embed data/context.nb.gz
	contextFile []byte
	//go:embed data/context.sha256
	contextSum string
	//go:embed data/hate.lr.gz
	hateFile []byte
	//go:embed data/hate.sha256
	hateSum string
)

// recorded returns the checksum a .sha256 file records.
func recorded(sum string) string { f, _, _ := strings.Cut(strings.TrimSpace(sum), " "); return f }

// ModelChecksums returns the SHA-256 recorded for the shipped context
// and hate speech models (data/*.sha256).
func ModelChecksums() (context, hate string) { return recorded(contextSum), recorded(hateSum) }

type models struct {
	context *nb.Model
	leisure []bool // by context class
	hate    *lr.Model
}

// loadModels checks and reads the embedded models.
func loadModels(ctxFile, ctxSum, hFile, hSum []byte) (*models, error) {
	if got, want := nb.Checksum(ctxFile), recorded(string(ctxSum)); got != want {
		return nil, fmt.Errorf("safety: data/context.nb.gz has SHA-256 %s, data/context.sha256 records %s", got, want)
	}
	if got, want := lr.Checksum(hFile), recorded(string(hSum)); got != want {
		return nil, fmt.Errorf("safety: data/hate.lr.gz has SHA-256 %s, data/hate.sha256 records %s", got, want)
	}
	cm, err := nb.Read(bytes.NewReader(ctxFile))
	if err != nil {
		return nil, fmt.Errorf("safety: data/context.nb.gz: %w", err)
	}
	if !slices.Equal(cm.Classes, Domains) {
		return nil, fmt.Errorf("safety: data/context.nb.gz: classes %v, want %v", cm.Classes, Domains)
	}
	hm, err := lr.Read(bytes.NewReader(hFile))
	if err != nil {
		return nil, fmt.Errorf("safety: data/hate.lr.gz: %w", err)
	}
	m := &models{context: cm, hate: hm, leisure: make([]bool, len(cm.Classes))}
	for i, c := range cm.Classes {
		m.leisure[i] = IsLeisure(c)
	}
	return m, nil
}

// learned is the embedded models, or the error that keeps them from
// loading (TestModels fails on it; detection then uses the lexicon
// alone).
var learned = sync.OnceValues(func() (*models, error) {
	return loadModels(contextFile, []byte(contextSum), hateFile, []byte(hateSum))
})

// leisureShare returns how clearly toks are about a leisure domain, in
// [0, 1]: 0 when the context model's probability of the leisure domains
// together is at most one half (or nothing is known), 1 when it is 1.
func (m *models) leisureShare(toks []nlp.Token) float64 {
	p, n := m.context.Posterior(ContextFeatures(toks))
	if n == 0 {
		return 0
	}
	l := 0.0
	for i, x := range p {
		if m.leisure[i] {
			l += x
		}
	}
	return max(0, 2*l-1)
}

// Context gate: in a stretch the context model reads as sport, arts,
// tech or lifestyle, the evidence of the labels whose words such texts
// use figuratively ("shot", "attack", "injury", a computer "virus") is
// multiplied by 1 - gateStrength × leisureShare. Strength and labels
// were chosen on the dev parts of BBC News and HuffPost and on
// testdata/dev.txt; accidents, drugs, alcohol and disasters are left
// ungated because leisure stories name them literally (a fall off a
// ladder at home, doping, a wine, a tsunami concert).
const gateStrength = 0.7

// gatedLabels are the labels the context gate weakens.
var gatedLabels = []string{CrimeViolence, HealthIssues, Weapons, Terrorism}

// hateEvidence returns the hate speech evidence of the model for toks:
// none below its threshold, else the evidence whose confidence runs from
// 0.5 at the threshold to 1 at probability 1, and the severity.
func (m *models) hateEvidence(toks []nlp.Token) (e, severity float64) {
	p := m.hate.Probability(HateFeatures(toks))
	t := m.hate.Threshold
	if p < t {
		return 0, 0
	}
	c := min(0.5+0.5*(p-t)/(1-t), 0.999)
	return -Scale * math.Log(1-c), 0.5 + 0.4*(p-t)/(1-t)
}
