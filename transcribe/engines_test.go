package transcribe_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// langRecognizer is a fake engine that reports a detected language.
type langRecognizer struct {
	transcribetest.FakeRecognizer
	lang string
	conf float64
	file atomic.Int32 // RecognizeFile calls
}

func (l *langRecognizer) Recognize(ctx context.Context, a []int16, o transcribe.RecognizeOptions) (*transcribe.Recognition, error) {
	r, err := l.FakeRecognizer.Recognize(ctx, a, o)
	if err == nil && o.LanguageCode == "" {
		r.Language, r.LanguageConfidence = l.lang, l.conf
	}
	return r, err
}

func (l *langRecognizer) Features() transcribe.RecognizerFeatures {
	return transcribe.RecognizerFeatures{SampleRate: 16000, WordTimestamps: true, Languages: []string{"en", "de", "fr"}, LanguageDetection: true, Prompt: true}
}

// fileRecognizer takes raw files (rawDecoder's format "raw").
type fileRecognizer struct{ langRecognizer }

func (f *fileRecognizer) AcceptsFile(format string) bool { return format == "raw" }
func (f *fileRecognizer) RecognizeFile(ctx context.Context, path string, o transcribe.RecognizeOptions) (*transcribe.Recognition, error) {
	f.file.Add(1)
	return &transcribe.Recognition{Words: []transcribe.Word{{Text: "from", Start: 0, End: 100, Confidence: 1}, {Text: "file", Start: 100, End: 200, Confidence: 1}}, Model: "file-engine"}, nil
}

func twoEngines(c *transcribe.Config) (*langRecognizer, *langRecognizer) {
	a := &langRecognizer{FakeRecognizer: transcribetest.FakeRecognizer{Text: "hello from a", Model: "engine-a v1"}}
	b := &langRecognizer{FakeRecognizer: transcribetest.FakeRecognizer{Text: "hallo von b", Model: "engine-b v2"}, lang: "de", conf: 0.93}
	c.Engines = []transcribe.Engine{
		{Name: "pocketsphinx", Aliases: []string{"nano"}, Recognizer: a},
		{Name: "whisper", Aliases: []string{"best"}, Recognizer: b},
	}
	return a, b
}

