package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/netguard"
	"github.com/earshot-dev/earshot/transcribe/queue"
)

// UserAgent is the default User-Agent of webhook requests.
const UserAgent = "Earshot-Webhook/1.0 (+https://github.com/earshot-dev/earshot)"

// ErrInvalid is wrapped by Notify's error for a Notification that cannot be
// delivered (unknown event, missing transcript id, bad URL or header).
// That error also wraps transcribe.ErrNotificationRefused, so the Service
// does not retry it.
var ErrInvalid = errors.New("webhook: invalid notification")

// Config configures a Notifier. Zero values mean the documented default;
// Queue and Key are required.
type Config struct {
	// Queue keeps the pending deliveries durably (a database shared by
	// every process, so deliveries survive restarts). Required.
	Queue Queue
	// Key is the 32-byte AES-256-GCM key that seals each delivery's URL,
	// body and auth header before it is queued, bound to the delivery id.
	// Give the notifier its own key (the reference server derives one from
	// the content key). Required.
	Key []byte
	// RedactedAudioURL renders the public download URL of a transcript's
	// redacted audio for the redacted-audio webhook (httpapi.URLs does).
	// Default: none, and EventRedactedAudio notifications are refused.
	RedactedAudioURL func(transcriptID string) string
	// Client sends the requests. Default: netguard.Client with AllowPrivate
	// and Timeout from this Config, following no redirects (a redirect is a
	// non-200 answer). A custom Client is used as is: it is then the
	// caller's job to refuse private addresses.
	Client *http.Client
	// AllowPrivate lets the default Client reach loopback, private and
	// link-local addresses. Default false: they are refused, and such a
	// delivery fails without retries like any unreachable URL.
	AllowPrivate bool
	// Timeout bounds one attempt, from connecting to reading the response.
	// Default DefaultTimeout (10s).
	Timeout time.Duration
	// Policy decides success, retries and their spacing. Zero fields take
	// DefaultPolicy's (the spec's: 200 is success, 10 retries 10 s apart,
	// none when unreachable).
	Policy Policy
	// OnStatus, when set, is called after every attempt of an
	// EventTranscript delivery that got an HTTP status, with that status
	// (wire it to the transcript Store's SetWebhookStatus for
	// webhook_status_code). Its error is logged. Default: none.
	OnStatus func(ctx context.Context, transcriptID string, code int) error
	// Now is the clock that decides when a delivery is due. Default
	// time.Now. Tests pass a fake clock and call DeliverDue, or Run with a
	// short PollInterval, to go through retries without waiting.
	Now func() time.Time
	// PollInterval is how often an idle dispatcher looks for due
	// deliveries (Notify in this process wakes it at once). Default 1s.
	PollInterval time.Duration
	// Lease is how long a claimed delivery stays with this dispatcher; if
	// the process dies mid-attempt another one takes it over after Lease.
	// Default Timeout + 30s; it must exceed Timeout.
	Lease time.Duration
	// Concurrency is how many deliveries Run attempts at once. Default 4.
	Concurrency int
	// Owner names this dispatcher in delivery leases. Default
	// "webhook-<random uuid>".
	Owner string
	// KeepDone is how long a finished (delivered or failed) delivery is
	// kept before Run purges it. Default 24h.
	KeepDone time.Duration
	// PurgeInterval is how often Run purges finished deliveries. Default 10m.
	PurgeInterval time.Duration
	// UserAgent is sent with every request. Default UserAgent.
	UserAgent string
	// Logger receives delivery outcomes and errors. Header values and URL
	// query strings are never logged. Default slog.Default().
	Logger *slog.Logger
	// OnAttempt, when set, receives every attempt whose outcome was
	// decided (an attempt cut off by a shutdown is not one: it is made
	// again), and a stored delivery that cannot be read (dropped as
	// Fail). It is called synchronously from the dispatcher, so it must be
	// quick; metrics collectors are its intended use. Default: none.
	OnAttempt func(AttemptEvent)
}

// AttemptEvent describes one delivery attempt, for Config.OnAttempt.
type AttemptEvent struct {
	// Delivery and TranscriptID identify the delivery.
	Delivery     string
	TranscriptID string
	// Event is the notification's event; "" for an unreadable delivery.
	Event transcribe.Event
	// Attempt counts the attempts of the delivery, this one included (1
	// for the first).
	Attempt int
	// Outcome is what happens to the delivery: Delivered; Retry when
	// another attempt is scheduled; Fail when it is permanently failed
	// (not retried, or its retries are used up).
	Outcome Outcome
	// Code is the HTTP status the receiver answered; 0 when the URL could
	// not be reached.
	Code int
	// Duration is how long the request took, measured with Config.Now.
	Duration time.Duration
}

