package openai

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/adapters/openai/enginetest"
	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

const foxText = "the quick brown fox jumps over the lazy dog"

// longText is what testdata's long.wav says (flite voice rms).
const longText = "earshot transcribes meetings on your own machines. the budget for next year is three point five million dollars, and the team meets at ten thirty."

func wav(t testing.TB, path string) []int16 {
	t.Helper()
	s, rate, err := transcribetest.ReadWAV16(path)
	if err != nil {
		t.Fatal(err)
	}
	if rate != SampleRate {
		t.Fatalf("%s: %d Hz", path, rate)
	}
	return s
}

func speech(voice string) transcribetest.RecognizerSpeech {
	return func(t testing.TB, text string) []int16 { return wav(t, testaudio.Speech(t, voice, text)) }
}

// recordedAudio rebuilds the audio files named in testdata's exchanges
// (see testdata/README.md): the same flite voices and sox conversion.
func recordedAudio(t testing.TB, name string) []int16 {
	t.Helper()
	fox := func() []int16 { return speech("slt")(t, foxText) }
	long := func() []int16 { return speech("rms")(t, longText) }
	sil := make([]int16, 2*SampleRate)
	switch name {
	case "fox.wav":
		return fox()
	case "long.wav":
		return long()
	case "padded.wav":
		return slices.Concat(sil, fox(), sil)
	case "forty.wav":
		f, l := fox(), long()
		return slices.Concat(l, sil, f, sil, l, sil, l, sil, f, sil, l)
	case "zeros.wav":
		return make([]int16, 3*SampleRate)
	}
	t.Fatalf("no audio %q", name)
	return nil
}

// noSleep records the waits instead of sleeping.
type noSleep struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (n *noSleep) sleep(ctx context.Context, d time.Duration) error {
	n.mu.Lock()
	n.waits = append(n.waits, d)
	n.mu.Unlock()
	return ctx.Err()
}

func (n *noSleep) got() []time.Duration {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.waits)
}

func newRec(t testing.TB, cfg Config) *Recognizer {
	t.Helper()
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func texts(ws []transcribe.Word) string {
	s := make([]string, len(ws))
	for i, w := range ws {
		s[i] = w.Text
	}
	return strings.Join(s, " ")
}

// TestConformance runs the recognizer contract's suite against test
// engines in the shape of each server (enginetest): real speech, recognized
// by pocketsphinx behind a real HTTP server that answers as whisper.cpp,
// the OpenAI API, speaches, LocalAI, vLLM or FunASR would.
func TestConformance(t *testing.T) {
	t.Parallel()
	for _, shape := range enginetest.Shapes() {
		t.Run(string(shape), func(t *testing.T) {
			t.Parallel()
			e := enginetest.NewEngine(t, shape, "/v1/audio/transcriptions")
			r := newRec(t, Config{BaseURL: e.URL + "/v1"})
			transcribetest.RunRecognizerTests(t, r, speech("slt"))
		})
	}
}

// TestShapesRoundTrip: whatever the shape, the adapter hands back exactly
// the words the engine recognized, at the times it gave (whisper.cpp keeps
// centiseconds; servers without word times get words spread within their
// segment).
func TestShapesRoundTrip(t *testing.T) {
	t.Parallel()
	audio := slices.Concat(make([]int16, SampleRate), speech("slt")(t, foxText), make([]int16, SampleRate/2), speech("rms")(t, "please send your comments before the end of the week"))
	ref := enginetest.NewEngine(t, enginetest.OpenAI, "/v1/audio/transcriptions")
	want, err := newRec(t, Config{BaseURL: ref.URL + "/v1"}).Recognize(context.Background(), audio, transcribe.RecognizeOptions{LanguageCode: "en"})
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Words) < 12 {
		t.Fatalf("reference engine gave %q", texts(want.Words))
	}
	for _, shape := range enginetest.Shapes() {
		t.Run(string(shape), func(t *testing.T) {
			t.Parallel()
			e := enginetest.NewEngine(t, shape, "/v1/audio/transcriptions")
			got, err := newRec(t, Config{BaseURL: e.URL + "/v1"}).Recognize(context.Background(), audio, transcribe.RecognizeOptions{LanguageCode: "en"})
			if err != nil {
				t.Fatal(err)
			}
			if texts(got.Words) != texts(want.Words) {
				t.Fatalf("got %q\nwant %q", texts(got.Words), texts(want.Words))
			}
			if got.Language != "en" || got.Model != DefaultModel {
				t.Errorf("language %q model %q", got.Language, got.Model)
			}
			wordTimes := shape != enginetest.VLLM && shape != enginetest.LocalAIWhisper
			for i, w := range got.Words {
				tol := int64(10)
				if !wordTimes {
					tol = 2000 // within the segment
				}
				if d := w.Start - want.Words[i].Start; d > tol || d < -tol {
					t.Errorf("word %d %q starts at %d, engine said %d", i, w.Text, w.Start, want.Words[i].Start)
				}
			}
		})
	}
}

