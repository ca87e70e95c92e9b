package webhook

import (
	"context"
	"net/http"
	"time"
)

// Spec defaults (spec "Events -> Webhook", "Limits").
const (
	// DefaultMaxRetries is how many times a delivery is retried after its
	// first attempt got a non-200 answer: 10.
	DefaultMaxRetries = 10
	// DefaultRetryInterval is the wait between attempts: 10 seconds.
	DefaultRetryInterval = 10 * time.Second
	// DefaultTimeout bounds one delivery attempt: 10 seconds.
	DefaultTimeout = 10 * time.Second
)

// Outcome is what happens to a delivery after an attempt.
type Outcome int

const (
	// Delivered: the receiver accepted the notification; no more attempts.
	Delivered Outcome = iota + 1
	// Retry: try again after the Backoff, unless the retries are used up,
	// in which case the delivery is permanently failed.
	Retry
	// Fail: give up now; the delivery is permanently failed.
	Fail
)

func (o Outcome) String() string {
	switch o {
	case Delivered:
		return "delivered"
	case Retry:
		return "retry"
	case Fail:
		return "failed"
	}
	return "unknown"
}

// CheckRetry classifies one attempt. resp is the response (its body may
// already be consumed) when the receiver answered, and nil when err is
// non-nil: the URL could not be reached (connection refused, DNS failure,
// timeout, TLS failure, address refused by netguard). An invalid Outcome is
// treated as Fail.
type CheckRetry func(ctx context.Context, resp *http.Response, err error) Outcome

// Backoff returns how long to wait before retry number retry (1 for the
// first retry). resp is the response of the attempt that failed.
type Backoff func(retry int, resp *http.Response) time.Duration

// DefaultCheckRetry is the spec's rule: a 200 response is success; any
// other status is retried; an unreachable URL is not retried.
func DefaultCheckRetry(ctx context.Context, resp *http.Response, err error) Outcome {
	if err != nil || resp == nil {
		return Fail
	}
	if resp.StatusCode == http.StatusOK {
		return Delivered
	}
	return Retry
}

// DefaultBackoff waits DefaultRetryInterval (10 seconds) before every retry.
func DefaultBackoff(retry int, resp *http.Response) time.Duration {
	return DefaultRetryInterval
}

// ConstantBackoff waits d before every retry.
func ConstantBackoff(d time.Duration) Backoff {
	return func(int, *http.Response) time.Duration { return d }
}

// Policy decides what happens after each attempt. Zero fields take the
// default, so Policy{} is DefaultPolicy().
type Policy struct {
	// MaxRetries is how many retries follow the first attempt; after the
	// last one fails the delivery is permanently failed. Default
	// DefaultMaxRetries (10); negative means no retries.
	MaxRetries int
	// CheckRetry classifies an attempt. Default DefaultCheckRetry.
	CheckRetry CheckRetry
	// Backoff spaces the retries. Default DefaultBackoff (10 seconds).
	Backoff Backoff
}

// DefaultPolicy returns the spec's policy: success on 200, 10 retries 10
// seconds apart on any other status, no retry when unreachable.
func DefaultPolicy() Policy {
	return Policy{MaxRetries: DefaultMaxRetries, CheckRetry: DefaultCheckRetry, Backoff: DefaultBackoff}
}

func (p Policy) withDefaults() Policy {
	switch {
	case p.MaxRetries == 0:
		p.MaxRetries = DefaultMaxRetries
	case p.MaxRetries < 0:
		p.MaxRetries = 0
	}
	if p.CheckRetry == nil {
		p.CheckRetry = DefaultCheckRetry
	}
	if p.Backoff == nil {
		p.Backoff = DefaultBackoff
	}
	return p
}
