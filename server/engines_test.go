package server

import (
	"runtime"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/adapters/enginepool"
	"github.com/earshot-dev/earshot/adapters/openai"
	"github.com/earshot-dev/earshot/adapters/whispercpp"
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
