package httpapi

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/earshot-dev/earshot/export"
	"github.com/earshot-dev/earshot/httpapi/openapi"
	"github.com/earshot-dev/earshot/internal/httpguard"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// Authenticator maps an API key to its project.
type Authenticator interface {
	// Project returns the project of key, or ok false for an unknown key.
	Project(key string) (project string, ok bool)
}

// Keys is an Authenticator over a fixed key→project map.
type Keys map[string]string

// Project implements Authenticator.
func (k Keys) Project(key string) (string, bool) {
	p, ok := k[key]
	return p, ok && key != ""
}

// Config configures the API. Service, Auth and URLs are required.
type Config struct {
	Service *transcribe.Service
	Auth    Authenticator
	// URLs renders the URLs the API hands out on the public origin (see
	// NewURLs). Required.
	URLs *URLs
	// Realtime serves GET /v2/realtime/ws and /v2/realtime/ws/{session_id}.
	// Default: not mounted (404).
	Realtime http.Handler
	// RealtimeToken serves POST /v2/realtime/token. Default: not mounted.
	RealtimeToken http.Handler
	// Streaming serves Universal-Streaming's GET /v3/ws, and
	// StreamingToken its GET /v3/token (package realtime/universal).
	// Default: not mounted.
	Streaming, StreamingToken http.Handler
	// LeMUR serves /lemur/v3/... (package httpapi/lemur; see LeMUR).
	// Default: none, and those routes answer 400 saying that no language
	// model is configured.
	LeMUR LeMUR
	// MaxJSONBytes caps JSON request bodies. Default 1 MiB.
	MaxJSONBytes int64
	// RateLimit is the sustained per-project request rate (requests per
	// second); 0 means the default of 50, negative disables rate limiting.
	RateLimit float64
	// RateBurst is the per-project burst. Default 100.
	RateBurst int
	// AuthFailureRate is the sustained rate of failed authentications
	// allowed per client address (requests per second, burst 10 times
	// that); beyond it the address gets 429 before its key is even looked
	// at, except for keys that authenticated from that address within the
	// last hour (so guesses do not lock out the valid keys used beside
	// them). 0 means the default of 5; negative disables the limit.
	AuthFailureRate float64
	// Guard, when set, applies the limits above instead of a Guard made
	// from RateLimit, RateBurst and AuthFailureRate (which are then
	// ignored): give every front end of a server the same Guard (the
	// realtime Handler and an openaiapi Handler too) so that a project
	// and a client address have one budget whatever endpoint or listener
	// they use. Default: a Guard of this API's own.
	Guard *Guard
	// BodyIdleTimeout is how long a request body may go without sending a
	// byte before the request is cut off; each byte that arrives resets
	// it, so an upload of any size works while it keeps flowing. Default
	// 30s.
	BodyIdleTimeout time.Duration
	// Logger receives errors. Default slog.Default().
	Logger *slog.Logger
	// Endpoints selects the endpoint set served: EndpointsAll (default)
	// or EndpointsEU (see Endpoints).
	Endpoints Endpoints
	// OtherRegions are the URLs of the deployment's other regions: an
	// audio_url that is one of their upload URLs is refused with 400,
	// since uploads never cross regions. Default: none (such a URL is
	// fetched like any other audio_url).
	OtherRegions []*URLs
	// OnRequest, when set, receives every request once its handler has
	// returned (see RequestInfo), for metrics and access logs. It is
	// called synchronously, so it must be quick. Default: none.
	OnRequest func(RequestInfo)
	// StoreTimeout bounds the time a request spends on anything but
	// reading its body (its store calls, in practice): past it the
	// request is answered 503 with Retry-After (see withStoreDeadline).
	// 0 means DefaultStoreTimeout; negative disables it.
	StoreTimeout time.Duration
	// Idempotency keeps the Idempotency-Key records of creates and
	// uploads (see submitOnce). Give it the store several processes
	// share (storage/sqlite and storage/postgres implement
	// driver.IdempotencyStore) so that a retry reaching another
	// process gets the same answer. Default: this process's memory.
	Idempotency driver.IdempotencyStore
}

func (c *Config) validate() error {
	if c.Service == nil {
		return errors.New("httpapi: Config.Service is required")
	}
	if c.Auth == nil {
		return errors.New("httpapi: Config.Auth is required")
	}
	if c.URLs == nil {
		return errors.New("httpapi: Config.URLs is required (httpapi.NewURLs)")
	}
	return c.Endpoints.validate(c)
}

