package openaiapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/earshot-dev/earshot/httpapi"
	"github.com/earshot-dev/earshot/internal/httpguard"
	"github.com/earshot-dev/earshot/transcribe"
)

// Model is one entry of GET /v1/models (openai-node src/resources/models.ts
// Model).
type Model struct {
	ID      string `json:"id"`
	Object  string `json:"object"` // always "model"
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"` // always "earshot"
}

// ModelList is the body of GET /v1/models.
type ModelList struct {
	Object string  `json:"object"` // always "list"
	Data   []Model `json:"data"`
}

// Handler serves OpenAI's audio API over a transcribe.Service: POST
// /v1/audio/transcriptions, GET /v1/models and GET /v1/models/{id}. Mount
// it at "/v1/" of the mux that serves the AssemblyAI API. It is safe for
// concurrent use; Close ends the requests still waiting.
type Handler struct {
	cfg     Config
	svc     *transcribe.Service
	log     *slog.Logger
	mux     *http.ServeMux
	models  []Model
	engines map[string]*transcribe.Engine // every accepted model name
	listed  string                        // the listed model names, for errors

	mu      sync.Mutex // guards closed and wg.Add against Close
	closed  bool
	closing chan struct{}
	wg      sync.WaitGroup
}

// New checks cfg and returns a Handler.
func New(cfg Config) (*Handler, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	h := &Handler{cfg: cfg, svc: cfg.Service, log: cfg.Logger, mux: http.NewServeMux(),
		engines: map[string]*transcribe.Engine{}, closing: make(chan struct{})}
	byName := map[string]*transcribe.Engine{}
	for i := range cfg.Engines {
		byName[cfg.Engines[i].Name] = &cfg.Engines[i]
	}
	// Accepted names, as the Service resolves them: engine names and
	// aliases, then this handler's aliases, then the AssemblyAI API's model
	// names that no engine claims (they select the default engine).
	for i := range cfg.Engines {
		e := &cfg.Engines[i]
		h.engines[e.Name] = e
		for _, a := range e.Aliases {
			if _, ok := h.engines[a]; !ok {
				h.engines[a] = e
			}
		}
	}
	for alias, target := range cfg.Aliases {
		if _, ok := h.engines[alias]; !ok {
			h.engines[alias] = byName[target]
		}
	}
	for _, m := range transcribe.KnownSpeechModels() {
		if _, ok := h.engines[m]; !ok {
			h.engines[m] = &cfg.Engines[0]
		}
	}
	// Listed: the aliases (whisper-1 first), then the engines and their
	// aliases (not the AssemblyAI API's model names).
	created := cfg.Now().Unix()
	var ids []string
	aliases := make([]string, 0, len(cfg.Aliases))
	for a := range cfg.Aliases {
		aliases = append(aliases, a)
	}
	sort.Slice(aliases, func(i, j int) bool {
		if (aliases[i] == DefaultModel) != (aliases[j] == DefaultModel) {
			return aliases[i] == DefaultModel
		}
		return aliases[i] < aliases[j]
	})
	for _, id := range append(aliases, engineNames(cfg.Engines)...) {
		if slices.Contains(transcribe.KnownSpeechModels(), id) && !slices.Contains(aliases, id) && byName[id] == nil {
			continue
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
			h.models = append(h.models, Model{ID: id, Object: "model", Created: created, OwnedBy: "earshot"})
		}
	}
	h.listed = strings.Join(ids, ", ")
	h.mux.HandleFunc("/v1/audio/transcriptions", h.method(http.MethodPost, h.transcriptions))
	h.mux.HandleFunc("/v1/models", h.method(http.MethodGet, h.listModels))
	h.mux.HandleFunc("/v1/models/{id}", h.method(http.MethodGet, h.getModel))
	h.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if _, ok := h.authenticated(w, r); ok {
			writeError(w, &Error{Status: http.StatusNotFound, Type: TypeInvalidRequest,
				Message: fmt.Sprintf("Invalid URL (%s %s)", r.Method, r.URL.Path)})
		}
	})
	return h, nil
}

// engineNames lists each engine's name and then its aliases.
func engineNames(es []transcribe.Engine) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Name)
		out = append(out, e.Aliases...)
	}
	return out
}

// Models returns the models GET /v1/models lists.
func (h *Handler) Models() []Model { return slices.Clone(h.models) }

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			h.log.Error("panic serving request", "method", r.Method, "path", r.URL.Path, "panic", v)
			writeError(w, serverError(http.StatusInternalServerError, "The server had an error while processing your request."))
		}
	}()
	h.mux.ServeHTTP(w, r)
}

