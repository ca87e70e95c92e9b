package topics

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe/analysis/topics/nb"
	"github.com/earshot-dev/earshot/transcribe/analysis/topics/topicdata"
)

// newsScore is a classifier's figures on a labelled news set mapped to
// IAB tier-1 categories.
type newsScore struct {
	n, right, off int
}

func (s newsScore) accuracy() float64 { return float64(s.right) / float64(max(s.n, 1)) }
func (s newsScore) offRate() float64  { return float64(s.off) / float64(max(s.n, 1)) }

// scoreNews classifies every document: right when the first label's
// tier-1 category is one of the class's members; off when any label of
// another tier-1 category has relevance ≥ 0.5.
func scoreNews(c *Classifier, docs []topicdata.Doc) newsScore {
	var s newsScore
	for _, d := range docs {
		members := topicdata.Members(d.Class)
		ls := c.Classify(d.Text, 0, 0)
		s.n++
		if len(ls) > 0 && slices.Contains(members, tier1(ls[0].Label)) {
			s.right++
		}
		for _, l := range ls {
			if l.Relevance >= 0.5 && !slices.Contains(members, tier1(l.Label)) {
				s.off++
				break
			}
		}
	}
	return s
}

// logClasses logs the figures of each class of docs.
func logClasses(t *testing.T, c *Classifier, docs []topicdata.Doc) {
	t.Helper()
	byClass := map[string][]topicdata.Doc{}
	for _, d := range docs {
		byClass[d.Class] = append(byClass[d.Class], d)
	}
	classes := make([]string, 0, len(byClass))
	for k := range byClass {
		classes = append(classes, k)
	}
	slices.Sort(classes)
	for _, k := range classes {
		o, b := scoreNews(c, byClass[k]), scoreNews(c.keywordsOnly(), byClass[k])
		t.Logf("  %s (%d): %.1f%% (keywords %.1f%%), off-tier-1 %.1f%% (%.1f%%)", k, o.n, 100*o.accuracy(), 100*b.accuracy(), 100*o.offRate(), 100*b.offRate())
	}
}

// measure scores docs with the classifier and with its keywords alone,
// and logs both, overall and by class.
func measure(t *testing.T, set string, docs []topicdata.Doc) (ours, base newsScore) {
	t.Helper()
	c := classifier(t)
	ours, base = scoreNews(c, docs), scoreNews(c.keywordsOnly(), docs)
	logNews(t, set, ours, base)
	logClasses(t, c, docs)
	return ours, base
}

func logNews(t *testing.T, set string, ours, base newsScore) {
	t.Helper()
	t.Logf("%s (%d documents): tier-1 top-1 %.1f%% (keyword baseline %.1f%%); off-tier-1 label ≥ 0.5 on %.1f%% of documents (baseline %.1f%%)",
		set, ours.n, 100*ours.accuracy(), 100*base.accuracy(), 100*ours.offRate(), 100*base.offRate())
}