// API is an http.Handler serving the AssemblyAI v2 REST endpoints (and the
// realtime endpoints when configured). Mount it at the root of a mux: the
// Go SDK drops any path prefix of its base URL. Safe for concurrent use.
type API struct {
	cfg  Config
	svc  *transcribe.Service
	urls *URLs
	mux  *http.ServeMux
	log  *slog.Logger
	idem idemState
	// pages are the list pages rendered (list.go).
	pages renderedPages

	guard *Guard
}

// New returns the API handler.
func New(cfg Config) (*API, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.MaxJSONBytes <= 0 {
		cfg.MaxJSONBytes = 1 << 20
	}
	if cfg.BodyIdleTimeout <= 0 {
		cfg.BodyIdleTimeout = 30 * time.Second
	}
	guard := cfg.Guard
	if guard == nil {
		var err error
		guard, err = NewGuard(GuardConfig{RateLimit: cfg.RateLimit, RateBurst: max(cfg.RateBurst, 0), AuthFailureRate: cfg.AuthFailureRate})
		if err != nil {
			return nil, fmt.Errorf("httpapi: %w", err)
		}
	}
	a := &API{cfg: cfg, svc: cfg.Service, urls: cfg.URLs, mux: http.NewServeMux(), log: logger(cfg.Logger), guard: guard}
	a.routes()
	return a, nil
}

type handler func(w http.ResponseWriter, r *http.Request, project string)

func (a *API) routes() {
	m := a.mux
	m.HandleFunc("/v2/upload", a.method(map[string]handler{"POST": a.upload}))
	m.HandleFunc("/v2/transcript", a.method(map[string]handler{"POST": a.submit, "GET": a.list}))
	m.HandleFunc("/v2/transcript/{id}", a.method(map[string]handler{"GET": a.get, "DELETE": a.delete}))
	m.HandleFunc("/v2/transcript/{id}/word-search", a.method(map[string]handler{"GET": a.wordSearch}))
	m.HandleFunc("/v2/transcript/{id}/redacted-audio", a.method(map[string]handler{"GET": a.redactedAudio}))
	m.HandleFunc("GET /v2/redacted-audio/{id}/{sig}", a.redactedFile)
	if a.cfg.Endpoints == EndpointsEU {
		// The EU set ends here: everything else is the JSON 404 below.
		m.HandleFunc("/", a.notFound)
		return
	}
	m.HandleFunc("/v2/transcript/{id}/sentences", a.method(map[string]handler{"GET": a.sentences}))
	m.HandleFunc("/v2/transcript/{id}/paragraphs", a.method(map[string]handler{"GET": a.paragraphs}))
	m.HandleFunc("/v2/transcript/{id}/{format}", a.method(map[string]handler{"GET": a.subtitles}))
	a.lemurRoutes(m)
	if a.cfg.Realtime != nil {
		m.Handle("/v2/realtime/ws", a.cfg.Realtime)
		m.Handle("/v2/realtime/ws/{session_id}", a.cfg.Realtime)
	}
	if a.cfg.RealtimeToken != nil {
		m.Handle("/v2/realtime/token", a.limited(a.cfg.RealtimeToken))
	}
	if a.cfg.Streaming != nil {
		m.Handle("/v3/ws", a.cfg.Streaming)
	}
	if a.cfg.StreamingToken != nil {
		m.Handle("/v3/token", a.limited(a.cfg.StreamingToken))
	}
	// The OpenAPI 3.1 document of this API, without authentication.
	m.Handle("GET /openapi.json", openapi.Handler()) // openapi.Path
	m.HandleFunc("/", a.notFound)
}

// notFound answers a path the API does not serve.
func (a *API) notFound(w http.ResponseWriter, r *http.Request) {
	writeError(w, http.StatusNotFound, fmt.Sprintf("no endpoint %s %s", r.Method, r.URL.Path))
}

// ServeHTTP implements http.Handler. Every request gets an id (see
// WithRequestID) on its response and in its context.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r = withRequestID(w, r)
	if a.cfg.OnRequest != nil {
		start := time.Now()
		_, pattern := a.mux.Handler(r)
		sw := &statusWriter{ResponseWriter: w}
		w = sw
		defer func() {
			a.cfg.OnRequest(RequestInfo{Method: r.Method, Route: routeOf(pattern), Path: r.URL.Path, Status: cmp.Or(sw.status, http.StatusOK),
				Duration: time.Since(start), Written: sw.written, RequestID: RequestID(r.Context())})
		}()
	}
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			a.log.ErrorContext(r.Context(), "panic serving request", "method", r.Method, "path", r.URL.Path, "panic", v)
			writeError(w, http.StatusInternalServerError, "Internal server error")
		}
	}()
	a.mux.ServeHTTP(w, r)
}