func (c *Config) validate() error {
	switch {
	case c.Queue == nil:
		return errors.New("webhook: Config.Queue is required")
	case len(c.Key) == 0:
		return errors.New("webhook: Config.Key is required")
	case c.Timeout < 0:
		return errors.New("webhook: Config.Timeout must not be negative")
	case c.PollInterval < 0:
		return errors.New("webhook: Config.PollInterval must not be negative")
	case c.Lease < 0:
		return errors.New("webhook: Config.Lease must not be negative")
	case c.Concurrency < 0:
		return errors.New("webhook: Config.Concurrency must not be negative")
	}
	timeout := c.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	if c.Lease != 0 && c.Lease <= timeout {
		return fmt.Errorf("webhook: Config.Lease (%v) must exceed Config.Timeout (%v)", c.Lease, timeout)
	}
	return nil
}

// Notifier implements transcribe.Notifier with durable delivery: Notify
// stores a sealed delivery, and a dispatcher (Run, or Start and Close)
// claims due deliveries from the store under a lease and POSTs them, so a
// pending delivery or retry survives a restart or a crash of the process.
// Several processes may dispatch from one shared store. Delivery is at
// least once: a process killed after the receiver answered but before the
// outcome was stored repeats that attempt. Safe for concurrent use.
type Notifier struct {
	cfg    Config
	cipher *transcribe.Cipher
	policy Policy
	client *http.Client
	now    func() time.Time
	log    *slog.Logger
	// queue is Config.Queue as a leased queue; run dispatches from it
	// (and purges beside).
	queue queue.Queue[*Delivery]
	run   *queue.Runner[*Delivery]
}

var _ transcribe.Notifier = (*Notifier)(nil)

// New checks cfg and returns a Notifier. Nothing is sent until Run or Start.
func New(cfg Config) (*Notifier, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cipher, err := transcribe.NewCipher(cfg.Key)
	if err != nil {
		return nil, fmt.Errorf("webhook: Config.Key: %w", err)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Lease == 0 {
		cfg.Lease = cfg.Timeout + 30*time.Second
	}
	if cfg.PollInterval == 0 {
		cfg.PollInterval = time.Second
	}
	if cfg.Concurrency == 0 {
		cfg.Concurrency = 4
	}
	if cfg.KeepDone <= 0 {
		cfg.KeepDone = 24 * time.Hour
	}
	if cfg.PurgeInterval <= 0 {
		cfg.PurgeInterval = 10 * time.Minute
	}
	if cfg.Owner == "" {
		cfg.Owner = "webhook-" + uuid.NewString()
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = UserAgent
	}
	n := &Notifier{cfg: cfg, cipher: cipher, policy: cfg.Policy.withDefaults(), client: cfg.Client, now: cfg.Now, log: cfg.Logger}
	if n.client == nil {
		n.client = netguard.Client(netguard.Options{AllowPrivate: cfg.AllowPrivate, Timeout: cfg.Timeout, MaxRedirects: -1})
	}
	if n.now == nil {
		n.now = time.Now
	}
	if n.log == nil {
		n.log = slog.Default()
	}
	n.queue = DeliveryQueue(cfg.Queue, n.now)
	n.run = queue.NewRunner(queue.Config[*Delivery]{
		Queue: n.queue,
		// An attempt in flight is finished (within Timeout) even when the
		// dispatcher stops, so a shutdown does not repeat it later.
		Handle: func(ctx context.Context, _ string, d *Delivery) bool {
			n.attempt(context.WithoutCancel(ctx), d)
			return true
		},
		ID:           func(d *Delivery) string { return d.ID },
		Workers:      cfg.Concurrency,
		Owner:        func(int) string { return cfg.Owner },
		Lease:        cfg.Lease,
		PollInterval: cfg.PollInterval,
		Now:          n.now,
		OnError: func(id string, err error) {
			if id == "" {
				n.log.Error("webhook: claiming a delivery", "err", err)
			} else {
				n.log.Warn("webhook: extending a delivery's lease", "delivery", id, "err", err)
			}
		},
		Background: []func(context.Context){n.purger},
	})
	return n, nil
}

// payload is what a delivery's sealed Data holds. The URL and header are
// kept as bytes (base64 in JSON) so that no byte is changed: JSON strings
// would turn invalid UTF-8 into U+FFFD.
type payload struct {
	Event       transcribe.Event `json:"event"`
	URL         []byte           `json:"url"`
	Body        json.RawMessage  `json:"body"`
	HeaderName  []byte           `json:"header_name,omitempty"`
	HeaderValue []byte           `json:"header_value,omitempty"`
}

type transcriptBody struct {
	TranscriptID string            `json:"transcript_id"`
	Status       transcribe.Status `json:"status"`
}

type redactedAudioBody struct {
	Status           string `json:"status"`
	RedactedAudioURL string `json:"redacted_audio_url"`
}

// refused marks an invalid notification for the Service (its text is
// empty, so the message stays the webhook package's).
var refused error = refusedError{}

type refusedError struct{}

func (refusedError) Error() string        { return "" }
func (refusedError) Is(target error) bool { return target == transcribe.ErrNotificationRefused }

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s%w", ErrInvalid, fmt.Sprintf(format, args...), refused)
}

