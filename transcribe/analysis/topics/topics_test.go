package topics

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp/nlptest"
)

func classifier(t testing.TB) *Classifier {
	t.Helper()
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestShippedLabels checks that the classifier knows exactly the 698
// labels of the shared data, in the same order, and that the TSV names
// map to them by the documented rule.
func TestShippedLabels(t *testing.T) {
	t.Parallel()
	got := classifier(t).Labels()
	if len(got) != 698 {
		t.Fatalf("%d labels, want 698", len(got))
	}
	b, err := os.ReadFile("data/labels.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSpace(string(b)), "\n")
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("label %d = %q, want %q", i, got[i], want[i])
		}
	}
	tx, err := loadTaxonomy()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ label, name string }{
		{"NewsAndPolitics>Weather", "Weather"},
		{"Home&Garden>IndoorEnvironmentalQuality", "Indoor Environmental Quality"},
		{"MedicalHealth>DiseasesAndConditions>Ear,NoseAndThroatConditions", "Ear, Nose and Throat Conditions"},
	} {
		if n := tx.nodes[tx.index[c.label]]; n.name != c.name {
			t.Errorf("%s: name %q, want %q", c.label, n.name, c.name)
		}
	}
	// The shipped attribution must stay with the data.
	readme, err := data.ReadFile("data/README.md")
	if err != nil || !strings.Contains(string(readme), "Creative Commons Attribution 3.0") {
		t.Errorf("data/README.md lacks the CC BY 3.0 attribution (%v)", err)
	}
}

// TestEveryLabelHasProfile checks that every category has terms: its name
// or curated keywords.
func TestEveryLabelHasProfile(t *testing.T) {
	t.Parallel()
	c := classifier(t)
	has := make([]bool, len(c.p.tx.nodes))
	for _, ps := range c.p.postings {
		for _, q := range ps {
			has[q.node] = true
		}
	}
	for i, ok := range has {
		if !ok {
			t.Errorf("%s has no terms", c.p.tx.nodes[i].label)
		}
	}
}

