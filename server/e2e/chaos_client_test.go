package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// chaosCall is one HTTP exchange of the outage test's clients, as they
// saw it.
type chaosCall struct {
	phase      string // the outage phase when the request was sent
	what       string // "upload", "create", "get", "list"
	status     int    // 0: no answer (transport error or client timeout)
	retryAfter string
	reason     string // the JSON body's "error"
	body       string // the body of a non-200 answer, cut short
	err        error  // transport error
	took       time.Duration
}

// chaosClient is an API client that retries 5xx and transport errors with
// the same Idempotency-Key, as the SDKs retry, and records every exchange
// with the phase it was sent in.
type chaosClient struct {
	base, key string
	hc        *http.Client
	mu        sync.Mutex
	phase     string
	calls     []chaosCall
}

func (c *chaosClient) setPhase(p string) {
	c.mu.Lock()
	c.phase = p
	c.mu.Unlock()
}

func (c *chaosClient) currentPhase() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.phase
}

// once sends one request and records it; it returns the exchange
// (status 0: no answer) and the body.
func (c *chaosClient) once(ctx context.Context, what, method, path string, body []byte, idem string) (chaosCall, []byte) {
	call := chaosCall{phase: c.currentPhase(), what: what}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		panic(err)
	}
	req.Header.Set("Authorization", c.key)
	if idem != "" {
		req.Header.Set("Idempotency-Key", idem)
	}
	start := time.Now()
	res, err := c.hc.Do(req)
	var b []byte
	if err == nil {
		b, err = io.ReadAll(res.Body)
		res.Body.Close()
		call.status, call.retryAfter = res.StatusCode, res.Header.Get("Retry-After")
		if err != nil { // the answer was cut
			call.status = 0
		}
	}
	call.took, call.err = time.Since(start), err
	if ctx.Err() != nil {
		return chaosCall{}, nil // the test is over: not an exchange to judge
	}
	if call.status != http.StatusOK && call.status != 0 {
		var e struct {
			Error string `json:"error"`
		}
		_ = json.Unmarshal(b, &e)
		call.reason = e.Error
		call.body = string(b[:min(len(b), 300)])
	}
	c.mu.Lock()
	c.calls = append(c.calls, call)
	c.mu.Unlock()
	return call, b
}

// retry sends a request until it is answered 200, decoding that answer
// into out; a 5xx or no answer is retried after Retry-After (1 s when
// absent, 2 s at most) with the same Idempotency-Key. A 4xx is final and
// returned as an error, as the SDKs treat it.
func (c *chaosClient) retry(ctx context.Context, what, method, path string, body []byte, idem string, out any) error {
	for {
		call, b := c.once(ctx, what, method, path, body, idem)
		switch status := call.status; {
		case status == http.StatusOK:
			if out == nil {
				return nil
			}
			return json.Unmarshal(b, out)
		case status >= 400 && status < 500:
			return fmt.Errorf("%s %s: %d %s", method, path, status, b)
		}
		wait := time.Second
		if s, err := strconv.Atoi(call.retryAfter); err == nil && s >= 0 {
			wait = time.Duration(min(s, 2)) * time.Second
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s %s: gave up: %w", method, path, ctx.Err())
		case <-time.After(wait):
		}
	}
}

// judge returns what is wrong with the recorded exchanges: an answer
// slower than limit or none at all, a 4xx (every request the clients send
// is valid), a 5xx other than 503, or a 503 without Retry-After or a
// reason; and a summary per phase.
func (c *chaosClient) judge(limit time.Duration) (problems []string, summary []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	type agg struct {
		n       int
		status  map[string]int
		slowest time.Duration
		reasons map[string]bool
	}
	phases := map[string]*agg{}
	var order []string
	for _, call := range c.calls {
		a := phases[call.phase]
		if a == nil {
			a = &agg{status: map[string]int{}, reasons: map[string]bool{}}
			phases[call.phase] = a
			order = append(order, call.phase)
		}
		a.n++
		a.slowest = max(a.slowest, call.took)
		key := strconv.Itoa(call.status)
		if call.status == 0 {
			key = "no answer"
		}
		a.status[key]++
		if call.reason != "" {
			a.reasons[call.reason] = true
		}
		desc := fmt.Sprintf("%s (%s) %d after %v", call.what, call.phase, call.status, call.took.Round(time.Millisecond))
		switch {
		case call.status == 0:
			problems = append(problems, fmt.Sprintf("%s: no answer: %v", desc, call.err))
		case call.took > limit:
			problems = append(problems, fmt.Sprintf("%s: slower than %v", desc, limit))
		}
		switch {
		case call.status >= 400 && call.status < 500:
			problems = append(problems, fmt.Sprintf("%s: a valid request answered %s", desc, call.body))
		case call.status >= 500 && call.status != http.StatusServiceUnavailable:
			problems = append(problems, fmt.Sprintf("%s: want 503 for an outage: %s", desc, call.body))
		case call.status == http.StatusServiceUnavailable && (call.retryAfter == "" || call.reason == ""):
			problems = append(problems, fmt.Sprintf("%s: 503 without Retry-After or a reason: %s", desc, call.body))
		}
	}
	for _, p := range order {
		a := phases[p]
		var st []string
		for k, v := range a.status {
			st = append(st, fmt.Sprintf("%s×%d", k, v))
		}
		sort.Strings(st)
		var rs []string
		for r := range a.reasons {
			rs = append(rs, strconv.Quote(r))
		}
		sort.Strings(rs)
		summary = append(summary, fmt.Sprintf("%-14s %4d requests: %s; slowest %v; reasons: %s", p, a.n, strings.Join(st, " "),
			a.slowest.Round(time.Millisecond), strings.Join(rs, ", ")))
	}
	return problems, summary
}