// Body returns the JSON request body sent for n: {"transcript_id","status"}
// for EventTranscript and {"status":"redacted_audio_ready",
// "redacted_audio_url"} for EventRedactedAudio, whose URL is
// redactedAudioURL. It returns an error wrapping ErrInvalid when n lacks
// what its event needs.
func Body(n transcribe.Notification, redactedAudioURL string) ([]byte, error) {
	if n.TranscriptID == "" {
		return nil, invalid("transcript id is empty")
	}
	switch n.Event {
	case transcribe.EventTranscript:
		if n.Status != transcribe.StatusCompleted && n.Status != transcribe.StatusError {
			return nil, invalid("status %q is not completed or error", n.Status)
		}
		return json.Marshal(transcriptBody{TranscriptID: n.TranscriptID, Status: n.Status})
	case transcribe.EventRedactedAudio:
		if redactedAudioURL == "" {
			return nil, invalid("redacted audio URL is empty")
		}
		return json.Marshal(redactedAudioBody{Status: "redacted_audio_ready", RedactedAudioURL: redactedAudioURL})
	}
	return nil, invalid("unknown event %q", n.Event)
}

func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("()<>@,;:\\\"/[]?={}", c) >= 0 {
			return false
		}
	}
	return true
}

// validHeaderValue reports whether s can be sent as an HTTP header value:
// no control characters other than horizontal tab (RFC 9110 field-value;
// Go's client refuses the others).
func validHeaderValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// Notify implements transcribe.Notifier: it validates n and stores it as a
// pending delivery, due now, then wakes the dispatcher. It does no network
// I/O. A Notification with a Key gets a delivery id derived from it, so
// the same Key again finds its delivery already stored and queues nothing
// (nil error): re-sending an outbox is harmless. The error wraps
// ErrInvalid for a bad Notification, or is the store's error.
func (n *Notifier) Notify(ctx context.Context, note transcribe.Notification) error {
	var audioURL string
	if note.Event == transcribe.EventRedactedAudio && note.TranscriptID != "" {
		if n.cfg.RedactedAudioURL == nil {
			return invalid("redacted-audio webhooks need Config.RedactedAudioURL")
		}
		audioURL = n.cfg.RedactedAudioURL(note.TranscriptID)
	}
	body, err := Body(note, audioURL)
	if err != nil {
		return err
	}
	u, err := url.Parse(note.URL)
	if err != nil {
		return invalid("webhook URL: %v", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return invalid("webhook URL must be an absolute http or https URL")
	}
	if strings.IndexFunc(note.URL, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
		return invalid("webhook URL contains a space or control character; percent-encode it")
	}
	if note.HeaderName != "" && !validHeaderName(note.HeaderName) {
		return invalid("auth header name %q is not a valid HTTP header name", note.HeaderName)
	}
	if note.HeaderName == "" && note.HeaderValue != "" {
		return invalid("auth header value given without a header name")
	}
	if !validHeaderValue(note.HeaderValue) {
		return invalid("auth header value contains a control character (line breaks and NUL included)")
	}
	plain, err := json.Marshal(payload{Event: note.Event, URL: []byte(note.URL), Body: body, HeaderName: []byte(note.HeaderName), HeaderValue: []byte(note.HeaderValue)})
	if err != nil {
		return fmt.Errorf("webhook: encoding delivery: %w", err)
	}
	d := &Delivery{
		ID:           uuid.NewString(),
		TranscriptID: note.TranscriptID,
		NextAttempt:  n.now(),
	}
	if note.Key != "" {
		d.ID = uuid.NewSHA1(keySpace, []byte(note.Key)).String()
	}
	d.Data = n.cipher.Seal(d.ID, plain)
	if err := n.cfg.Queue.AddDelivery(ctx, d); note.Key != "" && errors.Is(err, transcribe.ErrExists) {
		n.log.Info("webhook: notification already queued", "delivery", d.ID, "transcript", note.TranscriptID, "event", note.Event)
		return nil
	} else if err != nil {
		return fmt.Errorf("webhook: storing delivery for transcript %s: %w", note.TranscriptID, err)
	}
	n.poke()
	return nil
}

// keySpace is the UUID namespace of delivery ids derived from a
// Notification's Key (UUID version 5).
var keySpace = uuid.MustParse("6f4a1c52-8b0e-4d8e-9a61-3f3c1f0e2b7d")

func (n *Notifier) poke() { n.run.Wake() }

// Run dispatches deliveries until ctx is done: Concurrency workers claim
// due deliveries from the store and attempt them, and sleep PollInterval
// (or until Notify wakes them) when none is due; a claimed delivery's
// lease is extended while its attempt runs. When ctx is done, Run lets
// the attempts in flight finish (each is bounded by Timeout), stores
// their outcome and returns nil; deliveries not yet attempted stay in the
// store for the next dispatcher.
func (n *Notifier) Run(ctx context.Context) error { return n.run.Run(ctx) }

// purger deletes finished deliveries older than KeepDone, every
// PurgeInterval, starting at once.
func (n *Notifier) purger(ctx context.Context) {
	queue.Every(ctx, n.cfg.PurgeInterval, func(ctx context.Context) {
		if k, err := n.cfg.Queue.PurgeDeliveries(ctx, n.now().Add(-n.cfg.KeepDone), 1000); err != nil && ctx.Err() == nil {
			n.log.Warn("webhook: purging finished deliveries", "err", err)
		} else if k > 0 {
			n.log.Info("webhook: finished deliveries purged", "count", k)
		}
	})
}

// Start runs Run in the background until Close. Calling it twice, or after
// Close, does nothing.
func (n *Notifier) Start() { n.run.Start() }

// Close stops the dispatcher started by Start, waits for the attempts in
// flight (each is bounded by Timeout) and closes the idle connections of
// the default Client. Pending deliveries stay in the store. It does not
// close the Store. Start after Close does nothing.
func (n *Notifier) Close() error {
	n.run.Stop()
	n.run.Wait(context.Background())
	if n.cfg.Client == nil {
		n.client.CloseIdleConnections() // our own client: free its pooled connections
	}
	return nil
}

// DeliverDue attempts, one after another, every delivery due at Now, and
// returns how many attempts it made. A delivery rescheduled for later by
// its attempt is not attempted again. Unlike Run, an attempt cut short by
// ctx is not counted: the delivery is left in the store, due at once. It is for tests with a fake clock
// and for tools that flush deliveries without a running dispatcher.
func (n *Notifier) DeliverDue(ctx context.Context) (int, error) {
	claim := func() Claim { return Claim{Owner: n.cfg.Owner, Now: n.now(), Lease: n.cfg.Lease} }
	return queue.Drain(ctx, n.queue, claim, n.attempt)
}

// redact drops the query, fragment and user info of a URL for logs.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
}