// TestShapeStructure checks that each test engine answers with exactly the
// JSON structure of the recorded (whisper.cpp) or source-derived answer of
// the server it imitates.
func TestShapeStructure(t *testing.T) {
	t.Parallel()
	words := []transcribe.Word{{Text: "hello", Start: 100, End: 400, Confidence: 0.9}, {Text: "world", Start: 450, End: 900, Confidence: 0.8}}
	withLang := url.Values{"language": {"en"}}
	for _, c := range []struct {
		shape enginetest.Shape
		file  string
		form  url.Values
	}{
		{enginetest.WhisperCPP, "whispercpp_en.json", withLang},
		{enginetest.OpenAI, "openai_verbose.json", withLang},
		{enginetest.Speaches, "speaches_verbose.json", withLang},
		{enginetest.LocalAICrispASR, "localai_crispasr.json", withLang},
		{enginetest.LocalAIWhisper, "localai_whisper.json", url.Values{}},
		{enginetest.VLLM, "vllm_verbose.json", withLang},
		{enginetest.FunASR, "funasr_verbose.json", withLang},
	} {
		ex := enginetest.LoadExchange(t, c.file)
		want, err := enginetest.Structure([]byte(ex.Body))
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		b, _ := json.Marshal(enginetest.Render(c.shape, words, 1.5, c.form))
		got, _ := enginetest.Structure(b)
		if !slices.Equal(got, want) {
			t.Errorf("%s engine structure differs from %s:\n got %q\nwant %q", c.shape, c.file, got, want)
		}
	}
}

