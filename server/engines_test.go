package server

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/adapters/enginepool"
	"github.com/earshot-dev/earshot/adapters/openai"
	"github.com/earshot-dev/earshot/adapters/whispercpp"
	"github.com/earshot-dev/earshot/realtime/realtimetest/streamtest"
	"github.com/earshot-dev/earshot/transcribe"
)

// EARSHOT_WHISPERCPP_URL and EARSHOT_OPENAI_URL take comma-separated
// servers, each given its engine's concurrency; the default workers cover
// the pools' capacity; a bad list names the variable.
func TestEnginePoolsFromConfig(t *testing.T) {
	t.Setenv("EARSHOT_WHISPERCPP_URL", "http://127.0.0.1:8081, http://127.0.0.1:8082,http://127.0.0.1:8083")
	t.Setenv("EARSHOT_OPENAI_URL", "http://127.0.0.1:8000/v1,http://127.0.0.1:8001/v1")
	t.Setenv("EARSHOT_OPENAI_CONCURRENCY", "4")
	t.Setenv("EARSHOT_WHISPERCPP_CONCURRENCY", "")
	cfg, err := parseWith(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	var hooked []string
	hook := func(engine string) func(enginepool.Event) {
		hooked = append(hooked, engine)
		return nil
	}
	engines, err := buildEngines(cfg, nil, hook)
	if err != nil {
		t.Fatal(err)
	}
	if len(engines) != 3 {
		t.Fatalf("%d engines", len(engines))
	}
	w := engines[1].Recognizer.(*whispercpp.Recognizer)
	o := engines[2].Recognizer.(*openai.Recognizer)
	defer w.Close()
	defer o.Close()
	if len(w.Servers()) != 3 || w.Capacity() != 3 || w.Servers()[1].Name != "http://127.0.0.1:8082" {
		t.Errorf("whisper.cpp pool %+v, capacity %d: want 3 servers of 1", w.Servers(), w.Capacity())
	}
	if len(o.Servers()) != 2 || o.Capacity() != 8 {
		t.Errorf("OpenAI pool %+v, capacity %d: want 2 servers of 4", o.Servers(), o.Capacity())
	}
	if strings.Join(hooked, " ") != "whispercpp openai" {
		t.Errorf("metrics hooks for %v", hooked)
	}
	if n := jobWorkers(cfg, engines); n != max(runtime.NumCPU(), 11) {
		t.Errorf("%d workers, want the pools' capacity 11 (or one per CPU if more)", n)
	}
	cfg.Workers = 2
	if n := jobWorkers(cfg, engines); n != 2 {
		t.Errorf("EARSHOT_WORKERS=2 gave %d workers", n)
	}

	cfg.WhisperCppURL = "http://127.0.0.1:8081,,http://127.0.0.1:8082"
	if _, err := buildEngines(cfg, nil, hook); err == nil || !strings.Contains(err.Error(), "EARSHOT_WHISPERCPP_URL") {
		t.Errorf("an empty item: %v", err)
	}
}

// fakeLocal stands in for pocketsphinx: it streams (streamtest's fake)
// and warms at once.
type fakeLocal struct{ *streamtest.FakeRecognizer }

func (fakeLocal) Warm(context.Context, int) error { return nil }

func newFakeLocal() *localEngines {
	return &localEngines{batch: fakeLocal{&streamtest.FakeRecognizer{}}, stream: fakeLocal{&streamtest.FakeRecognizer{}}}
}

// openEngines puts the default engine (EARSHOT_ENGINE) first, pocketsphinx
// otherwise; the local pools are used as they are without metrics; a bad
// remote engine names its variable.
func TestOpenEngines(t *testing.T) {
	ops, err := newOps("", quiet)
	if err != nil {
		t.Fatal(err)
	}
	local := newFakeLocal()
	names := func(es *engineSet) string {
		var n []string
		for _, e := range es.list {
			n = append(n, e.Name)
		}
		return strings.Join(n, " ")
	}
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Engine: "pocketsphinx"}, "pocketsphinx"},
		{Config{Engine: "pocketsphinx", WhisperCppURL: "http://127.0.0.1:8081", OpenAIURL: "http://127.0.0.1:8000/v1"}, "pocketsphinx whispercpp openai"},
		{Config{Engine: "openai", WhisperCppURL: "http://127.0.0.1:8081", OpenAIURL: "http://127.0.0.1:8000/v1"}, "openai whispercpp pocketsphinx"},
		{Config{Engine: "whispercpp", WhisperCppURL: "http://127.0.0.1:8081"}, "whispercpp pocketsphinx"},
	} {
		es, err := openEngines(&tc.cfg, local, ops)
		if err != nil {
			t.Fatalf("%+v: %v", tc.cfg, err)
		}
		if got := names(es); got != tc.want {
			t.Errorf("%+v: engines %s, want %s", tc.cfg, got, tc.want)
		}
		if es.stream != transcribe.StreamRecognizer(local.stream) {
			t.Errorf("stream recognizer %T, want the local streaming pool", es.stream)
		}
		for _, e := range es.list {
			if e.Name == "pocketsphinx" && e.Recognizer != transcribe.Recognizer(local.batch) {
				t.Errorf("pocketsphinx is %T, want the local batch pool", e.Recognizer)
			}
		}
	}
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Engine: "pocketsphinx", WhisperCppURL: "ftp://127.0.0.1:8081"}, "EARSHOT_WHISPERCPP_URL: "},
		{Config{Engine: "pocketsphinx", OpenAIURL: "http://127.0.0.1:8000/v1,"}, "EARSHOT_OPENAI_URL: "},
	} {
		if _, err := openEngines(&tc.cfg, local, ops); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error starting %q", tc.cfg, err, tc.want)
		}
	}
}

