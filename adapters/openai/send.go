package openai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/earshot-dev/earshot/adapters/enginepool"
)

// PoolWholeFile is the longest file RecognizeFile sends whole to a pool
// of more than one request at once (Capacity): a longer one is left to the
// Service, which cuts it into pieces (of at most a minute, from 90 s) that
// the servers recognize side by side.
const PoolWholeFile = 90 * time.Second

// outcomeOf classifies an attempt's error for the pool.
func outcomeOf(ctx context.Context, err error) enginepool.Outcome {
	var e *Error
	switch {
	case err == nil:
		return enginepool.OK
	case ctx.Err() != nil:
		return enginepool.Canceled
	case !errors.As(err, &e):
		return enginepool.Failed
	case e.Outage():
		return enginepool.Unavailable
	case e.Refusal() || e.StatusCode >= 400 && e.StatusCode < 500:
		return enginepool.Refused
	}
	return enginepool.Failed
}

// post sends one request with retries and parses the answer. audioMS is
// the length of the audio sent (-1: unknown, a file), boundMS the length
// the answer is bounded by (0 or -1: unknown, only MaxResponseBytes).
//
// Each attempt takes a slot on a server of the pool (waiting for one
// when every server is busy). An attempt that finds its server down is
// sent again at once on another server when one is up, without counting
// as a retry; other failures are retried with Backoff, MaxRetries times,
// preferring another server.
func (r *Recognizer) post(ctx context.Context, ctype string, body func() (io.ReadCloser, int64, error), audioMS, boundMS int64) (*result, error) {
	avoid, sent, moves := -1, 0, 0
	for attempt := 1; ; {
		slot, err := r.pool.Acquire(ctx, avoid)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, cerr
			}
			return nil, ErrClosed
		}
		sent++
		res, resp, err := r.attempt(ctx, r.urls[slot.Server], ctype, body, audioMS, boundsFor(boundMS, r.cfg.MaxResponseBytes))
		slot.Release(outcomeOf(ctx, err), err)
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		if err == nil {
			return res, nil
		}
		var e *Error
		if !errors.As(err, &e) {
			return nil, err
		}
		e.Attempts = sent
		avoid = slot.Server
		if e.Outage() && moves < 2*r.pool.Len() && r.pool.AnyUp() {
			// Another server is up: go there now.
			moves++
			continue
		}
		if !e.Unavailable() || e.Timeout || attempt > r.cfg.MaxRetries {
			return nil, e
		}
		attempt++
		if err := r.cfg.Sleep(ctx, r.cfg.Backoff(attempt-1, resp)); err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, cerr
			}
			return nil, err
		}
	}
}

// attempt sends the request once. Engine failures are *Error; resp, when
// the engine answered, has its body closed.
func (r *Recognizer) attempt(ctx context.Context, target, ctype string, body func() (io.ReadCloser, int64, error), audioMS int64, lim answerBounds) (*result, *http.Response, error) {
	actx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	rc, n, err := body()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", r.cfg.Name, err)
	}
	hreq, err := http.NewRequestWithContext(actx, http.MethodPost, target, rc)
	if err != nil {
		rc.Close()
		return nil, nil, fmt.Errorf("%s: %w", r.cfg.Name, err)
	}
	hreq.ContentLength = n
	hreq.Header.Set("Content-Type", ctype)
	hreq.Header.Set("Accept", "application/json")
	hreq.Header.Set("User-Agent", "earshot")
	if r.cfg.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+r.cfg.APIKey)
	}
	fail := func(status int, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(actx.Err(), context.DeadlineExceeded) {
			return &Error{Engine: r.cfg.Name, URL: target, Timeout: true, Message: fmt.Sprintf("no answer within %v (Config.Timeout)", r.cfg.Timeout)}
		}
		return &Error{Engine: r.cfg.Name, URL: target, StatusCode: status, Message: transportMessage(err), Err: err}
	}
	resp, err := r.cfg.HTTPClient.Do(hreq)
	if err != nil {
		return nil, nil, fail(0, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, lim.bytes+1))
	if err != nil {
		// The answer broke off: as good as no answer.
		return nil, resp, fail(0, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, resp, &Error{Engine: r.cfg.Name, URL: target, StatusCode: resp.StatusCode, Message: errorMessage(data)}
	}
	refuse := func(msg string) error {
		return &Error{Engine: r.cfg.Name, URL: target, StatusCode: http.StatusOK, Message: msg}
	}
	if int64(len(data)) > lim.bytes {
		if lim.bytes < r.cfg.MaxResponseBytes {
			return nil, resp, refuse(fmt.Sprintf("answer larger than %d bytes, more than %s can hold", lim.bytes, lim.audio()))
		}
		return nil, resp, refuse(fmt.Sprintf("response larger than %d bytes (Config.MaxResponseBytes)", r.cfg.MaxResponseBytes))
	}
	if lim.values > 0 && countValues(data, lim.values) > lim.values {
		return nil, resp, refuse(fmt.Sprintf("answer of more than %d JSON values and words, more than %s can hold", lim.values, lim.audio()))
	}
	res, err := parseResponse(data, audioMS)
	var re *refusedError
	if errors.As(err, &re) {
		return nil, resp, &Error{Engine: r.cfg.Name, URL: target, StatusCode: http.StatusOK, Refused: true, Message: re.msg}
	}
	if err != nil {
		return nil, resp, refuse("unreadable answer: " + err.Error())
	}
	res.server = resp.Header.Get("Server")
	if lim.words > 0 && len(res.words) > lim.words {
		return nil, resp, refuse(fmt.Sprintf("answer of %d words for %s: more than it can hold (at most %d words a second + %d)", len(res.words), lim.audio(), MaxWordsPerSecond, ExtraWords))
	}
	return res, resp, nil
}

// transportMessage describes a failed exchange without repeating the URL.
func transportMessage(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		err = ue.Err
	}
	return err.Error()
}
