package openai_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/adapters/openai"
	"github.com/earshot-dev/earshot/transcribe"
)

// TestHealthAndOutage (issue 21.3, 21.4): Health answers nil while the
// engine answers (405 to a GET of the transcription URL is an answer), an
// error naming the engine and wrapping transcribe.ErrEngineUnavailable
// while it answers 503 or is unreachable; a request's Error is an outage
// for no answer, 429, 502, 503 and 504, and not for 500, 400 or a timeout.
func TestHealthAndOutage(t *testing.T) {
	t.Parallel()
	status := http.StatusMethodNotAllowed
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(status) }))
	r, err := openai.New(openai.Config{BaseURL: srv.URL, Name: "speaches"})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Health(t.Context()); err != nil {
		t.Fatalf("Health while the engine answers 405: %v", err)
	}
	status = http.StatusServiceUnavailable
	if err := r.Health(t.Context()); !errors.Is(err, transcribe.ErrEngineUnavailable) || !strings.Contains(err.Error(), "speaches") || !strings.Contains(err.Error(), "503") {
		t.Errorf("Health while the engine answers 503: %v", err)
	}
	srv.Close()
	if err := r.Health(t.Context()); !errors.Is(err, transcribe.ErrEngineUnavailable) || !strings.Contains(err.Error(), "unreachable") {
		t.Errorf("Health while the engine is down: %v", err)
	}
	for _, c := range []struct {
		e      openai.Error
		outage bool
	}{
		{openai.Error{StatusCode: 0}, true},
		{openai.Error{StatusCode: 0, Timeout: true}, false},
		{openai.Error{StatusCode: 429}, true},
		{openai.Error{StatusCode: 502}, true},
		{openai.Error{StatusCode: 503}, true},
		{openai.Error{StatusCode: 504}, true},
		{openai.Error{StatusCode: 500}, false},
		{openai.Error{StatusCode: 400}, false},
	} {
		if got := errors.Is(&c.e, transcribe.ErrEngineUnavailable); got != c.outage {
			t.Errorf("status %d timeout %v: ErrEngineUnavailable %v, want %v", c.e.StatusCode, c.e.Timeout, got, c.outage)
		}
	}
}
