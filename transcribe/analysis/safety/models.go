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
	context   *nb.Model
	isLeisure []bool // by context class
	hate      *lr.Model
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
	m := &models{context: cm, hate: hm, isLeisure: make([]bool, len(cm.Classes))}
	for i, c := range cm.Classes {
		m.isLeisure[i] = IsLeisure(c)
	}
	return m, nil
}

// learned is the embedded models, or the error that keeps them from
// loading (TestModels fails on it; detection then uses the lexicon
// alone).
var learned = sync.OnceValues(func() (*models, error) {
	return loadModels(contextFile, []byte(contextSum), hateFile, []byte(hateSum))
})

// leisure returns the context model's probability that toks are about a
// leisure domain (sport, arts, tech, lifestyle together), 0 when nothing
// is known.
func (m *models) leisure(toks []nlp.Token) float64 {
	p, n := m.context.Posterior(ContextFeatures(toks))
	if n == 0 {
		return 0
	}
	l := 0.0
	for i, x := range p {
		if m.isLeisure[i] {
			l += x
		}
	}
	return l
}

// share returns how clearly a stretch of leisure probability l is about
// leisure, in [0, 1]: 0 up to floor, 1 at 1, linear in between.
func share(l, floor float64) float64 { return max(0, (l-floor)/(1-floor)) }

// The leisure probabilities at which the gate starts to act: one half
// for the figurative labels (a stretch must lean to leisure before its
// "shot" or "injury" is doubted), 0.3 for the others, whose gate also
// weighs their centrality, so that a passing mention in a stretch that
// mixes a leisure domain with news (a late-night host on a politician,
// a film star's court case) is weakened too. Chosen on the train and
// dev parts of the neutral news sets with testdata/dev.txt unchanged.
const (
	figurativeFloor = 0.5
	topicalFloor    = 0.3
)

// Context gate. In a stretch the context model reads as sport, arts,
// tech or lifestyle (leisureShare g > 0), a topical label is most often
// named in passing: a drugs test in a sprinter's story, a company's
// earnings in a phone maker's, a tsunami concert, "Sex and the City". So
// the evidence of every label but profanity and hate speech (and the
// negative-event cues of negative_news) is multiplied by
// 1 - g × (1 - centrality). For the labels whose words such texts use
// figuratively ("shot", "attack", "injury", a computer "virus":
// figurativeLabels) centrality is 0: the gate is g alone. For the others
// it is the label's evidence per content word of the stretch over
// centralDensity, capped at 1: a stretch that is about the label ("he
// was caught watching porn on his work computer") keeps its evidence
// whatever its domain, one mention among fifty words of a match report
// does not. The labels, the full strength and centralDensity were chosen
// on the train and dev parts of the BBC News and HuffPost neutral
// paragraphs, the dev part of Davidson et al.'s tweets and
// testdata/dev.txt (internal/cmd/trainsafety does not learn them; the
// test parts were only measured).
const centralDensity = 0.6

// figurativeLabels are the labels gated without regard to centrality.
var figurativeLabels = []string{CrimeViolence, HealthIssues, Weapons, Terrorism}

// ungatedLabels are the labels the context gate leaves alone: cursing and
// hate are what they are in any domain.
var ungatedLabels = []string{Profanity, HateSpeech}

// gate applies the context gate to ev, the evidence found in toks;
// trigger marks the tokens a lexicon term matched.
func (m *models) gate(ev map[string]*labelEvidence, toks []nlp.Token, trigger []bool) {
	// The domain is told by the words around the evidence, not by the
	// evidence itself: "injury" or "fell" reads as sport news to the
	// context model, "shot" or "attack" as hard news, whatever the
	// stretch is about.
	ctx := make([]nlp.Token, 0, len(toks))
	for i, t := range toks {
		if !trigger[i] {
			ctx = append(ctx, t)
		}
	}
	l := m.leisure(ctx)
	if l <= topicalFloor {
		return
	}
	n := float64(max(len(ContextFeatures(toks)), 1))
	for lb, e := range ev {
		if slices.Contains(ungatedLabels, lb) || lb != "newsneg" && !slices.Contains(Labels(), lb) {
			continue
		}
		g, c := share(l, figurativeFloor), 0.0
		if !slices.Contains(figurativeLabels, lb) {
			g, c = share(l, topicalFloor), min(1, e.score/(centralDensity*n))
		}
		e.score *= 1 - g*(1-c)
	}
}

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
