package lemur

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/earshot-dev/earshot/internal/wire"
	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/llm"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// Defaults of Config.
const (
	DefaultContextTokens   = 4096
	DefaultModelTimeout    = llm.DefaultTimeout
	DefaultRequestTimeout  = 5 * time.Minute
	DefaultStoreTimeout    = 5 * time.Second
	DefaultMaxParts        = 64
	DefaultParallel        = 2
	DefaultMaxRequestBytes = 8 << 20
	DefaultRetention       = 30 * 24 * time.Hour
)

// Config configures a Handler. Service, BaseURL and Model are required.
type Config struct {
	// Service reads the transcripts named by transcript_ids, within the
	// request's project.
	Service *transcribe.Service
	// BaseURL, Model and APIKey name the OpenAI-compatible chat model
	// (see llm.Config): every final_model is answered by this model.
	BaseURL, Model, APIKey string
	// ContextTokens is the model's context in tokens (what llama-server
	// runs with -c, Ollama with num_ctx): an input longer than fits is
	// cut into parts and combined. Default DefaultContextTokens (4096);
	// at least 1024.
	ContextTokens int
	// ModelTimeout bounds each model call. Default 60 s.
	ModelTimeout time.Duration
	// RequestTimeout bounds a whole generate request, every model call
	// included: past it the answer is 504. Default 5 minutes.
	RequestTimeout time.Duration
	// StoreTimeout bounds each read of a transcript and each store call.
	// Default 5 s.
	StoreTimeout time.Duration
	// MaxParts is the most parts one request's input is cut into; a
	// longer input is 400. Default 64.
	MaxParts int
	// Parallel is how many parts of one request are read at once.
	// Default 2.
	Parallel int
	// MaxRequestBytes caps the request body (input_text can be long).
	// Default 8 MiB.
	MaxRequestBytes int64
	// Store keeps the answers for GET and DELETE /lemur/v3/{request_id}.
	// Give it the store the server's processes share (storage/sqlite and
	// storage/postgres implement driver.LeMURStore). Default:
	// memory.NewLeMURStore, this process only.
	Store driver.LeMURStore
	// Key seals the stored answers (AES-256-GCM, bound to the project and
	// request id), so the store never holds transcript text in the clear:
	// transcribe.KeySize bytes, the same in every process. Default: a
	// random key (answers cannot be read after a restart).
	Key []byte
	// Retention is how long answers are kept. Default 30 days.
	Retention time.Duration
	// HTTPClient sends the model requests. Default: the llm package's.
	HTTPClient *http.Client
	// Logger receives model failures. Default slog.Default().
	Logger *slog.Logger
}

// Handler serves LeMUR for httpapi (httpapi.Config.LeMUR): the four
// generate endpoints and GET/DELETE /lemur/v3/{request_id}. Safe for
// concurrent use.
type Handler struct {
	cfg    Config
	cipher *transcribe.Cipher
	log    *slog.Logger

	sweepMu   sync.Mutex
	lastSweep time.Time
}