// Authenticate returns the project of the request's authorization header.
// The official SDKs send the raw key; "Bearer <key>" is accepted too.
func (a *API) Authenticate(r *http.Request) (string, bool) { return Authenticate(a.cfg.Auth, r) }

// Authenticate returns the project of r's authorization header under auth
// (the raw key, or "Bearer <key>"). It is the one function every entry
// point authenticates with, the realtime WebSocket included.
func Authenticate(auth Authenticator, r *http.Request) (string, bool) {
	key := httpguard.Credential(r)
	if key == "" {
		return "", false
	}
	return auth.Project(key)
}

// AuthFunc returns Authenticate bound to auth, in the form
// realtime.Config.Authenticate takes.
func AuthFunc(auth Authenticator) func(r *http.Request) (string, bool) {
	return func(r *http.Request) (string, bool) { return Authenticate(auth, r) }
}

// method dispatches by HTTP method after authentication and rate limiting,
// answering 405 with a JSON error for other methods. The handler's store
// calls run under the request's store deadline (withStoreDeadline).
func (a *API) method(hs map[string]handler) http.HandlerFunc { return a.dispatch(hs, true) }

// dispatch is method; storeDeadline false leaves the handler to bound its
// own store calls (LeMUR, which waits on a model for minutes).
func (a *API) dispatch(hs map[string]handler, storeDeadline bool) http.HandlerFunc {
	allow := make([]string, 0, len(hs))
	for m := range hs {
		allow = append(allow, m)
	}
	slices.Sort(allow)
	return func(w http.ResponseWriter, r *http.Request) {
		project, ok := a.authenticated(w, r)
		if !ok {
			return
		}
		h, ok := hs[r.Method]
		if !ok {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("method %s is not allowed on %s", r.Method, r.URL.Path))
			return
		}
		if wait, ok := a.allow(r.Context(), project, r.Method == http.MethodGet); !ok {
			w.Header().Set("Retry-After", retryAfter(wait))
			writeError(w, http.StatusTooManyRequests, "Too many requests: the rate limit of this project is exceeded")
			return
		}
		if storeDeadline {
			var done func()
			r, done = a.withStoreDeadline(r)
			defer done()
		}
		h(w, r, project)
	}
}

