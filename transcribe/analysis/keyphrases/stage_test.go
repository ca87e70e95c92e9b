package keyphrases

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp/nlptest"
)

const sample = `Smoke from wildfires in Canada is triggering air quality alerts across the United States. ` +
	`The air quality index in New York passed two hundred on Tuesday. Doctors say smoke particles reach deep into the lungs, ` +
	`so people with asthma should stay inside.

Officials expect the air quality alerts to last until the wind changes. Wildfire smoke from Canada has reached Europe before.`

func TestStage(t *testing.T) {
	t.Parallel()
	tr := nlptest.Transcript(nlptest.Words(sample))
	on := true
	tr.AutoHighlights = &on
	st := Stages(Options{})[0]
	if !st.Enabled(&tr.TranscriptParams) || st.Name() != "auto_highlights" {
		t.Fatal("stage not enabled by auto_highlights")
	}
	if err := st.Apply(context.Background(), nlptest.Job(tr)); err != nil {
		t.Fatal(err)
	}
	r := tr.AutoHighlightsResult
	if r.Status != "success" || len(r.Results) == 0 || len(r.Results) > DefaultMaxResults {
		t.Fatalf("result %+v", r)
	}
	texts := map[string]transcribe.AutoHighlight{}
	for i, h := range r.Results {
		texts[h.Text] = h
		if h.Rank <= 0 || h.Rank > 1 || (i > 0 && h.Rank > r.Results[i-1].Rank) {
			t.Errorf("rank %v at %d", h.Rank, i)
		}
		if int(h.Count) != len(h.Timestamps) || h.Count == 0 {
			t.Errorf("%q: count %d, %d timestamps", h.Text, h.Count, len(h.Timestamps))
		}
		// Every timestamp spans words whose text is the phrase.
		for _, ts := range h.Timestamps {
			var in []string
			for _, w := range tr.Words {
				if w.Start >= ts.Start && w.End <= ts.End {
					in = append(in, w.Text)
				}
			}
			got := strings.ToLower(strings.Join(nlptest.Fold(strings.Join(in, " ")), " "))
			want := strings.ToLower(strings.Join(nlptest.Fold(h.Text), " "))
			if !sameStems(got, want) {
				t.Errorf("%q: timestamp %+v covers %q", h.Text, ts, got)
			}
		}
	}
	if r.Results[0].Rank != 1 {
		t.Errorf("best rank %v, want 1", r.Results[0].Rank)
	}
	aq, ok := texts["air quality alerts"]
	if !ok || aq.Count != 2 {
		t.Errorf("want \"air quality alerts\" twice, got %+v", r.Results)
	}
	if _, ok := texts["Canada"]; !ok {
		t.Errorf("names keep their capital: %+v", r.Results)
	}
	for txt := range texts {
		for _, w := range strings.Fields(txt) {
			if strings.EqualFold(w, "the") || strings.EqualFold(w, "two") || strings.EqualFold(w, "tuesday") && len(strings.Fields(txt)) == 1 {
				t.Errorf("phrase %q has a stop word or is too generic", txt)
			}
		}
	}
	b, _ := json.Marshal(r.Results[0])
	for _, k := range []string{`"count"`, `"rank"`, `"text"`, `"timestamps"`, `"start"`, `"end"`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("%s missing in %s", k, b)
		}
	}
}

// sameStems compares phrases word by word, ignoring a plural s.
func sameStems(a, b string) bool {
	fa, fb := strings.Fields(a), strings.Fields(b)
	if len(fa) != len(fb) {
		return false
	}
	for i := range fa {
		if strings.TrimSuffix(fa[i], "s") != strings.TrimSuffix(fb[i], "s") {
			return false
		}
	}
	return true
}

func TestStageEdgeCases(t *testing.T) {
	t.Parallel()
	st := Stage{}
	tr := nlptest.Transcript(nil)
	if err := st.Apply(context.Background(), nlptest.Job(tr)); err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(tr.AutoHighlightsResult); string(b) != `{"status":"success","results":[]}` {
		t.Errorf("empty transcript: %s", b)
	}
	// Redacted words, numbers and punctuation never make phrases.
	tr = nlptest.Transcript(nlptest.Words("Call ##### at [PHONE_NUMBER] — 555 1234, the the the."))
	if err := st.Apply(context.Background(), nlptest.Job(tr)); err != nil {
		t.Fatal(err)
	}
	for _, h := range tr.AutoHighlightsResult.Results {
		if strings.ContainsAny(h.Text, "#[0123456789—") {
			t.Errorf("phrase %q", h.Text)
		}
	}
	st.Unavailable(tr)
	if b, _ := json.Marshal(tr.AutoHighlightsResult); string(b) != `{"status":"unavailable","results":[]}` {
		t.Errorf("unavailable: %s", b)
	}
	if err := st.Apply(context.Background(), nil); err != nil {
		t.Error(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := st.Apply(ctx, nlptest.Job(tr)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if err := (Stage{Options: Options{MaxResults: -1}}).Apply(context.Background(), nlptest.Job(tr)); !errors.Is(err, ErrOptions) {
		t.Errorf("bad options: %v", err)
	}
	if _, err := Extract(nil, Options{MaxWords: -2}); !errors.Is(err, ErrOptions) {
		t.Errorf("bad MaxWords: %v", err)
	}
	// MaxResults and MaxWords are honoured.
	res, err := Extract(nlptest.Words(sample), Options{MaxResults: 3, MaxWords: 2})
	if err != nil || len(res) != 3 {
		t.Fatalf("%v %+v", err, res)
	}
	for _, h := range res {
		if len(strings.Fields(h.Text)) > 2 {
			t.Errorf("phrase %q longer than 2 words", h.Text)
		}
	}
	off := false
	if st.Enabled(&transcribe.TranscriptParams{AutoHighlights: &off}) || st.Enabled(&transcribe.TranscriptParams{}) {
		t.Error("enabled without auto_highlights")
	}
}