// New validates cfg and returns a Handler. It makes no request.
func New(cfg Config) (*Handler, error) {
	if cfg.Service == nil {
		return nil, errors.New("lemur: Config.Service is required")
	}
	if cfg.ContextTokens == 0 {
		cfg.ContextTokens = DefaultContextTokens
	}
	if cfg.ContextTokens < 1024 {
		return nil, fmt.Errorf("lemur: ContextTokens %d is below 1024", cfg.ContextTokens)
	}
	// The model's configuration is checked by llm.New, once here.
	if _, err := llm.New(llm.Config{BaseURL: cfg.BaseURL, Model: cfg.Model, Timeout: cfg.ModelTimeout}); err != nil {
		return nil, err
	}
	for _, d := range []struct {
		p   *time.Duration
		def time.Duration
	}{{&cfg.ModelTimeout, DefaultModelTimeout}, {&cfg.RequestTimeout, DefaultRequestTimeout}, {&cfg.StoreTimeout, DefaultStoreTimeout}, {&cfg.Retention, DefaultRetention}} {
		if *d.p <= 0 {
			*d.p = d.def
		}
	}
	if cfg.MaxParts <= 0 {
		cfg.MaxParts = DefaultMaxParts
	}
	if cfg.Parallel <= 0 {
		cfg.Parallel = DefaultParallel
	}
	if cfg.MaxRequestBytes <= 0 {
		cfg.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if cfg.Store == nil {
		cfg.Store = memory.NewLeMURStore()
	}
	if cfg.Key == nil {
		cfg.Key = transcribe.NewKey()
	}
	c, err := transcribe.NewCipher(cfg.Key)
	if err != nil {
		return nil, fmt.Errorf("lemur: Key: %w", err)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Handler{cfg: cfg, cipher: c, log: log}, nil
}

// ServeLeMUR serves one authenticated request of project (httpapi
// authenticates, rate limits, sets the request id and logs it).
func (h *Handler) ServeLeMUR(w http.ResponseWriter, r *http.Request, project string) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/lemur/v3/")
	switch {
	case !ok:
		writeError(w, http.StatusNotFound, fmt.Sprintf("no endpoint %s %s", r.Method, r.URL.Path))
	case strings.HasPrefix(rest, "generate/") && r.Method == http.MethodPost:
		h.generate(w, r, project, Kind(strings.TrimPrefix(rest, "generate/")))
	case r.Method == http.MethodGet:
		h.get(w, r, project, rest)
	case r.Method == http.MethodDelete:
		h.purge(w, r, project, rest)
	default:
		writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("method %s is not allowed on %s", r.Method, r.URL.Path))
	}
}

// Response is the answer of the generate endpoints, in the Go SDK's
// shapes (LeMURTaskResponse and the others): Response is a string, or
// []QA for question-answer.
type Response struct {
	RequestID string `json:"request_id"`
	Response  any    `json:"response"`
	Usage     Usage  `json:"usage"`
	// FinalModel echoes the request's final_model ("default" when it had
	// none); the answer comes from the server's configured model.
	FinalModel string `json:"final_model"`
	// Warning says when the input was cut into parts that were read on
	// their own and combined (and when the answer could not be stored).
	Warning string `json:"warning,omitempty"`
}

// Usage is the tokens a request took, over every model call.
type Usage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

func (h *Handler) generate(w http.ResponseWriter, r *http.Request, project string, kind Kind) {
	switch kind {
	case KindTask, KindSummary, KindQuestionAnswer, KindActionItems:
	default:
		writeError(w, http.StatusNotFound, fmt.Sprintf("no endpoint %s %s", r.Method, r.URL.Path))
		return
	}
	ctx, cancel := context.WithTimeoutCause(r.Context(), h.cfg.RequestTimeout, errRequestTimeout)
	defer cancel()
	maxOut := 0
	resp, err := func() (*Response, error) {
		var p params
		if err := h.decode(w, r, &p); err != nil {
			return nil, err
		}
		var temp float64
		var err error
		if maxOut, temp, err = h.validate(kind, &p); err != nil {
			return nil, err
		}
		srcs, err := h.sources(ctx, project, &p)
		if err != nil {
			return nil, err
		}
		client, err := llm.New(llm.Config{BaseURL: h.cfg.BaseURL, Model: h.cfg.Model, APIKey: h.cfg.APIKey, Timeout: h.cfg.ModelTimeout,
			MaxTokens: maxOut, Temperature: &temp, HTTPClient: h.cfg.HTTPClient})
		if err != nil {
			return nil, err
		}
		j := &job{h: h, kind: kind, p: &p, client: client, maxOut: maxOut, context: contextText(p.Context), usage: &usage{}}
		res, err := j.run(ctx, srcs)
		if err != nil {
			return nil, err
		}
		out := &Response{RequestID: uuid.NewString(), Usage: Usage{InputTokens: j.usage.input, OutputTokens: j.usage.output}, FinalModel: "default"}
		if p.FinalModel != nil {
			out.FinalModel = strings.TrimSpace(*p.FinalModel)
		}
		if kind == KindQuestionAnswer {
			out.Response = res.answers
		} else {
			out.Response = res.text
		}
		if res.parts > 1 {
			out.Warning = fmt.Sprintf("The input (about %d tokens) is longer than fits the model's context of %d tokens with max_output_size %d: "+
				"it was cut into %d parts, each read on its own, and their notes were combined into this answer; a detail that only one part mentions may be missing",
				tokensOf(srcs), h.cfg.ContextTokens, maxOut, res.parts)
			if res.smaller {
				out.Warning += " (the model refused the first parts as longer than its context, so they were cut smaller)"
			}
		}
		return out, nil
	}()
	if err != nil {
		e, ok := h.classify(ctx, err, maxOut)
		if !ok {
			return
		}
		if e.status >= 500 {
			h.log.WarnContext(r.Context(), "LeMUR request failed", "kind", string(kind), "status", e.status, "err", err)
		}
		if e.retryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(int(e.retryAfter.Seconds())))
		}
		writeError(w, e.status, e.msg)
		return
	}
	body, err := json.Marshal(resp)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "Internal server error")
		return
	}
	if err := h.keep(r.Context(), project, resp.RequestID, body); err != nil {
		h.log.ErrorContext(r.Context(), "storing a LeMUR answer", "request_id", resp.RequestID, "err", err)
		resp.Warning = strings.TrimSpace(resp.Warning + " This answer could not be stored: GET /lemur/v3/" + resp.RequestID + " will not find it.")
		body, _ = json.Marshal(resp)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// aad binds a sealed answer to its project and id.
func aad(project, id string) string { return "lemur\x00" + project + "\x00" + id }

// keep seals and stores an answer, sweeping expired ones at most hourly.
func (h *Handler) keep(ctx context.Context, project, id string, body []byte) error {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), h.cfg.StoreTimeout)
	defer cancel()
	now := time.Now().UTC()
	if err := h.cfg.Store.PutLeMUR(sctx, &driver.LeMURRecord{ProjectID: project, RequestID: id, Data: h.cipher.Seal(aad(project, id), body), Created: now}); err != nil {
		return err
	}
	h.sweepMu.Lock()
	due := now.Sub(h.lastSweep) > time.Hour
	if due {
		h.lastSweep = now
	}
	h.sweepMu.Unlock()
	if due {
		if n, err := h.cfg.Store.SweepLeMUR(sctx, now.Add(-h.cfg.Retention)); err != nil {
			h.log.WarnContext(ctx, "sweeping expired LeMUR answers", "err", err)
		} else if n > 0 {
			h.log.InfoContext(ctx, "swept expired LeMUR answers", "count", n, "older_than", h.cfg.Retention)
		}
	}
	return nil
}

