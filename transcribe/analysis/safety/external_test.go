package safety

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe/analysis/nlp"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp/nlptest"
	"github.com/earshot-dev/earshot/transcribe/analysis/safety/lr"
	"github.com/earshot-dev/earshot/transcribe/analysis/topics/topicdata"
)

// davidsonRow is one labelled tweet: class 0 hate speech, 1 offensive
// language, 2 neither.
type davidsonRow struct {
	class int
	text  string
}

// readDavidsonSample reads the committed sample (testdata/davidson-test.tsv,
// MIT licence, see its header).
func readDavidsonSample(t testing.TB) []davidsonRow {
	t.Helper()
	b, err := os.ReadFile("testdata/davidson-test.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var out []davidsonRow
	for _, l := range strings.Split(string(b), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.SplitN(l, "\t", 3)
		c, err := strconv.Atoi(f[1])
		if len(f) != 3 || err != nil || c < 0 || c > 2 {
			t.Fatalf("davidson-test.tsv: bad line %q", l)
		}
		out = append(out, davidsonRow{c, f[2]})
	}
	return out
}

// prf is a confusion count for one label.
type prf struct{ tp, fp, fn int }

func (s *prf) add(gold, got bool) {
	switch {
	case gold && got:
		s.tp++
	case got:
		s.fp++
	case gold:
		s.fn++
	}
}
func (s prf) precision() float64 { return ratio(s.tp, s.tp+s.fp) }
func (s prf) recall() float64    { return ratio(s.tp, s.tp+s.fn) }
func (s prf) String() string {
	return fmt.Sprintf("precision %.1f%% recall %.1f%% (tp %d fp %d fn %d)", 100*s.precision(), 100*s.recall(), s.tp, s.fp, s.fn)
}

// labelsAt returns the labels Detect gives text at confidence ≥ 0.5.
func labelsAt(text string) []string {
	m, _ := learned()
	return labelsWith(text, m)
}

// lexiconLabels is labelsAt with the lexicon and its rules alone, no
// learned model: the method before the models, in the same run.
func lexiconLabels(text string) []string { return labelsWith(text, nil) }

func labelsWith(text string, m *models) []string {
	var out []string
	for _, s := range detectWith(nlp.Tokens(nlptest.Words(text)), m) {
		if s.Confidence >= 0.5 {
			out = append(out, s.Label)
		}
	}
	return out
}

// keywordLabels is the baseline: a label for every lexicon term found
// in the text as a stem sequence, with none of the context rules, and
// profanity for any word of the profanity list.
func keywordLabels(text string) []string {
	toks := nlp.Tokens(nlptest.Words(text))
	var us []unit
	for i, tk := range toks {
		for _, p := range strings.Split(tk.Norm, "-") {
			if p = strings.Trim(p, "'"); p != "" {
				us = append(us, unit{p, nlp.Stem(p), i})
			}
		}
	}
	var out []string
	add := func(l string) {
		if slices.Contains(Labels(), l) && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	idx := lex()
	for i := range us {
		for _, tm := range slices.Concat(idx.byFirst[us[i].stem], idx.byFirst["="+us[i].word]) {
			if i+len(tm.stems) <= len(us) && matchAt(us, i, tm.stems) {
				add(tm.label)
			}
		}
		if profanity.IsProfane(us[i].word) {
			add(Profanity)
		}
	}
	return out
}

// scoreDavidson scores profanity (gold: annotated offensive language or
// hate speech) and hate_speech (gold: hate speech) with detect.
func scoreDavidson(rows []davidsonRow, detect func(string) []string) (prof, hate prf) {
	for _, r := range rows {
		got := detect(r.text)
		prof.add(r.class <= 1, slices.Contains(got, Profanity))
		hate.add(r.class == 0, slices.Contains(got, HateSpeech))
	}
	return prof, hate
}

// TestDavidsonSample measures profanity and hate_speech on the committed
// sample of Davidson et al.'s labelled tweets (public data no one here
// wrote; held out: the hate speech model never trained or tuned on it),
// next to the lexicon alone and plain keyword matching. The sample holds
// every hate speech tweet of the test part but only 200 of each other
// class, so its precision is higher than on the whole test part
// (TestDavidsonFull).
func TestDavidsonSample(t *testing.T) {
	t.Parallel()
	rows := readDavidsonSample(t)
	prof, hate := scoreDavidson(rows, labelsAt)
	lprof, lhate := scoreDavidson(rows, lexiconLabels)
	bprof, bhate := scoreDavidson(rows, keywordLabels)
	t.Logf("Davidson sample (%d tweets) profanity: ours %v; lexicon alone %v; keywords %v", len(rows), prof, lprof, bprof)
	t.Logf("Davidson sample hate_speech: ours %v; lexicon alone %v; keywords %v", hate, lhate, bhate)
	if prof.precision() < 0.85 || prof.recall() < davidsonProfanityRecallFloor {
		t.Errorf("profanity %v: want precision ≥ 85%% and recall ≥ %.0f%%", prof, 100*davidsonProfanityRecallFloor)
	}
	if hate.precision() < davidsonHatePrecisionFloor || hate.recall() < davidsonHateRecallFloor {
		t.Errorf("hate_speech %v: want precision ≥ %.0f%% and recall ≥ %.0f%% (floors under the measured figures)",
			hate, 100*davidsonHatePrecisionFloor, 100*davidsonHateRecallFloor)
	}
}

// Floors guarding the measured sample figures (doc.go): profanity
// recall, and hate_speech precision and recall (measured 86.0% and
// 48.7%; the lexicon alone finds none).
const (
	davidsonProfanityRecallFloor = 0.60
	davidsonHatePrecisionFloor   = 0.75
	davidsonHateRecallFloor      = 0.40
)

// TestDavidsonFull measures the whole fixed test part (row id mod 10 =
// 0, DavidsonSplit) of data/labeled_data.csv read from
// $EARSHOT_DAVIDSON_CSV; it skips when the variable is unset.
func TestDavidsonFull(t *testing.T) {
	path := os.Getenv("EARSHOT_DAVIDSON_CSV")
	if path == "" {
		t.Skip("EARSHOT_DAVIDSON_CSV is not set")
	}
	t.Parallel()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tweets, err := ReadDavidson(f)
	if err != nil {
		t.Fatal(err)
	}
	var rows []davidsonRow
	for _, tw := range tweets {
		if tw.Split == topicdata.Test {
			rows = append(rows, davidsonRow{tw.Class, tw.Text})
		}
	}
	prof, hate := scoreDavidson(rows, labelsAt)
	lprof, lhate := scoreDavidson(rows, lexiconLabels)
	bprof, bhate := scoreDavidson(rows, keywordLabels)
	t.Logf("Davidson test part (%d tweets) profanity: ours %v; lexicon alone %v; keywords %v", len(rows), prof, lprof, bprof)
	t.Logf("Davidson test part hate_speech: ours %v; lexicon alone %v; keywords %v", hate, lhate, bhate)
	m, err := learned()
	if err != nil {
		t.Fatal(err)
	}
	p, gold := make([]float64, len(rows)), make([]bool, len(rows))
	for i, r := range rows {
		p[i], gold[i] = m.hate.Probability(HateFeatures(nlp.Tokens(nlptest.Words(r.text)))), r.class == 0
	}
	c := lr.Curve(p, gold)
	t.Logf("Davidson test part, hate speech model alone: precision at recall 0.5 %.1f%%, 0.6 %.1f%%, 0.7 %.1f%%; average precision %.3f",
		100*c.PrecisionAt(0.5), 100*c.PrecisionAt(0.6), 100*c.PrecisionAt(0.7), c.AveragePrecision())
}

// neutralClasses are the HuffPost and BBC classes whose stories are not
// about any content safety label as a rule (no crime, politics, health or
// business news).
var neutralClasses = []string{"Sports", "Technology&Computing", "Entertainment", "Style&Fashion", "Home&Garden",
	"Food&Drink", "Travel", "FamilyAndRelationships", "Religion&Spirituality", "Education"}

// What counts as a false alarm on neutral news. The stories' classes
// say what a story is about as a whole, not that no paragraph of it
// touches a label: a company's quarterly figures in a technology story
// are company financials by AssemblyAI's definition of the label, and an
// entertainment story can tell of a burglary or of bookmakers' odds. So
// three rates are measured for every method:
//
//   - any: any label ≥ 0.5 (the figure, strict);
//   - non-financial: any label but financials;
//   - figurative: crime_violence, health_issues, weapons or terrorism
//     (figurativeLabels), the labels that sport, arts, tech and
//     lifestyle stories use words of figuratively ("a shot at goal", "a knee injury", "a computer
//     virus"); these should be near zero.

// alarms counts the texts with any label, any label but financials,
// and any figurative label, at confidence ≥ 0.5, and the labels given.
type alarms struct {
	n, any, nonFin, fig int
	by                  map[string]int
}

func countAlarms(texts []string, detect func(string) []string) alarms {
	a := alarms{n: len(texts), by: map[string]int{}}
	for _, x := range texts {
		got := detect(x)
		if len(got) > 0 {
			a.any++
		}
		if slices.ContainsFunc(got, func(l string) bool { return l != Financials }) {
			a.nonFin++
		}
		if slices.ContainsFunc(got, func(l string) bool { return slices.Contains(figurativeLabels, l) }) {
			a.fig++
		}
		for _, l := range got {
			a.by[l]++
		}
	}
	return a
}

func (a alarms) String() string {
	return fmt.Sprintf("any %.1f%%, non-financial %.1f%%, figurative %.1f%%", 100*ratio(a.any, a.n), 100*ratio(a.nonFin, a.n), 100*ratio(a.fig, a.n))
}

// TestNeutralNews measures how many neutral news texts get labels at
// the default threshold: the HuffPost test sample of package topics
// (CC BY 4.0) and, with $EARSHOT_BBC_DIR, the paragraphs of the BBC test
// part's sport, tech and entertainment articles, for our method, the
// lexicon alone and plain keywords. Target: at most 2% (see doc.go for
// how far each rate is; the ceilings guard the measured rates).
func TestNeutralNews(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../topics/testdata/huffpost-test.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var huff []string
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.SplitN(l, "\t", 3); len(f) == 3 && slices.Contains(neutralClasses, f[0]) {
			huff = append(huff, f[2])
		}
	}
	check := func(set string, texts []string, ceil alarms) {
		a := countAlarms(texts, labelsAt)
		l := countAlarms(texts, lexiconLabels)
		k := countAlarms(texts, keywordLabels)
		t.Logf("%s (%d texts):\n  ours:          %v %v\n  lexicon alone: %v %v\n  keywords:      %v %v", set, len(texts), a, a.by, l, l.by, k, k.by)
		if ratio(a.nonFin, a.n) > ratio(ceil.nonFin, 1000) || ratio(a.fig, a.n) > ratio(ceil.fig, 1000) {
			t.Errorf("%s: %v, want non-financial at most %.1f%% and figurative at most %.1f%%", set, a, float64(ceil.nonFin)/10, float64(ceil.fig)/10)
		}
	}
	check("HuffPost neutral classes, test part", huff, neutralHuffPostCeiling)
	dir := os.Getenv("EARSHOT_BBC_DIR")
	if dir == "" {
		return
	}
	check("BBC sport, tech and entertainment paragraphs, test part", bbcNeutral(t, dir, topicdata.Test), neutralBBCCeiling)
}

// bbcNeutral returns the paragraphs (title left out, eight words or more)
// of the BBC set's sport, tech and entertainment articles of one split.
func bbcNeutral(t *testing.T, dir, split string) []string {
	return bbcParagraphs(t, dir, split, "Sports", "Technology&Computing", "Entertainment")
}

// bbcParagraphs returns the paragraphs (title left out, eight words or
// more) of the BBC set's articles of the classes given, of one split.
func bbcParagraphs(t *testing.T, dir, split string, classes ...string) []string {
	t.Helper()
	docs, err := topicdata.ReadBBC(dir)
	if err != nil {
		t.Fatal(err)
	}
	var paras []string
	for _, d := range docs {
		if d.Split != split || !slices.Contains(classes, d.Class) {
			continue
		}
		for i, p := range strings.Split(d.Text, "\n") {
			if p = strings.TrimSpace(p); i > 0 && len(strings.Fields(p)) >= 8 {
				paras = append(paras, p)
			}
		}
	}
	return paras
}

// Regression guards for the measured rates (doc.go), in tenths of a
// percent: non-financial and figurative (measured 8.2% and 3.8% on
// HuffPost, 2.7% and 1.6% on BBC; one more alarm fails).
var (
	neutralHuffPostCeiling = alarms{nonFin: 83, fig: 38}
	neutralBBCCeiling      = alarms{nonFin: 27, fig: 16}
)

// TestNeutralNewsDev prints the rates of TestNeutralNews on the dev parts
// ($EARSHOT_HUFFPOST, the News Category Dataset's JSON lines, and
// $EARSHOT_BBC_DIR), for choosing the gate; it skips without them.
func TestNeutralNewsDev(t *testing.T) {
	huffPath, dir := os.Getenv("EARSHOT_HUFFPOST"), os.Getenv("EARSHOT_BBC_DIR")
	if huffPath == "" || dir == "" {
		t.Skip("EARSHOT_HUFFPOST or EARSHOT_BBC_DIR is not set")
	}
	hp, err := topicdata.ReadHuffPost(huffPath)
	if err != nil {
		t.Fatal(err)
	}
	var huff []string
	for _, d := range hp {
		if d.Split == topicdata.Dev && slices.Contains(neutralClasses, d.Class) {
			huff = append(huff, d.Text)
		}
	}
	paras := bbcNeutral(t, dir, topicdata.Dev)
	for _, s := range []struct {
		name  string
		texts []string
	}{{"HuffPost neutral classes, dev part", huff}, {"BBC sport, tech and entertainment paragraphs, dev part", paras}} {
		a := countAlarms(s.texts, labelsAt)
		t.Logf("%s (%d texts): %v %v", s.name, len(s.texts), a, a.by)
	}
}

// TestHardNewsLabels prints the rates of TestNeutralNews on the BBC
// set's business and politics paragraphs ($EARSHOT_BBC_DIR), dev and
// test parts: news that may carry labels (so the rates are no precision),
// where a word's other sense read as one ("joint bids", "ill-timed",
// "investors betting on"; see doc.go). The ceiling guards the measured
// test-part rate of labels other than financials (26.7%).
func TestHardNewsLabels(t *testing.T) {
	dir := os.Getenv("EARSHOT_BBC_DIR")
	if dir == "" {
		t.Skip("EARSHOT_BBC_DIR is not set")
	}
	t.Parallel()
	for _, split := range []string{topicdata.Dev, topicdata.Test} {
		texts := bbcParagraphs(t, dir, split, "BusinessAndFinance", "NewsAndPolitics")
		a := countAlarms(texts, labelsAt)
		t.Logf("BBC business and politics paragraphs, %s part (%d): %v %v", split, len(texts), a, a.by)
		if split == topicdata.Test && ratio(a.nonFin, a.n) > 0.270 {
			t.Errorf("labels other than financials on %.1f%% of paragraphs, want at most 27.0%%", 100*ratio(a.nonFin, a.n))
		}
	}
}