// Close makes new transcription requests fail with 503, ends the ones
// still waiting (503, their transcripts deleted, which stops their jobs),
// deletes the transcripts of requests whose clients went away, and waits
// for all that to finish or for ctx to end. Call it before shutting the
// HTTP server down, so that waiting requests do not hold the shutdown up,
// and before closing the Service's store. Calling it again only waits.
func (h *Handler) Close(ctx context.Context) error {
	h.mu.Lock()
	if !h.closed {
		h.closed = true
		close(h.closing)
	}
	h.mu.Unlock()
	done := make(chan struct{})
	go func() { h.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// enter counts a unit of work that Close waits for; false once closed.
func (h *Handler) enter() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.wg.Add(1)
	return true
}

type handlerFunc func(w http.ResponseWriter, r *http.Request, project string)

// method authenticates, then dispatches one method, answering others with
// 405 in OpenAI's error shape.
func (h *Handler) method(method string, fn handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		project, ok := h.authenticated(w, r)
		if !ok {
			return
		}
		if r.Method != method {
			w.Header().Set("Allow", method)
			writeError(w, &Error{Status: http.StatusMethodNotAllowed, Type: TypeInvalidRequest,
				Message: fmt.Sprintf("Method %s is not allowed on %s; use %s.", r.Method, r.URL.Path, method)})
			return
		}
		// Counted when the request arrives, before its file is read.
		if wait, ok := h.cfg.Guard.Allow(r.Context(), project, r.Method == http.MethodGet); !ok {
			w.Header().Set("Retry-After", strconv.Itoa(int(max(wait, time.Second).Seconds()+0.999)))
			writeError(w, &Error{Status: http.StatusTooManyRequests, Type: TypeRateLimit, Code: "rate_limit_exceeded",
				Message: "Too many requests: the rate limit of this project is exceeded; try again later."})
			return
		}
		fn(w, r, project)
	}
}

// Route returns the pattern of the route r goes to ("/v1/audio/transcriptions",
// "/v1/models", "/v1/models/{id}", or "/v1/" for any other path): a small,
// fixed set, for metric labels and access logs (httpapi.Instrument).
func (h *Handler) Route(r *http.Request) string {
	_, pattern := h.mux.Handler(r)
	if _, p, ok := strings.Cut(pattern, " "); ok {
		pattern = p
	}
	if pattern == "/" || pattern == "" {
		return "/v1/"
	}
	return pattern
}

// authenticated reads "Authorization: Bearer <key>" (a raw key works too,
// as on the AssemblyAI API: httpapi.Authenticate). A failure is answered
// here with 401 (or 429 when the client address has failed too often)
// and Connection: close, before a byte of the body is read.
func (h *Handler) authenticated(w http.ResponseWriter, r *http.Request) (string, bool) {
	key := httpguard.Credential(r)
	if wait, ok := h.cfg.Guard.AuthAllowed(r, key); !ok {
		w.Header().Set("Connection", "close")
		w.Header().Set("Retry-After", strconv.Itoa(int(max(wait, time.Second).Seconds()+0.999)))
		writeError(w, &Error{Status: http.StatusTooManyRequests, Type: TypeRateLimit, Code: "rate_limit_exceeded",
			Message: "Too many failed authentications from this address; try again later."})
		return "", false
	}
	project, ok := httpapi.Authenticate(h.cfg.Auth, r)
	if ok {
		h.cfg.Guard.AuthSucceeded(r, key)
		return project, true
	}
	h.cfg.Guard.AuthFailed(r)
	w.Header().Set("Connection", "close")
	if key == "" {
		writeError(w, &Error{Status: http.StatusUnauthorized, Type: TypeInvalidRequest,
			Message: "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."})
		return "", false
	}
	writeError(w, &Error{Status: http.StatusUnauthorized, Type: TypeInvalidRequest, Code: "invalid_api_key",
		Message: fmt.Sprintf("Incorrect API key provided: %s. Use one of this server's API keys.", maskKey(key))})
	return "", false
}

// maskKey shows the ends of a long key only, as OpenAI does.
func maskKey(k string) string {
	if len(k) < 12 {
		return strings.Repeat("*", len(k))
	}
	return k[:3] + strings.Repeat("*", len(k)-7) + k[len(k)-4:]
}

func (h *Handler) listModels(w http.ResponseWriter, r *http.Request, _ string) {
	writeJSON(w, http.StatusOK, ModelList{Object: "list", Data: h.Models()})
}

func (h *Handler) getModel(w http.ResponseWriter, r *http.Request, _ string) {
	id := r.PathValue("id")
	for _, m := range h.models {
		if m.ID == id {
			writeJSON(w, http.StatusOK, m)
			return
		}
	}
	writeError(w, &Error{Status: http.StatusNotFound, Type: TypeInvalidRequest, Param: "model", Code: "model_not_found",
		Message: fmt.Sprintf("The model '%s' does not exist; this server has %s.", id, h.listed)})
}

// engine returns the engine a request's model selects.
func (h *Handler) engine(model string) (*transcribe.Engine, *Error) {
	if e, ok := h.engines[model]; ok {
		return e, nil
	}
	return nil, invalid("model", "model_not_found", "The model '%s' does not exist; this server has %s.", model, h.listed)
}