// readSample reads the committed HuffPost test sample
// (testdata/huffpost-test.tsv, CC BY 4.0, see its header).
func readSample(t testing.TB) []topicdata.Doc {
	t.Helper()
	b, err := os.ReadFile("testdata/huffpost-test.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var out []topicdata.Doc
	for _, l := range strings.Split(string(b), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.SplitN(l, "\t", 3)
		if len(f) != 3 || topicdata.Members(f[0]) == nil {
			t.Fatalf("huffpost-test.tsv: bad line %q", l)
		}
		out = append(out, topicdata.Doc{Class: f[0], ID: f[1], Text: f[2], Split: topicdata.Test})
	}
	return out
}

// TestModelChecksum checks that the shipped family model is the one its
// recorded checksum (and so its recorded training figures) describes,
// that it loads and that it knows every class of package topicdata.
func TestModelChecksum(t *testing.T) {
	t.Parallel()
	if got, want := nb.Checksum(modelFile), ModelChecksum(); got != want || len(want) != 64 {
		t.Fatalf("data/model.nb.gz SHA-256 %s, recorded %q", got, want)
	}
	m, err := nb.Read(bytes.NewReader(modelFile))
	if err != nil {
		t.Fatal(err)
	}
	fm, err := loadFamilyModel(classifier(t).p.tx)
	if err != nil {
		t.Fatal(err)
	}
	if len(fm.families) != len(topicdata.Classes) || m.Vocabulary() < 5000 {
		t.Fatalf("model: %d families in %d classes (want %d families), %d features", len(fm.families), len(m.Classes), len(topicdata.Classes), m.Vocabulary())
	}
	for i, c := range topicdata.Classes {
		if fm.families[i] != c.Name || !slices.Equal(fm.members[i], c.Members) {
			t.Errorf("family %d: %s %v, want %s %v", i, fm.families[i], fm.members[i], c.Name, c.Members)
		}
	}
}

// TestHuffPostSample measures tier-1 accuracy on the committed sample of
// the News Category Dataset's fixed test part (public data no one here
// wrote, never trained or tuned on), next to the keyword profiles alone.
func TestHuffPostSample(t *testing.T) {
	t.Parallel()
	docs := readSample(t)
	c := classifier(t)
	ours, base := scoreNews(c, docs), scoreNews(c.keywordsOnly(), docs)
	logNews(t, "HuffPost News Category test part", ours, base)
	if len(docs) < 500 {
		t.Fatalf("sample has %d documents, want at least 500", len(docs))
	}
	if ours.accuracy() < huffPostFloor || ours.accuracy() <= base.accuracy() {
		t.Errorf("tier-1 top-1 %.1f%%: want at least %.0f%% and above the baseline's %.1f%%", 100*ours.accuracy(), 100*huffPostFloor, 100*base.accuracy())
	}
	if ours.offRate() > huffPostOffCeiling || ours.offRate() >= base.offRate() {
		t.Errorf("off-tier-1 labels ≥ 0.5 on %.1f%% of documents: want at most %.0f%% and below the baseline's %.1f%%", 100*ours.offRate(), 100*huffPostOffCeiling, 100*base.offRate())
	}
}

// Regression guards for the measured figures (doc.go: 78.9% and 9.2%;
// the targets are 90% and 10%, see doc.go for why the first is not met
// on one-sentence headlines).
const (
	huffPostFloor      = 0.76
	huffPostOffCeiling = 0.12
)

// readExternal reads a public set from the folder named by the
// environment variable env (skipping the test when it is unset) and
// returns its fixed test part, or the part EARSHOT_TOPICS_SPLIT names
// ("dev", when choosing constants).
func readExternal(t *testing.T, env string, read func(string) ([]topicdata.Doc, error)) ([]topicdata.Doc, string) {
	t.Helper()
	dir := os.Getenv(env)
	if dir == "" {
		t.Skip(env + " is not set (see package topicdata for the data's source)")
	}
	t.Parallel()
	all, err := read(dir)
	if err != nil {
		t.Fatal(err)
	}
	split := topicdata.Test
	if s := os.Getenv("EARSHOT_TOPICS_SPLIT"); s != "" {
		split = s
	}
	var docs []topicdata.Doc
	for _, d := range all {
		if d.Split == split {
			docs = append(docs, d)
		}
	}
	return docs, split
}

// TestBBCNews measures the BBC News set's fixed test part, read from
// $EARSHOT_BBC_DIR (the folder holding business/, entertainment/, ...;
// its text may not be committed). It skips when the variable is unset.
func TestBBCNews(t *testing.T) {
	docs, split := readExternal(t, "EARSHOT_BBC_DIR", topicdata.ReadBBC)
	ours, _ := measure(t, "BBC News "+split+" part", docs)
	if ours.accuracy() < 0.90 {
		t.Errorf("tier-1 top-1 %.1f%% < 90%%", 100*ours.accuracy())
	}
	if ours.offRate() > 0.10 {
		t.Errorf("off-tier-1 labels ≥ 0.5 on %.1f%% of documents, want at most 10%%", 100*ours.offRate())
	}
}

// Test20News measures the 20 Newsgroups set's fixed test part (Usenet
// posts: everyday writing, not news), read from $EARSHOT_20NEWS_DIR (the
// folder holding 20news-bydate-train/ and 20news-bydate-test/; see
// package topicdata). It skips when the variable is unset.
// EARSHOT_TOPICS_SPLIT=dev scores the dev part instead.
func Test20News(t *testing.T) {
	docs, split := readExternal(t, "EARSHOT_20NEWS_DIR", topicdata.Read20News)
	ours, base := measure(t, "20 Newsgroups "+split+" part", docs)
	if ours.accuracy() <= base.accuracy() {
		t.Errorf("tier-1 top-1 %.1f%%, not above the keyword baseline's %.1f%%", 100*ours.accuracy(), 100*base.accuracy())
	}
}

// TestHuffPostDev prints the figures on the HuffPost dev part, read from
// $EARSHOT_HUFFPOST (the JSON lines file), for choosing constants.
func TestHuffPostDev(t *testing.T) {
	path := os.Getenv("EARSHOT_HUFFPOST")
	if path == "" {
		t.Skip("EARSHOT_HUFFPOST is not set")
	}
	all, err := topicdata.ReadHuffPost(path)
	if err != nil {
		t.Fatal(err)
	}
	var docs []topicdata.Doc
	for _, d := range all {
		if d.Split == topicdata.Dev {
			docs = append(docs, d)
		}
	}
	measure(t, "HuffPost dev part", docs)
}