const notFound = "LeMUR request not found"

// get serves GET /lemur/v3/{request_id}: the answer as it was returned.
func (h *Handler) get(w http.ResponseWriter, r *http.Request, project, id string) {
	if uuid.Validate(id) != nil {
		writeError(w, http.StatusNotFound, notFound)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.cfg.StoreTimeout)
	defer cancel()
	rec, err := h.cfg.Store.GetLeMUR(ctx, project, id)
	if errors.Is(err, transcribe.ErrNotFound) {
		writeError(w, http.StatusNotFound, notFound)
		return
	}
	if err != nil {
		h.storeFailed(w, r, err)
		return
	}
	body, err := h.cipher.Open(aad(project, id), rec.Data)
	if err != nil {
		h.log.ErrorContext(r.Context(), "opening a stored LeMUR answer (was EARSHOT_ENCRYPTION_KEY changed?)", "request_id", id, "err", err)
		writeError(w, http.StatusInternalServerError, "Internal server error")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// purge serves DELETE /lemur/v3/{request_id}: the SDK's
// PurgeLeMURRequestDataResponse.
func (h *Handler) purge(w http.ResponseWriter, r *http.Request, project, id string) {
	if uuid.Validate(id) != nil {
		writeError(w, http.StatusNotFound, notFound)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.cfg.StoreTimeout)
	defer cancel()
	ok, err := h.cfg.Store.DeleteLeMUR(ctx, project, id)
	if err != nil {
		h.storeFailed(w, r, err)
		return
	}
	if !ok {
		writeError(w, http.StatusNotFound, notFound)
		return
	}
	wire.WriteJSON(w, http.StatusOK, map[string]any{"request_id": uuid.NewString(), "request_id_to_purge": id, "deleted": true})
}

func (h *Handler) storeFailed(w http.ResponseWriter, r *http.Request, err error) {
	e := storeError(err)
	h.log.ErrorContext(r.Context(), "LeMUR answers store", "err", err)
	if e.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(e.retryAfter.Seconds())))
	}
	writeError(w, e.status, e.msg)
}