// TestRecordedExchanges replays real answers of whisper.cpp's server
// (examples/server/server.cpp, started with --inference-path
// /v1/audio/transcriptions; recorded as testdata/README.md says) and the
// source-derived answers of the other servers, and checks that the
// adapter sent the recorded fields and read the answers right.
func TestRecordedExchanges(t *testing.T) {
	t.Parallel()
	cases := []struct {
		file   string
		audio  string
		opts   transcribe.RecognizeOptions
		words  string // exact words; "" to skip
		nwords int    // word count when words is ""
		lang   string
		conf   float64 // LanguageConfidence, -1 to skip
	}{
		{"whispercpp_en.json", "long.wav", transcribe.RecognizeOptions{LanguageCode: "en"}, "gran tumor состав gün самого", 0, "en", -1},
		{"whispercpp_nolang.json", "padded.wav", transcribe.RecognizeOptions{}, "biblical", 0, "en", 0}, // "en" below 0.001: not listed
		{"whispercpp_auto.json", "padded.wav", transcribe.RecognizeOptions{}, "самого самого самого", 0, "gl", 0.7966},
		{"whispercpp_prompt.json", "fox.wav", transcribe.RecognizeOptions{LanguageCode: "en", WordBoost: []string{"Earshot", "Kubernetes"}},
			"freeله discanci disc disc mujer tek conan sensit самогоyect trzebat phosphorus incom winическиوب gnическиوبbat phosphorus", 0, "en", -1},
		{"whispercpp_long.json", "forty.wav", transcribe.RecognizeOptions{LanguageCode: "en"}, "", 56, "en", -1}, // 54 in the text, "33" spoken as two, "процесс��ל" split at the broken bytes
		{"openai_verbose.json", "fox.wav", transcribe.RecognizeOptions{LanguageCode: "en"}, foxText, 0, "en", 0},
		{"speaches_verbose.json", "fox.wav", transcribe.RecognizeOptions{LanguageCode: "en"}, foxText, 0, "en", 0},
		{"localai_whisper.json", "fox.wav", transcribe.RecognizeOptions{}, foxText, 0, "", 0},
		{"localai_crispasr.json", "fox.wav", transcribe.RecognizeOptions{LanguageCode: "en"}, foxText, 0, "en", 0},
		{"vllm_verbose.json", "fox.wav", transcribe.RecognizeOptions{LanguageCode: "en"}, foxText, 0, "en", 0},
		{"vllm_nolang.json", "fox.wav", transcribe.RecognizeOptions{}, foxText, 0, "", 0},
		{"funasr_verbose.json", "fox.wav", transcribe.RecognizeOptions{LanguageCode: "en"}, foxText, 0, "en", 0},
		{"funasr_fallback.json", "fox.wav", transcribe.RecognizeOptions{}, foxText, 0, "", 0},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			t.Parallel()
			ex := enginetest.LoadExchange(t, c.file)
			if ex.Request.File == nil || ex.Request.File.Name != c.audio {
				t.Fatalf("exchange was recorded with %+v, test sends %s", ex.Request.File, c.audio)
			}
			rp := enginetest.Replay(t, ex, true)
			r := newRec(t, Config{BaseURL: rp.URL + "/v1"})
			audio := recordedAudio(t, c.audio)
			rec, err := r.Recognize(context.Background(), audio, c.opts)
			if err != nil {
				t.Fatalf("%v (replay: %v)", err, rp.Err())
			}
			if err := rp.Err(); err != nil {
				t.Fatal(err)
			}
			if c.words != "" && texts(rec.Words) != c.words {
				t.Errorf("words %q, want %q", texts(rec.Words), c.words)
			}
			if c.words == "" && len(rec.Words) != c.nwords {
				t.Errorf("%d words %q, want %d", len(rec.Words), texts(rec.Words), c.nwords)
			}
			if rec.Language != c.lang {
				t.Errorf("language %q, want %q", rec.Language, c.lang)
			}
			if c.conf >= 0 && math.Abs(rec.LanguageConfidence-c.conf) > 0.0001 {
				t.Errorf("language confidence %v, want %v", rec.LanguageConfidence, c.conf)
			}
			dur := int64(len(audio)) * 1000 / SampleRate
			var prev int64
			for i, w := range rec.Words {
				if w.Start < prev || w.End < w.Start || w.End > dur || w.Confidence < 0 || w.Confidence > 1 {
					t.Errorf("word %d %+v out of order or range (audio %d ms)", i, w, dur)
				}
				prev = w.Start
			}
		})
	}
}

