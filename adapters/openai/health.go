package openai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/earshot-dev/earshot/transcribe"
)

// Health checks that the engine answers: every server's health check
// (Config.HealthCheck; by default a GET of the transcription URL:
// OpenAI-compatible servers have no common health endpoint, and any
// answer below 500, 405 Method Not Allowed included, shows the server is
// up). It returns nil when a server is up, and otherwise an error naming
// the engine, wrapping transcribe.ErrUnavailable and
// transcribe.ErrEngineUnavailable, when the engine is unreachable or
// answers 5xx (a server still loading its model answers 503); with
// several servers, an *enginepool.DownError with each one's. Servers found
// down are skipped until they pass.
func (r *Recognizer) Health(ctx context.Context) error {
	return r.pool.Health(ctx)
}

// checkURL is the default health check: a GET of u, the transcription
// URL of one server.
func (r *Recognizer) checkURL(ctx context.Context, u string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", r.cfg.Name, err)
	}
	if r.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+r.cfg.APIKey)
	}
	resp, err := r.cfg.HTTPClient.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("%s: GET %s: speech engine unreachable: %v: %w%w", r.cfg.Name, u, err, transcribe.ErrUnavailable, outage{})
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode >= 500 {
		return fmt.Errorf("%s: GET %s: HTTP %d %s: %w%w", r.cfg.Name, u, resp.StatusCode, http.StatusText(resp.StatusCode),
			transcribe.ErrUnavailable, outage{})
	}
	return nil
}

// outage marks an error as transcribe.ErrEngineUnavailable without
// changing its text.
type outage struct{}

func (outage) Error() string        { return "" }
func (outage) Is(target error) bool { return target == transcribe.ErrEngineUnavailable }
