package isolate

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// TestConformance runs the recognizer suite against pocketsphinx in worker
// processes: real speech, streams, cancellation and concurrency through
// the pipes.
func TestConformance(t *testing.T) {
	t.Parallel()
	r := newRec(t, Config{Engine: "pocketsphinx", EngineConfig: json.RawMessage(`{"Decoders": 1}`), Processes: 2})
	transcribetest.RunRecognizerTests(t, r, func(t testing.TB, text string) []int16 { return speech(t, text) })
}

// TestErrorsCrossTheWire: the engine's typed errors and sentinels survive
// the trip from the worker, and set-up errors name the problem.
func TestErrorsCrossTheWire(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("ParamError", func(t *testing.T) {
		r := newRec(t, Config{Engine: "crashy", Processes: 1})
		_, err := r.Recognize(ctx, make([]int16, 100), transcribe.RecognizeOptions{WordBoost: []string{"fox"}, BoostParam: "loud"})
		var pe *transcribe.ParamError
		if !errors.As(err, &pe) || pe.Field != "boost_param" || !strings.Contains(pe.Reason, `"loud"`) {
			t.Fatalf("err = %#v, want a *transcribe.ParamError for boost_param", err)
		}
		if err.Error() != pe.Error() {
			t.Errorf("message %q changed on the way (engine said %q)", err, pe.Error())
		}
	})

	t.Run("Unavailable", func(t *testing.T) {
		_, err := New(Config{Engine: "pocketsphinx", EngineConfig: map[string]string{"ModelDir": t.TempDir()}})
		if !errors.Is(err, transcribe.ErrUnavailable) {
			t.Fatalf("New with an empty model directory: %v, want ErrUnavailable", err)
		}
	})

	t.Run("BadEngineConfig", func(t *testing.T) {
		_, err := New(Config{Engine: "pocketsphinx", EngineConfig: json.RawMessage(`{"Decoderz": 1}`)})
		if err == nil || !strings.Contains(err.Error(), `unknown field "Decoderz"`) {
			t.Fatalf("New with a misspelt config field: %v", err)
		}
		_, err = New(Config{Engine: "pocketsphinx", EngineConfig: json.RawMessage(`{"Decoders": `)})
		if err == nil || !strings.Contains(err.Error(), "EngineConfig is not valid JSON") {
			t.Fatalf("New with broken JSON: %v", err)
		}
		_, err = New(Config{Engine: "pocketsphinx", EngineConfig: func() {}})
		if err == nil || !strings.Contains(err.Error(), "EngineConfig") {
			t.Fatalf("New with an unmarshalable config: %v", err)
		}
	})

	t.Run("NotRegistered", func(t *testing.T) {
		_, err := New(Config{Engine: "whisper"})
		if !errors.Is(err, ErrNotRegistered) || !strings.Contains(err.Error(), `"whisper"`) || !strings.Contains(err.Error(), "pocketsphinx") {
			t.Fatalf("New with an unknown engine: %v", err)
		}
	})

	t.Run("NotStreaming", func(t *testing.T) {
		r := newRec(t, Config{Engine: "batch-only", Processes: 1})
		if r.Features().Streaming {
			t.Errorf("Features().Streaming true for a batch-only engine")
		}
		if _, err := r.NewStream(ctx, transcribe.StreamOptions{}); !errors.Is(err, ErrNotStreaming) {
			t.Errorf("NewStream: %v, want ErrNotStreaming", err)
		}
	})

	t.Run("StreamOptions", func(t *testing.T) {
		r := newRec(t, Config{Engine: "crashy", Processes: 1})
		if _, err := r.NewStream(ctx, transcribe.StreamOptions{SampleRate: 500}); err == nil || !strings.Contains(err.Error(), "sample rate 500") {
			t.Fatalf("NewStream at 500 Hz: %v", err)
		}
		// The refusal leaves the worker usable.
		if _, err := r.Recognize(ctx, magicAudio(actNothing), transcribe.RecognizeOptions{}); err != nil {
			t.Fatal(err)
		}
		if s := r.Stats(); s.Started != 1 {
			t.Errorf("Started = %d after an engine error, want 1 (the worker kept)", s.Started)
		}
	})
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "Config.Engine is required"},
		{Config{Engine: "quiet", Processes: -1}, "Config.Processes must be positive"},
		{Config{Engine: "quiet", StartTimeout: -1}, "Config.StartTimeout must be positive"},
		{Config{Engine: "quiet", StopGrace: -1}, "Config.StopGrace must be positive"},
		{Config{Engine: "quiet", Env: []string{"NOEQUALS"}}, `Config.Env entry "NOEQUALS"`},
		{Config{Engine: "quiet", Env: []string{envWorker + "=1"}}, "Config.Env must not set"},
		{Config{Engine: "quiet", Executable: "/nonexistent/earshot"}, "/nonexistent/earshot"},
	} {
		_, err := New(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v) = %v, want an error containing %q", c.cfg, err, c.want)
		}
	}
}

func TestRegister(t *testing.T) {
	f := func(json.RawMessage) (transcribe.Recognizer, error) { return quiet{}, nil }
	for _, c := range []struct {
		name string
		f    Factory
		want string
	}{
		{"", f, "empty engine name"},
		{"x", nil, "nil factory"},
		{"quiet", f, `"quiet" registered twice`},
	} {
		if err := Register(c.name, c.f); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Register(%q) = %v, want %q", c.name, err, c.want)
		}
	}
}

// TestWorkerStartFailure: a binary that is not a worker (here /bin/true,
// which exits at once) fails New with the exit status, not a hang.
func TestWorkerStartFailure(t *testing.T) {
	t.Parallel()
	_, err := New(Config{Engine: "quiet", Executable: "/bin/true"})
	if err == nil || !strings.Contains(err.Error(), "ended during start-up (exit status 0") {
		t.Fatalf("New with /bin/true as the worker: %v", err)
	}
	_, err = New(Config{Engine: "broken", EngineConfig: map[string]bool{"Panic": true}})
	if err == nil || !strings.Contains(err.Error(), "ended during start-up (exit status 2, EOF): panic: broken: cannot build the engine") {
		t.Fatalf("New with an engine that panics: %v", err)
	}
	_, err = New(Config{Engine: "broken"})
	if err == nil || !strings.Contains(err.Error(), "ended during start-up (exit status 5") {
		t.Fatalf("New with an engine that exits: %v", err)
	}
	silent := filepath.Join(t.TempDir(), "silent")
	if err := os.WriteFile(silent, []byte("#!/bin/sh\nexec sleep 10\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = New(Config{Engine: "quiet", Executable: silent, StartTimeout: 200 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "did not start within 200ms") {
		t.Fatalf("New with a binary that never answers: %v", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("New took %s to give up on a worker that never answers", el)
	}
}
