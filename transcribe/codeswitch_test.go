package transcribe_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"slices"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// accentRecognizer detects a language per call from the audio: mostly
// loud (|sample| > 6000) is "en", mostly soft "es"; one word per second.
type accentRecognizer struct{ transcribetest.FakeRecognizer }

func (a *accentRecognizer) Recognize(ctx context.Context, audio []int16, o transcribe.RecognizeOptions) (*transcribe.Recognition, error) {
	r, err := a.FakeRecognizer.Recognize(ctx, audio, o)
	if err != nil || o.LanguageCode != "" {
		return r, err
	}
	loud := 0
	for _, v := range audio {
		if v > 6000 || v < -6000 {
			loud++
		}
	}
	r.Language, r.LanguageConfidence = "es", 0.9
	if loud*2 > len(audio) {
		r.Language = "en"
	}
	r.Words = r.Words[:0]
	for ms := int64(0); ms+1000 <= int64(len(audio))/16; ms += 1000 {
		r.Words = append(r.Words, transcribe.Word{Text: r.Language, Start: ms, End: ms + 500, Confidence: 1})
	}
	return r, nil
}

func (a *accentRecognizer) Features() transcribe.RecognizerFeatures {
	return transcribe.RecognizerFeatures{SampleRate: 16000, WordTimestamps: true, Languages: []string{"en", "es"}, LanguageDetection: true}
}

// spans builds rawDecoder media: for each span, seconds of a square wave
// of that amplitude.
func spans(parts ...[2]int) []byte {
	var buf bytes.Buffer
	buf.WriteByte(1)
	for _, p := range parts {
		for i := 0; i < p[0]*16000; i++ {
			v := int16(p[1])
			if (i/40)%2 == 0 {
				v = -v
			}
			binary.Write(&buf, binary.LittleEndian, v)
		}
	}
	return buf.Bytes()
}

// TestCodeSwitching: with code_switching, long audio is detected piece by
// piece; language_detection_results lists the languages found with the
// share of the words in each, language_codes their codes, and languages
// below code_switching_confidence_threshold are left out. Before, both
// stayed null whatever the audio.
func TestCodeSwitching(t *testing.T) {
	e := newEnv(t, func(c *transcribe.Config) {
		c.Engines = []transcribe.Engine{{Name: "whisper", Recognizer: &accentRecognizer{transcribetest.FakeRecognizer{Text: "x", Model: "accent"}}}}
	})
	ctx := context.Background()
	// 120 s English, 60 s Spanish: cut into pieces of at most 60 s.
	audio := spans([2]int{120, 8000}, [2]int{60, 3000})
	run := func(o *transcribe.LanguageDetectionOptions, codes []string) *transcribe.Transcript {
		t.Helper()
		tr, err := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: e.upload(t, "p", audio), LanguageDetection: transcribe.Ptr(true), LanguageDetectionOptions: o, LanguageCodes: codes})
		if err != nil {
			t.Fatal(err)
		}
		tr = e.wait(t, "p", tr.ID)
		if tr.Status != transcribe.StatusCompleted {
			t.Fatalf("%s: %v", tr.Status, tr.Error)
		}
		return tr
	}
	results := func(tr *transcribe.Transcript) []transcribe.CodeSwitchingLanguage {
		var r struct {
			L []transcribe.CodeSwitchingLanguage `json:"code_switching_languages"`
		}
		if err := json.Unmarshal(tr.LanguageDetectionResults, &r); err != nil {
			t.Fatalf("language_detection_results %s: %v", tr.LanguageDetectionResults, err)
		}
		return r.L
	}
	on := func(th *float64) *transcribe.LanguageDetectionOptions {
		return &transcribe.LanguageDetectionOptions{CodeSwitching: transcribe.Ptr(true), CodeSwitchingConfidenceThreshold: th}
	}
	tr := run(on(nil), nil)
	got := results(tr)
	if len(got) != 2 || got[0].LanguageCode != "en" || got[1].LanguageCode != "es" || got[0].Confidence < 0.6 || got[0].Confidence > 0.72 ||
		got[0].Confidence+got[1].Confidence < 0.999 || !slices.Equal(tr.LanguageCodes, []string{"en", "es"}) {
		t.Errorf("default threshold 0.3: %+v, language_codes %v", got, tr.LanguageCodes)
	}
	tr = run(on(transcribe.Ptr(0.5)), nil)
	if got := results(tr); len(got) != 1 || got[0].LanguageCode != "en" || !slices.Equal(tr.LanguageCodes, []string{"en"}) {
		t.Errorf("threshold 0.5: %+v, language_codes %v", got, tr.LanguageCodes)
	}
	tr = run(on(transcribe.Ptr(0.9)), nil)
	if got := results(tr); len(got) != 1 || got[0].LanguageCode != "en" {
		t.Errorf("threshold 0.9 (all below): %+v, want the highest only", got)
	}
	tr = run(on(nil), []string{"en", "fr"})
	if len(results(tr)) != 2 || !slices.Equal(tr.LanguageCodes, []string{"en", "fr"}) {
		t.Errorf("given language_codes: %s, %v (echoed as given)", tr.LanguageDetectionResults, tr.LanguageCodes)
	}
	tr = run(nil, nil)
	if (len(tr.LanguageDetectionResults) != 0 && string(tr.LanguageDetectionResults) != "null") || len(tr.LanguageCodes) != 0 {
		t.Errorf("without code_switching: %s %v", tr.LanguageDetectionResults, tr.LanguageCodes)
	}
}