// TestEnginesByName: speech_model (and speech_models) route between two
// configured engines; the effective model is echoed and the engine's own
// model name is speech_model_used; unknown models and languages an
// engine cannot do are 400s naming the alternatives.
func TestEnginesByName(t *testing.T) {
	e := newEnv(t, func(c *transcribe.Config) { twoEngines(c) })
	ctx := context.Background()
	for _, c := range []struct {
		params          transcribe.TranscriptParams
		echo, used, txt string
	}{
		{transcribe.TranscriptParams{}, "universal", "engine-a v1", "hello"}, // the API's default model name, not the engine's
		{transcribe.TranscriptParams{SpeechModel: transcribe.Ptr("whisper")}, "whisper", "engine-b v2", "hallo"},
		{transcribe.TranscriptParams{SpeechModel: transcribe.Ptr("best")}, "best", "engine-b v2", "hallo"},
		{transcribe.TranscriptParams{SpeechModel: transcribe.Ptr("nano")}, "nano", "engine-a v1", "hello"},
		{transcribe.TranscriptParams{SpeechModel: transcribe.Ptr("universal")}, "universal", "engine-a v1", "hello"}, // unclaimed API name: the default
		{transcribe.TranscriptParams{SpeechModels: []string{"nope", "whisper"}}, "whisper", "engine-b v2", "hallo"},
		{transcribe.TranscriptParams{SpeechModels: []string{"nope", "best"}}, "best", "engine-b v2", "hallo"},
	} {
		p := c.params
		p.AudioURL = e.upload(t, "p", media(1, 2))
		tr, err := e.submit(ctx, "p", p)
		if err != nil {
			t.Fatalf("%+v: %v", c.params, err)
		}
		if tr.SpeechModel == nil || *tr.SpeechModel != c.echo {
			t.Errorf("%+v: speech_model echoed %v, want %q", c.params, tr.SpeechModel, c.echo)
		}
		done := e.wait(t, "p", tr.ID)
		if done.Status != transcribe.StatusCompleted || done.SpeechModelUsed == nil || *done.SpeechModelUsed != c.used || !strings.HasPrefix(*done.Text, c.txt) {
			t.Errorf("speech_model %v / %v: %s, used %q, text %q", c.params.SpeechModel, c.params.SpeechModels, done.Status, deref(done.SpeechModelUsed), deref(done.Text))
		}
	}
	var pe *transcribe.ParamError
	_, err := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: "https://media.test/a.wav", SpeechModel: transcribe.Ptr("huge")})
	if !errors.As(err, &pe) || pe.Field != "speech_model" || !strings.Contains(pe.Reason, `"pocketsphinx", "whisper"`) {
		t.Errorf("unknown model: %v", err)
	}
	_, err = e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: "https://media.test/a.wav", SpeechModels: []string{"x", "y"}})
	if !errors.As(err, &pe) || pe.Field != "speech_models" {
		t.Errorf("no known model in speech_models: %v", err)
	}
	_, err = e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: "https://media.test/a.wav", LanguageCode: transcribe.Ptr("ja")})
	if !errors.As(err, &pe) || pe.Field != "language_code" || !strings.Contains(pe.Reason, "en, de, fr") {
		t.Errorf("unsupported language: %v", err)
	}
	if _, err := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: "https://media.test/a.wav", LanguageCode: transcribe.Ptr("en_us")}); err != nil {
		t.Errorf("en_us on an English engine: %v", err)
	}
}

// TestLanguageDetection: the engine's detected language and confidence
// become language_code and language_confidence, with the spec's threshold,
// expected languages and localization rules.
func TestLanguageDetection(t *testing.T) {
	e := newEnv(t, func(c *transcribe.Config) { twoEngines(c) })
	ctx := context.Background()
	run := func(p transcribe.TranscriptParams) *transcribe.Transcript {
		t.Helper()
		p.AudioURL = e.upload(t, "p", media(1, 2))
		p.SpeechModel = transcribe.Ptr("whisper")
		tr, err := e.submit(ctx, "p", p)
		if err != nil {
			t.Fatal(err)
		}
		return e.wait(t, "p", tr.ID)
	}
	tr := run(transcribe.TranscriptParams{})
	if tr.LanguageCode == nil || *tr.LanguageCode != "de" || tr.LanguageConfidence == nil || *tr.LanguageConfidence != 0.93 {
		t.Errorf("detected: %v %v", tr.LanguageCode, tr.LanguageConfidence)
	}
	tr = run(transcribe.TranscriptParams{LanguageConfidenceThreshold: transcribe.Ptr(0.95)})
	if tr.Status != transcribe.StatusError || !strings.Contains(*tr.Error, "below language_confidence_threshold") {
		t.Errorf("threshold: %s %v", tr.Status, tr.Error)
	}
	tr = run(transcribe.TranscriptParams{LanguageDetectionOptions: &transcribe.LanguageDetectionOptions{ExpectedLanguages: []string{"en", "fr"}, FallbackLanguage: transcribe.Ptr("fr")}})
	if *tr.LanguageCode != "fr" || tr.Metadata == nil || len(tr.Metadata.Warnings) == 0 {
		t.Errorf("fallback: %v %+v", *tr.LanguageCode, tr.Metadata)
	}
	tr = run(transcribe.TranscriptParams{LanguageCode: transcribe.Ptr("de"), LanguageDetection: transcribe.Ptr(false)})
	if *tr.LanguageCode != "de" || tr.LanguageConfidence != nil {
		t.Errorf("given language: %v %v", *tr.LanguageCode, tr.LanguageConfidence)
	}
	// An engine without detection reports its language, no confidence.
	tr, _ = e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: e.upload(t, "p", media(1, 2)),
		LanguageDetectionOptions: &transcribe.LanguageDetectionOptions{Localization: []string{"en_uk"}}})
	tr = e.wait(t, "p", tr.ID)
	if *tr.LanguageCode != "en_uk" || tr.LanguageConfidence != nil {
		t.Errorf("localized default engine: %v %v", *tr.LanguageCode, tr.LanguageConfidence)
	}
}

