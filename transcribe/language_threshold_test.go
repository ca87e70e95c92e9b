package transcribe_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// TestLanguageConfidenceThresholdNeverIgnored: a language_confidence_threshold
// above 0 is applied or refused, never passed silently. An engine that
// detects with a confidence is checked against it; one that detects
// without a confidence (older whisper.cpp, an OpenAI-compatible server
// without language probabilities) fails the transcript naming the missing
// confidence; one that does not detect at all (pocketsphinx) is refused at
// submission. A threshold of 0 (the default) checks nothing. Before, both
// engines without a confidence completed with language_confidence null.
func TestLanguageConfidenceThresholdNeverIgnored(t *testing.T) {
	sure := &langRecognizer{FakeRecognizer: transcribetest.FakeRecognizer{Text: "bonjour tout le monde", Model: "sure v1"}, lang: "fr", conf: 0.8}
	unsure := &langRecognizer{FakeRecognizer: transcribetest.FakeRecognizer{Text: "bonjour tout le monde", Model: "whisper.cpp"}, lang: "fr"}
	english := &transcribetest.FakeRecognizer{Text: "hello world", Model: "pocketsphinx en-us"}
	e := newEnv(t, func(c *transcribe.Config) {
		c.Engines = []transcribe.Engine{{Name: "pocketsphinx", Recognizer: english}, {Name: "sure", Recognizer: sure}, {Name: "unsure", Recognizer: unsure}}
	})
	ctx := context.Background()
	run := func(engine string, th *float64) (*transcribe.Transcript, error) {
		t.Helper()
		tr, err := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: e.upload(t, "p", media(1, 2)), SpeechModel: transcribe.Ptr(engine),
			LanguageDetection: transcribe.Ptr(true), LanguageConfidenceThreshold: th})
		if err != nil {
			return nil, err
		}
		return e.wait(t, "p", tr.ID), nil
	}
	for _, c := range []struct {
		engine string
		th     *float64
		status transcribe.Status
		conf   *float64 // language_confidence when completed
		reason string   // in the error when failed
	}{
		{"sure", transcribe.Ptr(0.5), transcribe.StatusCompleted, transcribe.Ptr(0.8), ""},
		{"sure", transcribe.Ptr(0.9), transcribe.StatusError, nil, "the detected language fr has confidence 0.80, below language_confidence_threshold 0.90"},
		{"unsure", transcribe.Ptr(0.5), transcribe.StatusError, nil, "language_confidence_threshold 0.50 cannot be applied: the speech engine whisper.cpp reported the language fr without a confidence"},
		{"unsure", nil, transcribe.StatusCompleted, nil, ""},
		{"unsure", transcribe.Ptr(0.0), transcribe.StatusCompleted, nil, ""},
		{"pocketsphinx", nil, transcribe.StatusCompleted, nil, ""},
		{"pocketsphinx", transcribe.Ptr(0.0), transcribe.StatusCompleted, nil, ""},
	} {
		tr, err := run(c.engine, c.th)
		if err != nil {
			t.Fatalf("%s %v: %v", c.engine, c.th, err)
		}
		switch {
		case tr.Status != c.status:
			t.Errorf("%s threshold %v: %s (%v), want %s", c.engine, fmtp(c.th), tr.Status, tr.Error, c.status)
		case c.status == transcribe.StatusError && !strings.Contains(*tr.Error, c.reason):
			t.Errorf("%s threshold %v: error %q, want %q", c.engine, fmtp(c.th), *tr.Error, c.reason)
		case c.status == transcribe.StatusCompleted && (tr.LanguageConfidence == nil) != (c.conf == nil),
			c.conf != nil && *tr.LanguageConfidence != *c.conf:
			t.Errorf("%s threshold %v: language_confidence %v, want %v", c.engine, fmtp(c.th), tr.LanguageConfidence, c.conf)
		}
	}
	// An engine that does not detect: refused before any work.
	_, err := run("pocketsphinx", transcribe.Ptr(0.5))
	var pe *transcribe.ParamError
	if !errors.As(err, &pe) || pe.Field != "language_confidence_threshold" || !strings.Contains(pe.Reason, `engine "pocketsphinx" does not detect languages (it transcribes en)`) ||
		!strings.Contains(pe.Reason, `"sure", "unsure"`) {
		t.Errorf("non-detecting engine: %v", err)
	}
	if english.Calls() != 2 {
		t.Errorf("pocketsphinx ran %d times, want 2 (the refused request never ran)", english.Calls())
	}
}

func fmtp(f *float64) string {
	if f == nil {
		return "unset"
	}
	return strconv.FormatFloat(*f, 'f', -1, 64)
}
