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

// Health checks that the engine answers: a GET of the transcription URL
// (OpenAI-compatible servers have no common health endpoint; any answer
// below 500, 405 Method Not Allowed included, shows the server is up). It
// returns nil when it is, and an error naming the engine, wrapping
// transcribe.ErrUnavailable and transcribe.ErrEngineUnavailable, when the
// engine is unreachable or answers 5xx (a server still loading its model
// answers 503).
func (r *Recognizer) Health(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.url, nil)
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
		return fmt.Errorf("%s: GET %s: speech engine unreachable: %v: %w%w", r.cfg.Name, r.url, err, transcribe.ErrUnavailable, outage{})
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode >= 500 {
		return fmt.Errorf("%s: GET %s: HTTP %d %s: %w%w", r.cfg.Name, r.url, resp.StatusCode, http.StatusText(resp.StatusCode),
			transcribe.ErrUnavailable, outage{})
	}
	return nil
}

// outage marks an error as transcribe.ErrEngineUnavailable without
// changing its text.
type outage struct{}

func (outage) Error() string        { return "" }
func (outage) Is(target error) bool { return target == transcribe.ErrEngineUnavailable }
