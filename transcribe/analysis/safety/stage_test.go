package safety

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/export"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp/nlptest"
)

func TestLexicon(t *testing.T) {
	t.Parallel()
	idx, err := parseLexicon(lexiconText)
	if err != nil {
		t.Fatal(err)
	}
	special := []string{"news", "newsneg", "hate_target", "hate_derog", "intense", "educational", "safe"}
	perLabel := map[string]int{}
	for _, ts := range idx.byFirst {
		for _, tm := range ts {
			if !slices.Contains(Labels(), tm.label) && !slices.Contains(special, tm.label) {
				t.Errorf("term %q has unknown label %q", tm.text, tm.label)
			}
			perLabel[tm.label]++
		}
	}
	for _, l := range Labels() {
		// negative_news and hate_speech are mostly derived; profanity
		// mostly comes from go-away's list.
		if perLabel[l] == 0 && l != NegativeNews {
			t.Errorf("no lexicon terms for %s", l)
		}
	}
	for _, bad := range []string{"accidents x 0.5 crash", "accidents 1", "accidents 1 2 crash", "accidents -1 0 crash", "accidents 1 0 !only"} {
		if _, err := parseLexicon(bad); err == nil {
			t.Errorf("parseLexicon(%q) accepted", bad)
		}
	}
}

// transcriptOf builds a transcript from paragraphs separated by blank
// lines; every word of paragraph i is spoken by speaker letter i.
func transcriptOf(text string) *transcribe.Transcript {
	ws := nlptest.Words(text)
	tr := nlptest.Transcript(ws)
	on := true
	tr.ContentSafety = &on
	tr.Normalize()
	return tr
}

func TestStageResult(t *testing.T) {
	t.Parallel()
	tr := transcriptOf("Good morning, everyone. Let's look at the agenda.\n\n" +
		"Police said a gunman opened fire at the mall with a rifle. Three people were killed.\n\n" +
		"Revenue grew twelve percent and the dividend was raised. Thanks for listening.")
	st := Stages(Options{})[0]
	if !st.Enabled(&tr.TranscriptParams) || st.Name() != "content_safety" {
		t.Fatal("stage not enabled by content_safety")
	}
	if err := st.Apply(context.Background(), nlptest.Job(tr)); err != nil {
		t.Fatal(err)
	}
	r := tr.ContentSafetyLabels
	if r.Status != "success" || len(r.Results) != 2 {
		b, _ := json.MarshalIndent(r, "", " ")
		t.Fatalf("want 2 flagged segments, got %s", b)
	}
	sentences := export.Sentences(tr).Sentences
	for _, res := range r.Results {
		// sentences_idx_start/_end are inclusive indexes of the /sentences
		// endpoint; text and times are those sentences'.
		first, last := sentences[res.SentencesIdxStart], sentences[res.SentencesIdxEnd]
		if res.Timestamp.Start != first.Start || res.Timestamp.End != last.End {
			t.Errorf("timestamp %+v, sentences %d-%d span %d-%d", res.Timestamp, res.SentencesIdxStart, res.SentencesIdxEnd, first.Start, last.End)
		}
		var texts []string
		for i := res.SentencesIdxStart; i <= res.SentencesIdxEnd; i++ {
			texts = append(texts, sentences[i].Text)
		}
		if res.Text != strings.Join(texts, " ") {
			t.Errorf("text %q, sentences %q", res.Text, texts)
		}
		for i, l := range res.Labels {
			if l.Confidence < 0.5 || l.Confidence > 1 {
				t.Errorf("label %s confidence %v below the default threshold", l.Label, l.Confidence)
			}
			if i > 0 && l.Confidence > res.Labels[i-1].Confidence {
				t.Errorf("labels not sorted by confidence: %+v", res.Labels)
			}
			if (l.Severity == nil) == HasSeverity(l.Label) {
				t.Errorf("label %s severity %v", l.Label, l.Severity)
			}
			if l.Severity != nil && (*l.Severity < 0 || *l.Severity > 1) {
				t.Errorf("label %s severity %v", l.Label, *l.Severity)
			}
		}
	}
	labels := func(i int) []string {
		var out []string
		for _, l := range r.Results[i].Labels {
			out = append(out, l.Label)
		}
		return out
	}
	for _, want := range []string{CrimeViolence, Weapons, NegativeNews} {
		if !slices.Contains(labels(0), want) {
			t.Errorf("segment 0 labels %v, want %s", labels(0), want)
		}
	}
	if !slices.Contains(labels(1), Financials) || r.Results[1].SentencesIdxStart != 4 || r.Results[1].SentencesIdxEnd != 5 {
		t.Errorf("segment 1: %+v", r.Results[1])
	}
	// The violent segment is graver than an ordinary mention.
	for _, l := range r.Results[0].Labels {
		if l.Label == CrimeViolence && *l.Severity < HighSeverityFrom {
			t.Errorf("crime_violence severity %v, want high", *l.Severity)
		}
	}
	// Summaries: every reported label, confidences in [0, 1], severity
	// shares adding up to 1 and only for labels with severity.
	for _, res := range r.Results {
		for _, l := range res.Labels {
			if c, ok := r.Summary[l.Label]; !ok || c < l.Confidence || c > 1 {
				t.Errorf("summary[%s] = %v, segment confidence %v", l.Label, c, l.Confidence)
			}
			s, ok := r.SeverityScoreSummary[l.Label]
			if ok != HasSeverity(l.Label) {
				t.Errorf("severity_score_summary has %s: %v", l.Label, ok)
			}
			if ok && math.Abs(s.Low+s.Medium+s.High-1) > 1e-9 {
				t.Errorf("severity shares of %s: %+v", l.Label, s)
			}
		}
	}
	if s := r.SeverityScoreSummary[CrimeViolence]; s.High != 1 {
		t.Errorf("crime_violence severity summary %+v", s)
	}
}