func TestApiLabel(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"News and Politics|Weather":                "NewsAndPolitics>Weather",
		"Home & Garden":                            "Home&Garden",
		"Music and Audio|Comedy (Music and Audio)": "MusicAndAudio>Comedy(MusicAndAudio)",
		"Style & Fashion|Men's Fashion":            "Style&Fashion>Men'sFashion",
	} {
		if got := apiLabel(strings.Split(in, "|")); got != want {
			t.Errorf("apiLabel(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClassifyBasics(t *testing.T) {
	t.Parallel()
	c := classifier(t)
	ls := c.Classify("The quarterback threw a touchdown pass in the fourth quarter and the team won the championship.", 0, 0)
	if len(ls) == 0 || ls[0].Label != "Sports>AmericanFootball" {
		t.Fatalf("labels %v, want Sports>AmericanFootball first", ls)
	}
	for i, l := range ls {
		if l.Relevance <= 0 || l.Relevance >= 1 {
			t.Errorf("relevance %v out of (0, 1)", l.Relevance)
		}
		if i > 0 && l.Relevance > ls[i-1].Relevance {
			t.Errorf("labels not sorted: %v", ls)
		}
	}
	if ls := c.Classify("Um, yeah, so, well, I mean, you know.", 0, 0); ls == nil || len(ls) != 0 {
		t.Errorf("no topical words: %v, want an empty non-nil list", ls)
	}
	if ls := c.Classify("", 0, 0); ls == nil || len(ls) != 0 {
		t.Errorf("empty text: %v", ls)
	}
	if ls := c.Classify("The doctor said my blood pressure is high and prescribed medication for my heart.", 2, 0); len(ls) != 2 {
		t.Errorf("max 2: got %d labels", len(ls))
	}
	// Stemming: plural and inflected forms match the keywords.
	if ls := c.Classify("Dogs barking at the puppies in the kennels", 1, 0); len(ls) == 0 || tier1(ls[0].Label) != "Pets" {
		t.Errorf("inflected forms: %v", ls)
	}
}

// TestSiblingsNeedTheirOwnEvidence checks that a subcategory is not given
// its family's backing for a word its parent's name holds, or for less
// evidence than a sibling has: a story about a web browser gave Photo
// Editing, Video, Graphics and Antivirus Software 0.99 each, next to
// Browsers, and Internet of Things (its name is "internet" once its stop
// words are gone) as much; a story about an Olympic kit deal gave Summer
// and Winter Olympic Sports the same relevance.
func TestSiblingsNeedTheirOwnEvidence(t *testing.T) {
	t.Parallel()
	c := classifier(t)
	const csa = "Technology&Computing>Computing>ComputerSoftwareAndApplications"
	ls := c.Classify("Microsoft is working on a new version of its internet explorer web browser. "+
		"The new software will be far less vulnerable to the bugs of the current browser, "+
		"and test versions of the program are due to be released on the internet by the summer.", 0, 0)
	rel := map[string]float64{}
	for _, l := range ls {
		rel[l.Label] = l.Relevance
	}
	browsers := rel[csa+">Browsers"]
	if browsers < 0.5 {
		t.Fatalf("Browsers %.2f, want at least 0.5: %v", browsers, ls)
	}
	for _, sib := range []string{"PhotoEditingSoftware", "VideoSoftware", "GraphicsSoftware", "AntivirusSoftware"} {
		if r := rel[csa+">"+sib]; r >= 0.9*browsers {
			t.Errorf("%s %.2f, as relevant as Browsers (%.2f): %v", sib, r, browsers, ls)
		}
	}
	if r := rel["Technology&Computing>Computing>Internet>InternetofThings"]; r > 0 {
		t.Errorf("Internet of Things %.2f from the word internet: %v", r, ls)
	}
	ls = c.Classify("The athletics federation has agreed a new kit deal with a sportswear firm that kitted out the team at the Olympics, "+
		"and the runners will wear it at the indoor championships.", 0, 0)
	rel = map[string]float64{}
	for _, l := range ls {
		rel[l.Label] = l.Relevance
	}
	if rel["Sports"] < 0.3 {
		t.Fatalf("Sports %.2f, want at least 0.3: %v", rel["Sports"], ls)
	}
	for _, l := range []string{"Sports>OlympicSports>SummerOlympicSports", "Sports>OlympicSports>WinterOlympicSports"} {
		if rel[l] >= rel["Sports>OlympicSports"] && rel[l] > 0 {
			t.Errorf("%s %.2f, at least Olympic Sports' %.2f with no word of its own: %v", l, rel[l], rel["Sports>OlympicSports"], ls)
		}
	}
}

// TestStreamingIsNotHomeAndGarden: HuffPost files its lists of what is
// new on Netflix under HOME & LIVING, and the model trained on them took
// Netflix for the home (Home & Garden first for a list of new shows);
// topicdata.TrainingClass counts those records as Entertainment.
func TestStreamingIsNotHomeAndGarden(t *testing.T) {
	t.Parallel()
	c := classifier(t)
	for _, s := range []string{
		"What to watch on Netflix that's new this week. Jerry Seinfeld returns.",
		"The best Netflix shows and movies debuting in May.",
		"We spent the whole weekend watching the new season on Netflix, and honestly the last two episodes were the best television I have seen all year.",
	} {
		ls := c.Classify(s, 3, 0)
		if len(ls) == 0 || tier1(ls[0].Label) == "Home&Garden" {
			t.Errorf("%q: %v, want an entertainment label first", s, ls)
		}
	}
}

// TestEverydayNameWords: a single word of a category's name that the
// family model finds in every family alike ("new" of New Age Music,
// "news" of News Radio) gives that category nothing; the category's full
// name still does.
func TestEverydayNameWords(t *testing.T) {
	t.Parallel()
	c := classifier(t)
	has := func(s, label string) bool {
		for _, l := range c.Classify(s, 0, 0) {
			if l.Label == label {
				return true
			}
		}
		return false
	}
	for _, x := range []struct{ text, label string }{
		{"The new season of the show drops on Netflix next week and the cast is back.", "MusicAndAudio>Inspirational/NewAgeMusic"},
		{"The country's first female prime minister won the vote, and the news was welcomed across the world.", "MusicAndAudio>TalkRadio>NewsRadio"},
		{"The country's first female prime minister won the vote, and the news was welcomed across the world.", "MusicAndAudio>CountryMusic"},
	} {
		if has(x.text, x.label) {
			t.Errorf("%s for %q", x.label, x.text)
		}
	}
	if !has("She plays country music on her guitar, mostly old songs about trucks and heartbreak.", "MusicAndAudio>CountryMusic") {
		t.Error("no Country Music for a text about country music")
	}
}

// TestClassifyRedactedWords checks that redacted words carry no topic.
func TestClassifyRedactedWords(t *testing.T) {
	t.Parallel()
	ws := nlptest.Words("[DRUG] ##### [MEDICAL_CONDITION] [PERSON_NAME].")
	if ls := classifier(t).ClassifyStems(Stems(ws), 0, 0); len(ls) != 0 {
		t.Errorf("redacted words gave labels %v", ls)
	}
}

func transcriptOf(text string) *transcribe.Transcript {
	tr := nlptest.Transcript(nlptest.Words(text))
	tr.IABCategories = transcribe.Ptr(true)
	return tr
}

func TestStageParagraphs(t *testing.T) {
	t.Parallel()
	tr := transcriptOf("The pitcher threw a perfect game and the fans cheered as the inning ended. It was the best baseball of the season.\n\n" +
		"Preheat the oven, mix the flour with butter and sugar, and bake the cookies for twelve minutes. Let them cool before you eat them.")
	st := Stages(Options{})[0]
	if !st.Enabled(&tr.TranscriptParams) {
		t.Fatal("stage not enabled by iab_categories")
	}
	if err := st.Apply(context.Background(), nlptest.Job(tr)); err != nil {
		t.Fatal(err)
	}
	r := tr.IABCategoriesResult
	if r == nil || r.Status != "success" || len(r.Results) != 2 {
		t.Fatalf("result %+v", r)
	}
	ws := tr.Words
	if r.Results[0].Timestamp.Start != ws[0].Start || r.Results[1].Timestamp.End != ws[len(ws)-1].End {
		t.Errorf("timestamps %+v %+v", r.Results[0].Timestamp, r.Results[1].Timestamp)
	}
	if r.Results[0].Timestamp.End >= r.Results[1].Timestamp.Start {
		t.Errorf("paragraphs overlap: %+v %+v", r.Results[0].Timestamp, r.Results[1].Timestamp)
	}
	if got := r.Results[0].Labels; len(got) == 0 || got[0].Label != "Sports>Baseball" {
		t.Errorf("first paragraph labels %v", got)
	}
	if got := r.Results[1].Labels; len(got) == 0 || tier1(got[0].Label) != "Food&Drink" {
		t.Errorf("second paragraph labels %v", got)
	}
	if !strings.HasPrefix(r.Results[1].Text, "Preheat the oven") {
		t.Errorf("second paragraph text %q", r.Results[1].Text)
	}
	if len(r.Summary) == 0 || len(r.Summary) > DefaultMaxSummary {
		t.Fatalf("summary %v", r.Summary)
	}
	if _, ok := r.Summary["Sports>Baseball"]; !ok {
		t.Errorf("summary %v lacks Sports>Baseball", r.Summary)
	}
	for l, v := range r.Summary {
		if v <= 0 || v > 1 {
			t.Errorf("summary %s = %v", l, v)
		}
	}
}

func TestStageSummaryCap(t *testing.T) {
	t.Parallel()
	var paras []string
	for _, s := range []string{
		"The quarterback threw a touchdown.", "The senate passed the bill.", "Bake the cake in the oven.",
		"The vet vaccinated the puppy.", "Our startup raised venture capital.", "The hotel near the beach was cheap.",
		"My mortgage rate went up.", "The astronomers found a new planet.", "The band released a new album.",
		"The surgeon operated on my knee.",
	} {
		paras = append(paras, s)
	}
	tr := transcriptOf(strings.Join(paras, "\n\n"))
	if err := (Stage{Options: Options{MaxSummary: 5, MaxLabels: 3}}).Apply(context.Background(), nlptest.Job(tr)); err != nil {
		t.Fatal(err)
	}
	r := tr.IABCategoriesResult
	if len(r.Summary) != 5 {
		t.Errorf("summary has %d labels, want 5", len(r.Summary))
	}
	for _, res := range r.Results {
		if len(res.Labels) > 3 {
			t.Errorf("paragraph has %d labels, want at most 3", len(res.Labels))
		}
	}
}

func TestStageEmptyAndForms(t *testing.T) {
	t.Parallel()
	tr := nlptest.Transcript(nil)
	st := Stage{}
	if err := st.Apply(context.Background(), nlptest.Job(tr)); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(tr.IABCategoriesResult)
	if string(b) != `{"status":"success","results":[],"summary":{}}` {
		t.Errorf("empty transcript: %s", b)
	}
	st.Pending(tr)
	if b, _ := json.Marshal(tr.IABCategoriesResult); string(b) != `{}` {
		t.Errorf("pending: %s", b)
	}
	st.Unavailable(tr)
	if b, _ := json.Marshal(tr.IABCategoriesResult); string(b) != `{"status":"unavailable","results":[],"summary":{}}` {
		t.Errorf("unavailable: %s", b)
	}
	if st.Enabled(&transcribe.TranscriptParams{}) {
		t.Error("enabled without iab_categories")
	}
	if err := st.Apply(context.Background(), nil); err != nil {
		t.Errorf("nil job: %v", err)
	}
}

func TestStageCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tr := transcriptOf("The senate passed the bill.")
	err := Stage{}.Apply(ctx, nlptest.Job(tr))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

// TestWireShape decodes the result with the official Go SDK's type.
func TestWireShape(t *testing.T) {
	t.Parallel()
	tr := transcriptOf("The pitcher threw a perfect game in the ninth inning.")
	if err := (Stage{}).Apply(context.Background(), nlptest.Job(tr)); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(tr.IABCategoriesResult)
	if err != nil {
		t.Fatal(err)
	}
	var got aai.TopicDetectionModelResult
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Status != "success" || len(got.Results) != 1 || len(got.Results[0].Labels) == 0 {
		t.Fatalf("SDK decoded %+v from %s", got, b)
	}
	r := got.Results[0]
	if r.Text == nil || *r.Text == "" || r.Timestamp.End == nil || *r.Timestamp.End <= 0 || r.Labels[0].Label == nil || *r.Labels[0].Label != "Sports>Baseball" || r.Labels[0].Relevance == nil {
		t.Errorf("SDK decoded %+v from %s", r, b)
	}
	if len(got.Summary) == 0 {
		t.Errorf("SDK decoded no summary from %s", b)
	}
}
