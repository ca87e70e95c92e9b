package safety

import (
	"encoding/csv"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe/analysis/nlp"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp/nlptest"
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
	var out []string
	for _, s := range Detect(nlp.Tokens(nlptest.Words(text))) {
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
// wrote), next to plain keyword matching.
func TestDavidsonSample(t *testing.T) {
	t.Parallel()
	rows := readDavidsonSample(t)
	prof, hate := scoreDavidson(rows, labelsAt)
	bprof, bhate := scoreDavidson(rows, keywordLabels)
	t.Logf("Davidson sample (%d tweets) profanity: ours %v; keywords %v", len(rows), prof, bprof)
	t.Logf("Davidson sample hate_speech: ours %v; keywords %v", hate, bhate)
	if prof.precision() < 0.85 || prof.recall() < davidsonProfanityRecallFloor {
		t.Errorf("profanity %v: want precision ≥ 85%% and recall ≥ %.0f%%", prof, 100*davidsonProfanityRecallFloor)
	}
	if hate.precision() < bhate.precision() {
		t.Errorf("hate_speech precision %.1f%% below the keyword baseline's %.1f%%", 100*hate.precision(), 100*bhate.precision())
	}
}

// davidsonProfanityRecallFloor guards the measured recall (doc.go).
const davidsonProfanityRecallFloor = 0.60

// TestDavidsonFull measures the whole fixed test part (row id mod 10 =
// 0) of data/labeled_data.csv read from $EARSHOT_DAVIDSON_CSV; it skips
// when the variable is unset.
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
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var rows []davidsonRow
	for _, r := range recs[1:] {
		id, err1 := strconv.Atoi(r[0])
		c, err2 := strconv.Atoi(r[5])
		if err1 != nil || err2 != nil {
			t.Fatalf("bad row %q", r)
		}
		if id%10 == 0 {
			rows = append(rows, davidsonRow{c, r[6]})
		}
	}
	prof, hate := scoreDavidson(rows, labelsAt)
	bprof, bhate := scoreDavidson(rows, keywordLabels)
	t.Logf("Davidson test part (%d tweets) profanity: ours %v; keywords %v", len(rows), prof, bprof)
	t.Logf("Davidson test part hate_speech: ours %v; keywords %v", hate, bhate)
}

// neutralClasses are the HuffPost and BBC classes whose stories are not
// about any content safety label as a rule (no crime, politics, health or
// business news).
var neutralClasses = []string{"Sports", "Technology&Computing", "Entertainment", "Style&Fashion", "Home&Garden",
	"Food&Drink", "Travel", "FamilyAndRelationships", "Religion&Spirituality", "Education"}

// falseAlarms counts the texts with any label at confidence ≥ 0.5.
func falseAlarms(texts []string, detect func(string) []string) (int, map[string]int) {
	n, by := 0, map[string]int{}
	for _, x := range texts {
		got := detect(x)
		if len(got) > 0 {
			n++
		}
		for _, l := range got {
			by[l]++
		}
	}
	return n, by
}

// TestNeutralNews measures how many neutral news texts get any label at
// the default threshold: the HuffPost test sample of package topics
// (CC BY 4.0) and, with $EARSHOT_BBC_DIR, the paragraphs of the BBC test
// part's sport, tech and entertainment articles. Target: at most 2%
// (not met; the ceilings guard the measured rates).
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
	check := func(set string, texts []string, limit float64) {
		n, by := falseAlarms(texts, labelsAt)
		bn, bby := falseAlarms(texts, keywordLabels)
		rate := ratio(n, len(texts))
		t.Logf("%s (%d texts): any label ≥ 0.5 on %.1f%% %v; keywords %.1f%% %v", set, len(texts), 100*rate, by, 100*ratio(bn, len(texts)), bby)
		if rate > limit {
			t.Errorf("%s: %.1f%% of neutral texts labelled, want at most %.0f%%", set, 100*rate, 100*limit)
		}
	}
	check("HuffPost neutral classes, test part", huff, neutralHuffPostCeiling)
	dir := os.Getenv("EARSHOT_BBC_DIR")
	if dir == "" {
		return
	}
	docs, err := topicdata.ReadBBC(dir)
	if err != nil {
		t.Fatal(err)
	}
	var paras []string
	for _, d := range docs {
		if d.Split != topicdata.Test || !slices.Contains([]string{"Sports", "Technology&Computing", "Entertainment"}, d.Class) {
			continue
		}
		for i, p := range strings.Split(d.Text, "\n") {
			if p = strings.TrimSpace(p); i > 0 && len(strings.Fields(p)) >= 8 {
				paras = append(paras, p)
			}
		}
	}
	check("BBC sport, tech and entertainment paragraphs, test part", paras, neutralBBCCeiling)
}

// Regression guards for the measured rates (doc.go: 28.4% and 28.8%);
// the target, 2%, is not met.
const (
	neutralHuffPostCeiling = 0.30
	neutralBBCCeiling      = 0.30
)