func TestThreshold(t *testing.T) {
	t.Parallel()
	text := "We had a few beers at the pub after work."
	count := func(c int64) int {
		tr := transcriptOf(text)
		tr.ContentSafetyConfidence = &c
		if err := (Stage{}).Apply(context.Background(), nlptest.Job(tr)); err != nil {
			t.Fatal(err)
		}
		return len(tr.ContentSafetyLabels.Results)
	}
	if count(25) != 1 || count(50) != 1 || count(100) != 0 {
		t.Errorf("content_safety_confidence 25, 50, 100 gave %d, %d, %d segments", count(25), count(50), count(100))
	}
	// Without content_safety_confidence the default 50 applies.
	tr := transcriptOf(text)
	tr.ContentSafetyConfidence = nil
	if err := (Stage{}).Apply(context.Background(), nlptest.Job(tr)); err != nil || len(tr.ContentSafetyLabels.Results) != 1 {
		t.Errorf("default threshold: %v %+v", err, tr.ContentSafetyLabels)
	}
	if _, err := (Stage{}).Analyze(context.Background(), tr, 1.5); !errors.Is(err, ErrOptions) {
		t.Errorf("threshold 1.5: %v", err)
	}
}

func TestContextRules(t *testing.T) {
	t.Parallel()
	score := func(text, label string) Score {
		for _, s := range Detect(nlp.Tokens(nlptest.Words(text))) {
			if s.Label == label {
				return s
			}
		}
		return Score{Label: label}
	}
	// Negation weakens a mention and its severity.
	pos, neg := score("The driver was killed in the crash.", Accidents), score("Nobody was hurt and no crash happened.", Accidents)
	if !(neg.Confidence < pos.Confidence) {
		t.Errorf("negated %+v, plain %+v", neg, pos)
	}
	// Idioms and exclusions.
	for _, c := range []struct{ text, label string }{
		{"She really killed it at the talent show.", CrimeViolence},
		{"Get your flu shot before winter.", CrimeViolence},
		{"The app crashed again after the update to the server.", Accidents},
		{"Slice the bread with a serrated knife in the kitchen.", Weapons},
		{"Add a spoon of wine vinegar to the dressing.", Alcohol},
		{"I'm dying to see the new exhibition.", HealthIssues},
	} {
		if s := score(c.text, c.label); s.Confidence >= 0.5 {
			t.Errorf("%q: %+v", c.text, s)
		}
	}
	// News framing adds negative_news to negative events only.
	if s := score("Officials said the hurricane destroyed two hundred homes.", NegativeNews); s.Confidence < 0.5 {
		t.Errorf("news report: %+v", s)
	}
	if s := score("Officials said the new park opens in June.", NegativeNews); s.Confidence > 0 {
		t.Errorf("neutral news: %+v", s)
	}
	// An educational framing lowers severity.
	plain, edu := score("He drinks vodka every night.", Alcohol), score("The lecture covers the chemistry of vodka and other alcohol research.", Alcohol)
	if !(edu.Severity < plain.Severity) {
		t.Errorf("educational %+v, plain %+v", edu, plain)
	}
	// Words masked by filter_profanity still count as profanity; redacted
	// words count for nothing.
	if s := score("What the f*** is this s***?", Profanity); s.Confidence < 0.5 {
		t.Errorf("masked profanity: %+v", s)
	}
	if got := Detect(nlp.Tokens(nlptest.Words("##### [PERSON_NAME] #### ##"))); len(got) != 0 {
		t.Errorf("redacted words: %+v", got)
	}
	// Hate speech needs a group and a hostile claim about it.
	if s := score("Refugees deserve a fair hearing.", HateSpeech); s.Confidence > 0 {
		t.Errorf("group alone: %+v", s)
	}
	if s := score("Refugees are parasites and should be deported.", HateSpeech); s.Confidence < 0.5 {
		t.Errorf("group and derogation: %+v", s)
	}
}

