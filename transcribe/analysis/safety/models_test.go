package safety

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe/analysis/nlp"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp/nlptest"
	"github.com/earshot-dev/earshot/transcribe/analysis/safety/lr"
	"github.com/earshot-dev/earshot/transcribe/analysis/topics/nb"
)

// TestModels checks that the shipped models load and are the files whose
// checksums the training command recorded (data/*.sha256), the ones the
// figures in doc.go describe.
func TestModels(t *testing.T) {
	t.Parallel()
	m, err := learned()
	if err != nil {
		t.Fatal(err)
	}
	cs, hs := ModelChecksums()
	if got := nb.Checksum(contextFile); got != cs {
		t.Errorf("context model checksum %s, recorded %s", got, cs)
	}
	if got := lr.Checksum(hateFile); got != hs {
		t.Errorf("hate model checksum %s, recorded %s", got, hs)
	}
	if m.context.Vocabulary() < 1000 || m.hate.Features() < 500 || m.hate.Threshold <= 0 || m.hate.Threshold >= 1 {
		t.Errorf("context model %d features, hate model %d features, threshold %v", m.context.Vocabulary(), m.hate.Features(), m.hate.Threshold)
	}
	// A changed model file is refused, never used.
	bad := slices.Clone(hateFile)
	bad[len(bad)/2] ^= 1
	if _, err := loadModels(contextFile, []byte(contextSum), bad, []byte(hateSum)); err == nil {
		t.Error("a hate model that is not the recorded one loaded")
	}
	if _, err := loadModels(contextFile, []byte(contextSum), []byte("x"), []byte(lr.Checksum([]byte("x")))); !errors.Is(err, lr.ErrFormat) {
		t.Errorf("a malformed hate model: %v, want lr.ErrFormat", err)
	}
}

// TestContextGate: words that sport, arts and tech stories use
// figuratively are not read as violence or illness there, and still are
// in a story about violence or illness.
func TestContextGate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text      string
		want, not []string
	}{
		{"The striker was shot down twice by the keeper before half-time, and the league leaders held on to win the match in the second half.",
			nil, []string{CrimeViolence}},
		{"The midfielder is out for six weeks with a knee injury and will miss the cup final, the club's manager said after training.",
			nil, []string{HealthIssues}},
		{"Joss Stone and the Rolling Stones won awards at the ceremony, where the singer performed her new album.",
			nil, []string{Marijuana}},
		{"Police said a gunman shot two men outside the bank and fled with the cash; one victim died in hospital.",
			[]string{CrimeViolence}, nil},
		{"After months of fatigue and weight loss she was diagnosed with cancer and began chemotherapy at the hospital.",
			[]string{HealthIssues}, nil},
	} {
		got := labelsAt(c.text)
		for _, l := range c.want {
			if !slices.Contains(got, l) {
				t.Errorf("%q: labels %v lack %s", c.text, got, l)
			}
		}
		for _, l := range c.not {
			if slices.Contains(got, l) {
				t.Errorf("%q: labels %v have %s", c.text, got, l)
			}
		}
	}
}

// TestHateModelOnSpeech: the hate speech model, trained on tweets, flags
// a spoken slur-laden attack on a group and leaves reporting about
// groups of people alone.
func TestHateModelOnSpeech(t *testing.T) {
	t.Parallel()
	m, err := learned()
	if err != nil {
		t.Fatal(err)
	}
	news := "Officials said the number of refugees and immigrants arriving from Syria rose this year, and Muslim and Jewish leaders called for calm."
	if e, _ := m.hateEvidence(nlp.Tokens(nlptest.Words(news))); e > 0 {
		t.Errorf("news about groups of people reads as hate speech: evidence %v", e)
	}
}

// TestTrainingDataReader reads a small CSV in the Davidson format and
// refuses others.
func TestTrainingDataReader(t *testing.T) {
	t.Parallel()
	f, err := os.CreateTemp(t.TempDir(), "*.csv")
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(",count,hate_speech,offensive_language,neither,class,tweet\n10,3,0,0,3,2,\"hello   there\"\n11,3,3,0,0,0,x\n")
	f.Seek(0, 0)
	tw, err := ReadDavidson(f)
	if err != nil || len(tw) != 2 || tw[0].Text != "hello there" || tw[0].Split != "test" || tw[1].Split != "dev" || tw[1].Class != 0 {
		t.Fatalf("ReadDavidson: %+v, %v", tw, err)
	}
	if _, err := ReadDavidson(strings.NewReader("a,b\n1,2\n")); err == nil {
		t.Error("a CSV without the header was read")
	}
}