// errText is err's message without the request URL, whose query may hold
// secrets.
func errText(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

// attempt makes one attempt of d, which this dispatcher has claimed, and
// stores the outcome.
func (n *Notifier) attempt(ctx context.Context, d *Delivery) {
	log := n.log.With("delivery", d.ID, "transcript", d.TranscriptID)
	plain, err := n.cipher.Open(d.ID, d.Data)
	var p payload
	if err == nil {
		err = json.Unmarshal(plain, &p)
	}
	if err != nil {
		log.Error("webhook: cannot read stored delivery; dropping it", "err", err)
		n.observe(AttemptEvent{Delivery: d.ID, TranscriptID: d.TranscriptID, Attempt: d.Attempts, Outcome: Fail})
		n.finish(ctx, log, d, true)
		return
	}
	log = log.With("url", redact(string(p.URL)), "event", p.Event)

	sent := n.now()
	resp, outcome, err := n.send(ctx, &p)
	took := n.now().Sub(sent)
	// The bookkeeping gets a context of its own, started after the attempt:
	// an attempt that used its whole timeout (a slow receiver) must not
	// leave the outcome unstored, or the delivery would be sent again and
	// again when its lease runs out. It also finishes when ctx is cancelled
	// right after the receiver answered.
	bg, cancelBG := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancelBG()
	code := 0
	if resp != nil {
		code = resp.StatusCode
	}
	if err != nil && ctx.Err() != nil {
		// Shutting down: leave the delivery for the next dispatcher.
		log.Info("webhook: attempt interrupted by shutdown; will be retried", "err", errText(err))
		if uerr := n.queue.RetryAt(bg, d, n.cfg.Owner, d.NextAttempt); uerr != nil {
			log.Warn("webhook: releasing delivery", "err", uerr)
		}
		return
	}
	d.Attempts++
	ev := AttemptEvent{Delivery: d.ID, TranscriptID: d.TranscriptID, Event: p.Event, Attempt: d.Attempts, Outcome: Fail, Code: code, Duration: took}
	if code != 0 && p.Event == transcribe.EventTranscript && n.cfg.OnStatus != nil && d.TranscriptID != "" {
		if serr := n.cfg.OnStatus(bg, d.TranscriptID, code); serr != nil {
			log.Warn("webhook: recording webhook_status_code", "code", code, "err", serr)
		}
	}
	switch {
	case outcome == Delivered:
		log.Info("webhook: delivered", "code", code, "attempt", d.Attempts)
		ev.Outcome = Delivered
		n.observe(ev)
		n.finish(bg, log, d, true)
	case outcome == Retry && d.Attempts <= n.policy.MaxRetries:
		wait := n.policy.Backoff(d.Attempts, resp)
		if wait < 0 {
			wait = 0
		}
		d.NextAttempt = n.now().Add(wait)
		log.Info("webhook: attempt failed; will retry", "code", code, "attempt", d.Attempts, "retry_in", wait)
		ev.Outcome = Retry
		n.observe(ev)
		n.finish(bg, log, d, false)
	default:
		reason := fmt.Sprintf("HTTP %d", code)
		if err != nil {
			reason = errText(err)
		}
		if outcome == Retry {
			log.Warn("webhook: permanently failed after retries", "attempts", d.Attempts, "last", reason)
		} else {
			log.Warn("webhook: permanently failed", "attempts", d.Attempts, "reason", reason)
		}
		n.observe(ev)
		n.finish(bg, log, d, true)
	}
}

// observe passes e to Config.OnAttempt, if set.
func (n *Notifier) observe(e AttemptEvent) {
	if n.cfg.OnAttempt != nil {
		n.cfg.OnAttempt(e)
	}
}

// storeTimeout bounds the storing of one attempt's outcome.
const storeTimeout = 10 * time.Second

// finish stores d's outcome and releases its lease. A finished delivery's
// NextAttempt becomes the time it finished, which PurgeDeliveries goes by.
func (n *Notifier) finish(ctx context.Context, log *slog.Logger, d *Delivery, done bool) {
	var err error
	if done {
		ctx2, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
		defer cancel()
		err = n.queue.Complete(ctx2, d, n.cfg.Owner)
	} else {
		err = n.queue.RetryAt(ctx, d, n.cfg.Owner, d.NextAttempt)
	}
	if err != nil {
		if errors.Is(err, transcribe.ErrLeaseLost) {
			log.Warn("webhook: delivery lease was taken over before the outcome was stored", "err", err)
			return
		}
		log.Error("webhook: storing delivery outcome", "err", err)
	}
}

// send POSTs p once. resp (its body already drained and closed) is nil
// when the URL could not be reached.
func (n *Notifier) send(ctx context.Context, p *payload) (*http.Response, Outcome, error) {
	actx, cancel := context.WithTimeout(ctx, n.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, string(p.URL), bytes.NewReader(p.Body))
	if err != nil {
		return nil, Fail, fmt.Errorf("webhook: bad URL: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", n.cfg.UserAgent)
	if len(p.HeaderName) > 0 {
		req.Header.Set(string(p.HeaderName), string(p.HeaderValue))
	}
	resp, err := n.client.Do(req)
	if err != nil {
		return nil, n.check(actx, nil, err), err
	}
	// Drain a little so the connection can be reused; the body is ignored.
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return resp, n.check(actx, resp, nil), nil
}

func (n *Notifier) check(ctx context.Context, resp *http.Response, err error) Outcome {
	o := n.policy.CheckRetry(ctx, resp, err)
	if o != Delivered && o != Retry && o != Fail {
		return Fail
	}
	return o
}
