package server

import (
	"fmt"
	"strings"

	"github.com/earshot-dev/earshot/adapters/openai"
	"github.com/earshot-dev/earshot/adapters/whispercpp"
	"github.com/earshot-dev/earshot/transcribe"
)

// buildEngines returns the configured speech engines, the default first:
// pocketsphinx (always; it also serves streaming), a whisper.cpp server
// (EARSHOT_WHISPERCPP_URL) and an OpenAI-compatible server
// (EARSHOT_OPENAI_URL), each named after its kind so that speech_model
// selects it ("pocketsphinx", "whispercpp", "openai").
func buildEngines(cfg *Config, pocket transcribe.Recognizer, dec transcribe.Decoder) ([]transcribe.Engine, error) {
	var langs []string
	for _, l := range strings.Split(cfg.EngineLanguages, ",") {
		if l = strings.TrimSpace(l); l != "" {
			langs = append(langs, l)
		}
	}
	engines := []transcribe.Engine{{Name: "pocketsphinx", Recognizer: pocket}}
	if cfg.WhisperCppURL != "" {
		r, err := whispercpp.New(whispercpp.Config{URL: cfg.WhisperCppURL, Languages: langs, Decoder: dec})
		if err != nil {
			return nil, fmt.Errorf("EARSHOT_WHISPERCPP_URL: %w", err)
		}
		engines = append(engines, transcribe.Engine{Name: "whispercpp", Recognizer: r})
	}
	if cfg.OpenAIURL != "" {
		r, err := openai.New(openai.Config{BaseURL: cfg.OpenAIURL, Model: cfg.OpenAIModel, APIKey: cfg.OpenAIKey, Languages: langs, Decoder: dec})
		if err != nil {
			return nil, fmt.Errorf("EARSHOT_OPENAI_URL: %w", err)
		}
		engines = append(engines, transcribe.Engine{Name: "openai", Recognizer: r})
	}
	// The default engine goes first.
	for i, e := range engines {
		if e.Name == cfg.Engine && i > 0 {
			engines[0], engines[i] = engines[i], engines[0]
		}
	}
	return engines, nil
}
