package isolate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/earshot-dev/earshot/transcribe"
)

// Factory builds an engine inside a worker process from the JSON form of
// Config.EngineConfig ("null" when none was given). It runs once per
// worker; the Recognizer it returns serves one request or stream at a time
// and is closed when the worker stops.
type Factory func(config json.RawMessage) (transcribe.Recognizer, error)

var registry struct {
	mu sync.RWMutex
	m  map[string]Factory
}

// Register makes an engine available to New under name, in this binary and
// so in the workers it re-executes. Call it before Main (in an init
// function or at the very top of main), because a worker runs Main and
// only sees what was registered by then. It returns an error for an empty
// name, a nil factory, or a name registered twice.
func Register(name string, f Factory) error {
	if name == "" {
		return fmt.Errorf("isolate: Register: empty engine name")
	}
	if f == nil {
		return fmt.Errorf("isolate: Register %q: nil factory", name)
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if registry.m == nil {
		registry.m = map[string]Factory{}
	}
	if _, dup := registry.m[name]; dup {
		return fmt.Errorf("isolate: Register: engine %q registered twice", name)
	}
	registry.m[name] = f
	return nil
}

func lookup(name string) (Factory, bool) {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	f, ok := registry.m[name]
	return f, ok
}

// JSONFactory adapts a constructor taking a typed config to a Factory: the
// JSON config is decoded into C (unknown fields are an error naming them;
// null leaves C's zero value, which for Earshot's config structs means
// every default). For example
//
//	isolate.Register("pocketsphinx", isolate.JSONFactory(
//		func(c pocketsphinx.Config) (transcribe.Recognizer, error) { return pocketsphinx.New(c) }))
func JSONFactory[C any](build func(C) (transcribe.Recognizer, error)) Factory {
	return func(config json.RawMessage) (transcribe.Recognizer, error) {
		var c C
		if len(config) > 0 && !bytes.Equal(bytes.TrimSpace(config), []byte("null")) {
			d := json.NewDecoder(bytes.NewReader(config))
			d.DisallowUnknownFields()
			if err := d.Decode(&c); err != nil {
				return nil, fmt.Errorf("isolate: engine config %s: %w", config, err)
			}
		}
		return build(c)
	}
}