// TestNoSpeechFallback: silent audio with on_no_speech_detected
// "fallback" completes with empty text, the fallback language and a
// warning; with "error" (the default) it fails.
func TestNoSpeechFallback(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	tr, err := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: e.upload(t, "p", media(1, 1, true)),
		LanguageDetectionOptions: &transcribe.LanguageDetectionOptions{OnNoSpeechDetected: transcribe.Ptr("fallback"), FallbackLanguage: transcribe.Ptr("es")}})
	if err != nil {
		t.Fatal(err)
	}
	done := e.wait(t, "p", tr.ID)
	if done.Status != transcribe.StatusCompleted || *done.Text != "" || *done.LanguageCode != "es" || done.Metadata == nil || len(done.Metadata.Warnings) != 1 || len(done.Words) != 0 {
		t.Fatalf("fallback: %s text %v lang %v meta %+v", done.Status, done.Text, done.LanguageCode, done.Metadata)
	}
	tr, _ = e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: e.upload(t, "p", media(1, 1, true))})
	if done := e.wait(t, "p", tr.ID); done.Status != transcribe.StatusError || !strings.Contains(*done.Error, "no speech") {
		t.Fatalf("error policy: %s %v", done.Status, done.Error)
	}
}

// TestFileRecognizer: an engine that takes the file gets it when nothing
// is cut from the media; trimmed or multichannel jobs send decoded audio.
func TestFileRecognizer(t *testing.T) {
	fr := &fileRecognizer{langRecognizer{FakeRecognizer: transcribetest.FakeRecognizer{Text: "decoded words"}}}
	e := newEnv(t, func(c *transcribe.Config) { c.Engines = []transcribe.Engine{{Name: "remote", Recognizer: fr}} })
	ctx := context.Background()
	tr, _ := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: e.upload(t, "p", media(1, 2))})
	if done := e.wait(t, "p", tr.ID); *done.Text != "from file" || fr.file.Load() != 1 {
		t.Errorf("whole file: %q, %d file calls", *done.Text, fr.file.Load())
	}
	tr, _ = e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: e.upload(t, "p", media(1, 2)), AudioStartFrom: transcribe.Ptr(int64(500))})
	if done := e.wait(t, "p", tr.ID); !strings.HasPrefix(*done.Text, "decoded") || fr.file.Load() != 1 {
		t.Errorf("trimmed: %q, %d file calls", *done.Text, fr.file.Load())
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// TestAudioDurationWholeSeconds: audio_duration is an integer number of
// seconds on the wire (rounded to nearest, at least 1), as the real API
// sends it.
func TestAudioDurationWholeSeconds(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for _, c := range []struct {
		secs float64
		want float64
	}{{2.4, 2}, {2.6, 3}, {0.3, 1}} {
		tr, _ := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: e.upload(t, "p", media(1, c.secs))})
		done := e.wait(t, "p", tr.ID)
		if done.AudioDuration == nil || *done.AudioDuration != c.want {
			t.Errorf("%.1f s: audio_duration %v, want %v", c.secs, done.AudioDuration, c.want)
		}
		b, _ := json.Marshal(done)
		if !strings.Contains(string(b), fmt.Sprintf(`"audio_duration":%d,`, int(c.want))) {
			t.Errorf("%.1f s: not an integer on the wire", c.secs)
		}
	}
}