// Batch decoders: EARSHOT_DECODERS, else EARSHOT_WORKERS (0: one per CPU
// in both).
func TestBatchDecoders(t *testing.T) {
	for _, tc := range []struct{ decoders, workers, want int }{{0, 0, 0}, {0, 3, 3}, {2, 3, 2}, {4, 0, 4}} {
		if got := batchDecoders(&Config{Decoders: tc.decoders, Workers: tc.workers}); got != tc.want {
			t.Errorf("EARSHOT_DECODERS=%d EARSHOT_WORKERS=%d: %d decoders, want %d", tc.decoders, tc.workers, got, tc.want)
		}
	}
}

// A pocketsphinx model that is not there fails the start, not the first
// job.
func TestOpenLocalEnginesMissingModel(t *testing.T) {
	cfg := &Config{InProcessEngine: true, ModelDir: filepath.Join(t.TempDir(), "no-model"), Decoders: 1, StreamDecoders: 1, MaxDuration: time.Hour}
	l, err := openLocalEngines(t.Context(), cfg, quiet)
	if err == nil {
		l.close()
		t.Fatal("a missing model: no error")
	}
	if !errors.Is(err, transcribe.ErrUnavailable) {
		t.Errorf("a missing model: %v, want transcribe.ErrUnavailable", err)
	}
}

// Summaries use the chat model of EARSHOT_LLM_URL when one is set; a bad
// URL names the setting.
func TestStageOptions(t *testing.T) {
	o, err := stageOptions(&Config{PunctuationModel: true}, "/tmp/x", quiet)
	if err != nil || o.Summaries.Generator != nil || o.KeyPhrases.Chooser != nil || !o.Text.PunctuationModel || o.TempDir != "/tmp/x" {
		t.Errorf("without a model: %+v, %v", o, err)
	}
	if o, err = stageOptions(&Config{LLMURL: "http://127.0.0.1:11434/v1", LLMModel: "m"}, "/tmp/x", quiet); err != nil || o.Summaries.Generator == nil ||
		o.KeyPhrases.Chooser == nil || o.Topics.Chooser == nil || o.Safety.Chooser == nil {
		t.Errorf("with a model: %+v, %v", o, err)
	}
	if _, err := stageOptions(&Config{LLMURL: "ftp://127.0.0.1/v1", LLMModel: "m"}, "/tmp/x", quiet); err == nil || !strings.HasPrefix(err.Error(), "EARSHOT_LLM_URL: ") {
		t.Errorf("a bad URL: %v", err)
	}
}