// limited applies the per-project rate limit to a handler that does its
// own authentication (the realtime token endpoint); unauthenticated
// requests pass through for it to refuse.
func (a *API) limited(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if project, ok := a.Authenticate(r); ok {
			if wait, ok := a.allow(r.Context(), project, false); !ok {
				w.Header().Set("Retry-After", retryAfter(wait))
				writeError(w, http.StatusTooManyRequests, "Too many requests: the rate limit of this project is exceeded")
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// allow spends one request of project's budget (Guard.Allow): GETs
// (polling) wait up to MaxGetWait for a token; other requests are refused
// at once.
func (a *API) allow(ctx context.Context, project string, isGet bool) (time.Duration, bool) {
	return a.guard.Allow(ctx, project, isGet)
}

func (a *API) upload(w http.ResponseWriter, r *http.Request, project string) {
	u, err := a.uploadOnce(w, r, project)
	if err != nil {
		// A body that ends early or stops flowing is the client's failed
		// upload (422), even when the client is gone by now.
		var re *transcribe.ReadError
		if errors.Is(err, transcribe.ErrEmptyUpload) || errors.As(err, &re) {
			// The spec: 422 with a plain-text body.
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusUnprocessableEntity)
			if errors.Is(err, transcribe.ErrEmptyUpload) {
				io.WriteString(w, "Upload failed: the request body is empty\n")
			} else {
				io.WriteString(w, "Upload failed: the request body could not be read\n")
			}
			return
		}
		a.writeErr(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"upload_url": a.urls.Upload(u.ID)})
}

// decodeJSON reads one JSON object from the body, capped at MaxJSONBytes.
// Its errors are a *bodyError: the request's fault (400 or 413), told
// apart from the same error types (io.ErrUnexpectedEOF) out of a store.
func (a *API) decodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	body := http.MaxBytesReader(w, a.body(w, r), a.cfg.MaxJSONBytes)
	b, err := io.ReadAll(body)
	if err != nil {
		return asBodyError(err)
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return asBodyError(errBadJSON)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(v); err != nil {
		return asBodyError(err)
	}
	if dec.More() {
		return asBodyError(errBadJSON)
	}
	return nil
}

func (a *API) submit(w http.ResponseWriter, r *http.Request, project string) {
	var p transcribe.TranscriptParams
	if err := a.decodeJSON(w, r, &p); err != nil {
		a.writeErr(w, r, err)
		return
	}
	req := transcribe.SubmitRequest{Params: p}
	if id, ok := a.urls.UploadID(p.AudioURL); ok {
		req.UploadID = id
	} else if err := a.foreignUpload(p.AudioURL); err != nil {
		a.writeErr(w, r, err)
		return
	}
	a.submitOnce(w, r, project, req)
}

// get serves the transcript as rendered when it last changed
// (Service.ReadJSON): no decoding or encoding per request, and the bytes
// are written from the buffer they were decrypted into.
func (a *API) get(w http.ResponseWriter, r *http.Request, project string) {
	err := a.svc.ReadJSON(r.Context(), project, r.PathValue("id"), func(b []byte) {
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(b)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(b)
	})
	if err != nil {
		a.writeErr(w, r, err)
	}
}

func (a *API) delete(w http.ResponseWriter, r *http.Request, project string) {
	t, err := a.svc.Delete(r.Context(), project, r.PathValue("id"))
	if err != nil {
		a.writeErr(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, t)
}

// completed fetches a completed transcript for an export endpoint, writing
// the error itself. notFound is the status for an unknown transcript.
func (a *API) completed(w http.ResponseWriter, r *http.Request, project string, notFound int) *transcribe.Transcript {
	t, err := a.svc.GetCompleted(r.Context(), project, r.PathValue("id"))
	if err != nil {
		if errors.Is(err, transcribe.ErrNotFound) {
			writeError(w, notFound, "Transcript not found")
			return nil
		}
		a.writeErr(w, r, err)
		return nil
	}
	return t
}

func (a *API) sentences(w http.ResponseWriter, r *http.Request, project string) {
	if t := a.completed(w, r, project, http.StatusNotFound); t != nil {
		writeJSON(w, http.StatusOK, export.Sentences(t))
	}
}

func (a *API) paragraphs(w http.ResponseWriter, r *http.Request, project string) {
	if t := a.completed(w, r, project, http.StatusNotFound); t != nil {
		writeJSON(w, http.StatusOK, export.Paragraphs(t))
	}
}

func (a *API) wordSearch(w http.ResponseWriter, r *http.Request, project string) {
	raw := r.URL.Query().Get("words")
	terms, err := export.ParseSearchTerms(raw)
	if err != nil {
		a.writeErr(w, r, err)
		return
	}
	if t := a.completed(w, r, project, http.StatusNotFound); t != nil {
		writeJSON(w, http.StatusOK, export.Search(t, terms))
	}
}

// subtitles serves /srt and /vtt. Other formats are 404 with the text body
// "404: Not Found"; an unknown transcript is 400 with a JSON error, as the
// spec says.
func (a *API) subtitles(w http.ResponseWriter, r *http.Request, project string) {
	format := r.PathValue("format")
	if format != "srt" && format != "vtt" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, "404: Not Found")
		return
	}
	chars := 0
	if v := r.URL.Query().Get("chars_per_caption"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			writeError(w, http.StatusBadRequest, "chars_per_caption: must be a non-negative integer")
			return
		}
		chars = n
	}
	t := a.completed(w, r, project, http.StatusBadRequest)
	if t == nil {
		return
	}
	var out []byte
	if format == "srt" {
		out = export.SRT(t, chars)
	} else {
		out = export.VTT(t, chars)
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	w.Write(out)
}

func (a *API) redactedAudio(w http.ResponseWriter, r *http.Request, project string) {
	id := r.PathValue("id")
	if _, err := a.svc.RedactedAudio(r.Context(), project, id); err != nil {
		a.writeErr(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{
		"status":             "redacted_audio_ready",
		"redacted_audio_url": a.urls.RedactedAudio(id),
	})
}

// redactedFile serves the redacted audio without an API key; the URL
// carries an unguessable signature, and the Service refuses audio past its
// lifetime.
func (a *API) redactedFile(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !a.urls.validRedacted(id, r.PathValue("sig")) {
		writeError(w, http.StatusNotFound, "redacted audio not found or expired")
		return
	}
	rc, info, err := a.svc.OpenRedactedAudio(r.Context(), id)
	if err != nil {
		if errors.Is(err, transcribe.ErrNotFound) || errors.Is(err, transcribe.ErrNotReady) {
			writeError(w, http.StatusNotFound, "redacted audio not found or expired")
			return
		}
		a.writeErr(w, r, err)
		return
	}
	defer rc.Close()
	ct := "audio/mpeg"
	if info.Format == "wav" {
		ct = "audio/wav"
	}
	name := "redacted-" + id + "." + info.Format
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", name))
	if _, err := io.Copy(w, rc); err != nil && !errors.Is(err, context.Canceled) {
		a.log.Warn("sending redacted audio", "id", id, "err", err)
	}
}