func TestStageForms(t *testing.T) {
	t.Parallel()
	st := Stage{}
	tr := &transcribe.Transcript{}
	st.Pending(tr)
	if b, _ := json.Marshal(tr.ContentSafetyLabels); string(b) != "{}" {
		t.Errorf("pending form %s", b)
	}
	st.Unavailable(tr)
	if b, _ := json.Marshal(tr.ContentSafetyLabels); string(b) != `{"status":"unavailable","results":[],"summary":{},"severity_score_summary":{}}` {
		t.Errorf("unavailable form %s", b)
	}
	// An empty transcript is a success with empty collections.
	tr = transcriptOf("")
	if err := st.Apply(context.Background(), nlptest.Job(tr)); err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(tr.ContentSafetyLabels); string(b) != `{"status":"success","results":[],"summary":{},"severity_score_summary":{}}` {
		t.Errorf("empty transcript %s", b)
	}
	if err := st.Apply(context.Background(), nil); err != nil {
		t.Error(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := st.Apply(ctx, nlptest.Job(transcriptOf("A tornado hit the town."))); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if err := (Stage{Options: Options{MaxSegmentWords: -1}}).Apply(context.Background(), nlptest.Job(tr)); !errors.Is(err, ErrOptions) {
		t.Errorf("bad options: %v", err)
	}
	off := false
	if st.Enabled(&transcribe.TranscriptParams{ContentSafety: &off}) || st.Enabled(&transcribe.TranscriptParams{}) {
		t.Error("enabled without content_safety")
	}
}

func TestSegments(t *testing.T) {
	t.Parallel()
	// Long paragraphs are cut at MaxSegmentWords; segments never cross
	// paragraphs and cover every sentence once, in order.
	text := strings.Repeat("The storm flooded the valley again today. ", 30) + "\n\n" + "Cigarettes are bad for you."
	tr := transcriptOf(text)
	ss, ps := nlp.Sentences(tr), nlp.Paragraphs(tr)
	segs := segments(ss, ps, Options{MaxSegmentWords: 20}.withDefaults())
	next := 0
	for _, sg := range segs {
		if sg[0] != next || sg[1] < sg[0] {
			t.Fatalf("segments %v", segs)
		}
		words := ss[sg[1]].To - ss[sg[0]].From
		if words > 20 {
			t.Errorf("segment %v has %d words", sg, words)
		}
		next = sg[1] + 1
	}
	if next != len(ss) || segs[len(segs)-1] != [2]int{len(ss) - 1, len(ss) - 1} {
		t.Errorf("segments %v over %d sentences", segs, len(ss))
	}
	// The default caps a segment at 30 s.
	segs = segments(ss, ps, Options{}.withDefaults())
	for _, sg := range segs {
		if d := ss[sg[1]].End - ss[sg[0]].Start; d > DefaultMaxSegmentMillis {
			t.Errorf("segment %v lasts %d ms", sg, d)
		}
	}
}
