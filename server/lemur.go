package server

import (
	"fmt"
	"log/slog"

	"github.com/earshot-dev/earshot/httpapi"
	"github.com/earshot-dev/earshot/httpapi/lemur"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// lemurHandler returns LeMUR on the configured chat model (EARSHOT_LLM_*),
// or nil without one (httpapi then answers the LeMUR routes 400). Answers
// are kept in the region's store (SQLite, or PostgreSQL shared by every
// process), sealed with a key derived from the content key, for
// EARSHOT_RETENTION.
func lemurHandler(cfg *Config, svc *transcribe.Service, store regionStore, key []byte, log *slog.Logger) (httpapi.LeMUR, error) {
	if cfg.LLMURL == "" {
		return nil, nil
	}
	answers, ok := store.(driver.LeMURStore)
	if !ok {
		return nil, fmt.Errorf("the %T store cannot keep LeMUR answers", store)
	}
	h, err := lemur.New(lemur.Config{
		Service: svc, BaseURL: cfg.LLMURL, Model: cfg.LLMModel, APIKey: cfg.LLMKey, ContextTokens: cfg.LLMContext,
		Store: answers, Key: deriveKey(key, "lemur answers"), Retention: cfg.Retention, Logger: log,
	})
	if err != nil {
		return nil, fmt.Errorf("EARSHOT_LLM_CONTEXT or EARSHOT_LLM_URL: %w", err)
	}
	log.Info("LeMUR answers with the language model; transcript text (already redacted) is sent to it", "model", cfg.LLMModel, "context_tokens", cfg.LLMContext)
	return h, nil
}