// TestRecordedDetails checks what the recordings show about whisper.cpp:
// sub-word tokens merge into words whose confidence is the mean token
// probability, times past the end of the audio are clamped, numbers are
// spoken, and the replacement characters of split UTF-8 are dropped.
func TestRecordedDetails(t *testing.T) {
	t.Parallel()
	rec := func(file, audio string, opts transcribe.RecognizeOptions) *transcribe.Recognition {
		rp := enginetest.Replay(t, enginetest.LoadExchange(t, file), true)
		r, err := newRec(t, Config{BaseURL: rp.URL + "/v1"}).Recognize(context.Background(), recordedAudio(t, audio), opts)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	en := transcribe.RecognizeOptions{LanguageCode: "en"}
	// " самого" 10.08..10.08 s in 9.275 s of audio.
	r := rec("whispercpp_en.json", "long.wav", en)
	last := r.Words[len(r.Words)-1]
	if last.Start != 9275 || last.End != 9275 {
		t.Errorf("last word %+v, want clamped to 9275 ms", last)
	}
	if first := r.Words[0]; first.Start != 1060 || first.End != 1500 || math.Abs(first.Confidence-0.000918) > 0.00001 {
		t.Errorf("first word %+v, want 1060..1500 ms with the token's probability", first)
	}
	// " FREE" (p 0.0096) + "له" (p 0.1487): one word, mean probability.
	r = rec("whispercpp_prompt.json", "fox.wav", transcribe.RecognizeOptions{LanguageCode: "en", WordBoost: []string{"Earshot", "Kubernetes"}})
	if w := r.Words[0]; w.Text != "freeله" || w.Start != 170 || w.End != 250 || math.Abs(w.Confidence-(0.009597+0.148711)/2) > 0.0001 {
		t.Errorf("first word %+v", w)
	}
	r = rec("whispercpp_long.json", "forty.wav", en)
	txt := " " + texts(r.Words) + " "
	for _, want := range []string{" deles thirty three pos ", " jacques advantages short구 "} {
		if !strings.Contains(txt, want) {
			t.Errorf("words %q lack %q", txt, want)
		}
	}
	if strings.Contains(txt, "\uFFFD") {
		t.Errorf("words keep replacement characters: %q", txt)
	}
}

func TestWrongPathAndBadAudio(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		file, want string
		status     int
	}{
		{"whispercpp_error_bad_audio.json", "HTTP 400: Invalid request", 400},
		{"whispercpp_error_wrong_path.json", "HTTP 404: File Not Found (/inference) (is the URL the engine's transcription endpoint? check BaseURL and Path)", 404},
	} {
		ex := enginetest.LoadExchange(t, c.file)
		rp := enginetest.Replay(t, ex, false)
		ns := &noSleep{}
		_, err := newRec(t, Config{BaseURL: rp.URL, Path: ex.Request.Path, Sleep: ns.sleep}).Recognize(context.Background(), recordedAudio(t, "fox.wav"), transcribe.RecognizeOptions{})
		var e *Error
		if !errors.As(err, &e) || e.StatusCode != c.status || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want status %d ending %q", c.file, err, c.status, c.want)
		}
		if errors.Is(err, transcribe.ErrUnavailable) || rp.Calls() != 1 || len(ns.got()) != 0 {
			t.Errorf("%s: a 4xx must not be retried nor count as unavailable: %d calls, waits %v", c.file, rp.Calls(), ns.got())
		}
	}
}

// TestLiveServer runs against a real OpenAI-compatible server when
// EARSHOT_OPENAI_URL names its API root (e.g. http://127.0.0.1:8000/v1;
// EARSHOT_OPENAI_MODEL and EARSHOT_OPENAI_KEY as needed): the exchanges
// must succeed and the words follow the contract. With a real model the
// suite runs too (EARSHOT_OPENAI_CONFORMANCE=1).
func TestLiveServer(t *testing.T) {
	u := os.Getenv("EARSHOT_OPENAI_URL")
	if u == "" {
		t.Skip("EARSHOT_OPENAI_URL not set")
	}
	r := newRec(t, Config{BaseURL: u, Model: os.Getenv("EARSHOT_OPENAI_MODEL"), APIKey: os.Getenv("EARSHOT_OPENAI_KEY")})
	for _, opts := range []transcribe.RecognizeOptions{{LanguageCode: "en"}, {}, {LanguageCode: "en", WordBoost: []string{"Earshot"}, Prompt: "A meeting."}} {
		rec, err := r.Recognize(context.Background(), recordedAudio(t, "padded.wav"), opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%+v: %q language %q (%.3f)", opts, texts(rec.Words), rec.Language, rec.LanguageConfidence)
	}
	if _, err := r.RecognizeFile(context.Background(), testaudio.Speech(t, "slt", foxText), transcribe.RecognizeOptions{}); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("EARSHOT_OPENAI_CONFORMANCE") == "1" {
		transcribetest.RunRecognizerTests(t, r, speech("slt"))
	}
}
