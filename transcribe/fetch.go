package transcribe

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Fetcher downloads audio_url media to w.
//
//   - It returns a *MediaError when the remote side answers with a non-2xx
//     status, the body exceeds the size cap, or the URL is refused by
//     policy, so the transcript fails with a reason.
type Fetcher interface {
	Fetch(ctx context.Context, url string, w io.Writer) (int64, error)
}

// HTTPFetcher is the default Fetcher: a plain HTTP GET with a timeout and a
// size cap, streamed to w (never held in memory). It is exported for
// embedders who set Config.Fetcher to one with their own client or limits.
type HTTPFetcher struct {
	// Client is the HTTP client. Default: a client whose Timeout is Timeout.
	Client *http.Client
	// Timeout bounds the whole download. Default 10 minutes.
	Timeout time.Duration
	// MaxBytes caps the body. Default 2 GiB.
	MaxBytes int64
}

// DefaultMaxMediaBytes is the default cap for fetched and uploaded media.
const DefaultMaxMediaBytes = 2 << 30

// defaultFetchTimeout bounds one audio_url download.
const defaultFetchTimeout = 10 * time.Minute

// Fetch implements Fetcher.
func (f *HTTPFetcher) Fetch(ctx context.Context, url string, w io.Writer) (int64, error) {
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = defaultFetchTimeout
	}
	max := f.MaxBytes
	if max <= 0 {
		max = DefaultMaxMediaBytes
	}
	client := f.Client
	if client == nil {
		client = &http.Client{Timeout: timeout}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, &MediaError{Reason: fmt.Sprintf("invalid audio_url: %v", err)}
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil && ctx.Err() != context.DeadlineExceeded {
			return 0, ctx.Err()
		}
		return 0, &MediaError{Reason: fmt.Sprintf("could not download audio_url: %v", err)}
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return 0, &MediaError{Reason: fmt.Sprintf("could not download audio_url: the server answered HTTP %d", resp.StatusCode)}
	}
	n, err := io.Copy(w, io.LimitReader(resp.Body, max+1))
	if err != nil {
		return n, &MediaError{Reason: fmt.Sprintf("could not download audio_url: %v", err)}
	}
	if n > max {
		return n, &MediaError{Reason: fmt.Sprintf("audio_url media is larger than the limit of %d bytes", max)}
	}
	return n, nil
}
