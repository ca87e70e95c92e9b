package whispercpp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/earshot-dev/earshot/adapters/enginepool"
	"github.com/earshot-dev/earshot/adapters/openai"
	"github.com/earshot-dev/earshot/transcribe"
)

// Defaults of Config.
const (
	// DefaultInferencePath is whisper-server's --inference-path default.
	DefaultInferencePath = "/inference"
	// DefaultName is reported as the model used (speech_model_used).
	DefaultName = "whisper.cpp"
)

// DefaultFileFormats are the formats whisper-server reads without
// --convert (miniaudio and stb_vorbis in examples/common-whisper.cpp):
// WAV, MP3, FLAC and Ogg Vorbis. With --convert (ffmpeg on the server) it
// reads anything ffmpeg does; list more in Config.FileFormats.
var DefaultFileFormats = []string{"wav", "mp3", "flac", "vorbis"}

// Config configures a Recognizer. Every field but URL has a default.
type Config struct {
	// URL is the server's root, e.g. "http://127.0.0.1:8080"
	// (whisper-server's --host and --port; any --request-path included).
	// Required unless URLs is set; http or https.
	URL string
	// URLs are more servers running the same model, each a root like URL
	// (which may then be empty): requests go to the one with the fewest in
	// flight among those up, Concurrency at a time each (adapters/
	// enginepool). Default none.
	URLs []string
	// Concurrency is how many requests each server is given at once.
	// Default 1: whisper-server transcribes one request at a time (a
	// global mutex), so more would only queue there; set more for a
	// server behind a proxy that spreads requests itself.
	Concurrency int
	// OnServer receives the pool's events, as openai.Config.OnServer.
	// Default none.
	OnServer func(enginepool.Event)
	// InferencePath is the server's --inference-path. Default
	// DefaultInferencePath ("/inference").
	InferencePath string
	// Name is reported as the model used (speech_model_used) and prefixes
	// errors. Default DefaultName ("whisper.cpp").
	Name string
	// Languages the loaded model transcribes. Default all of whisper's
	// (openai.WhisperLanguages); set []string{"en"} for an English-only
	// model (ggml-*.en.bin), which the server never lets detect.
	Languages []string
	// Temperature is the decoding temperature sent with each request;
	// whisper-server raises it by its temperature_inc when decoding fails.
	// Default 0 (greedy).
	Temperature float64
	// ExtraFields are sent with every request, after the adapter's own:
	// any other field of whisper-server's inference handler, e.g.
	// {"beam_size", "5"}, {"vad", "true"}, {"max_len", "40"}. Default none.
	ExtraFields []openai.Field
	// PromptTokens, Timeout, MaxRetries, Backoff, Sleep, MaxRequestBytes,
	// MaxChunk, Parallel, MaxResponseBytes and HTTPClient are as in
	// openai.Config, with the same defaults.
	PromptTokens     int
	Timeout          time.Duration
	MaxRetries       int
	Backoff          openai.Backoff
	Sleep            func(ctx context.Context, d time.Duration) error
	MaxRequestBytes  int64
	MaxChunk         time.Duration
	Parallel         int
	MaxResponseBytes int64
	HTTPClient       *http.Client
	// FileFormats are the formats (media.Sniff names) RecognizeFile sends
	// as they are. Default DefaultFileFormats.
	FileFormats []string
}

// Recognizer sends audio to whisper.cpp's server. It implements
// transcribe.Recognizer and transcribe.FileRecognizer (Recognize,
// RecognizeFile, AcceptsFile and Close come from openai.Recognizer, with
// whisper.cpp's fields) and is safe for concurrent use.
type Recognizer struct {
	*openai.Recognizer
	client *http.Client
	name   string
}

var _ transcribe.FileRecognizer = (*Recognizer)(nil)

// fields returns the fields the adapter sends for req, before
// Config.ExtraFields: response_format verbose_json, temperature,
// split_on_word true (so that long segments are wrapped between words),
// language (the code, or "auto" to detect), no_language_probabilities when
// the language is given (the server skips a second detection pass), and
// prompt when there is one.
func fields(req openai.Request, temperature float64) []openai.Field {
	f := []openai.Field{
		{Name: "response_format", Value: "verbose_json"},
		{Name: "temperature", Value: strconv.FormatFloat(temperature, 'f', -1, 64)},
		{Name: "split_on_word", Value: "true"},
	}
	if req.Language != "" {
		f = append(f, openai.Field{Name: "language", Value: req.Language}, openai.Field{Name: "no_language_probabilities", Value: "true"})
	} else {
		f = append(f, openai.Field{Name: "language", Value: "auto"})
	}
	if req.Prompt != "" {
		f = append(f, openai.Field{Name: "prompt", Value: req.Prompt})
	}
	return f
}

// New checks cfg and returns a Recognizer. It does not contact the server
// (Health does).
func New(cfg Config) (*Recognizer, error) {
	var roots []string
	if cfg.URL != "" {
		roots = append(roots, cfg.URL)
	}
	roots = append(roots, cfg.URLs...)
	if len(roots) == 0 {
		return nil, errors.New("whispercpp: Config.URL is required (the server's root, e.g. http://127.0.0.1:8080)")
	}
	for _, root := range roots {
		u, err := url.Parse(root)
		switch {
		case root == "":
			return nil, errors.New("whispercpp: Config.URLs has an empty URL")
		case err != nil:
			return nil, fmt.Errorf("whispercpp: Config.URL %q: %v", root, err)
		case u.Scheme != "http" && u.Scheme != "https":
			return nil, fmt.Errorf("whispercpp: Config.URL %q must start with http:// or https://", root)
		}
	}
	switch {
	case cfg.Concurrency < 0:
		return nil, fmt.Errorf("whispercpp: Config.Concurrency must not be negative, got %d", cfg.Concurrency)
	case cfg.Concurrency == 0:
		cfg.Concurrency = 1
	}
	switch {
	case cfg.Temperature < 0 || cfg.Temperature > 1:
		return nil, fmt.Errorf("whispercpp: Config.Temperature must be within 0..1, got %v", cfg.Temperature)
	}
	for _, f := range cfg.ExtraFields {
		if f.Name == "" || f.Name == "file" {
			return nil, fmt.Errorf("whispercpp: Config.ExtraFields: bad field name %q", f.Name)
		}
	}
	if cfg.InferencePath == "" {
		cfg.InferencePath = DefaultInferencePath
	}
	if cfg.Name == "" {
		cfg.Name = DefaultName
	}
	if cfg.FileFormats == nil {
		cfg.FileFormats = DefaultFileFormats
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	temp, extra := cfg.Temperature, cfg.ExtraFields
	r := &Recognizer{client: cfg.HTTPClient, name: cfg.Name}
	rec, err := openai.New(openai.Config{
		BaseURLs:         roots,
		Concurrency:      cfg.Concurrency,
		HealthCheck:      r.check,
		OnServer:         cfg.OnServer,
		Path:             cfg.InferencePath,
		Name:             cfg.Name,
		Model:            cfg.Name,
		Form:             func(r openai.Request) []openai.Field { return append(fields(r, temp), extra...) },
		Languages:        cfg.Languages,
		PromptTokens:     cfg.PromptTokens,
		Timeout:          cfg.Timeout,
		MaxRetries:       cfg.MaxRetries,
		Backoff:          cfg.Backoff,
		Sleep:            cfg.Sleep,
		MaxRequestBytes:  cfg.MaxRequestBytes,
		MaxChunk:         cfg.MaxChunk,
		Parallel:         cfg.Parallel,
		MaxResponseBytes: cfg.MaxResponseBytes,
		FileFormats:      cfg.FileFormats,
		HTTPClient:       cfg.HTTPClient,
	})
	if err != nil {
		return nil, fmt.Errorf("whispercpp: %w", err)
	}
	r.Recognizer = rec
	return r, nil
}

// Features are openai.Recognizer's with WordConfidence: whisper.cpp's
// verbose_json gives every token's probability, and a word's confidence is
// the mean of its tokens'.
func (r *Recognizer) Features() transcribe.RecognizerFeatures {
	f := r.Recognizer.Features()
	f.WordConfidence = true
	return f
}

// Health asks each server's GET /health whether its model is loaded. It
// returns nil when one answers {"status":"ok"}, and otherwise an error
// wrapping transcribe.ErrUnavailable when the server is unreachable, still
// loading its model (503) or answers anything else (unreachable and 5xx
// also wrap transcribe.ErrEngineUnavailable); with several servers, an
// *enginepool.DownError with each one's. A server found unreachable or
// answering 5xx is skipped until its /health passes again.
func (r *Recognizer) Health(ctx context.Context) error { return r.Recognizer.Health(ctx) }

// check is one server's health check: GET root/health.
func (r *Recognizer) check(ctx context.Context, root string) error {
	u := strings.TrimRight(root, "/") + "/health"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", r.name, err)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("%s: GET %s: speech engine unreachable: %v: %w%w", r.name, u, err, transcribe.ErrUnavailable, outage{})
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	var st struct {
		Status string `json:"status"`
	}
	_ = json.Unmarshal(body, &st)
	if resp.StatusCode == http.StatusOK && st.Status == "ok" {
		return nil
	}
	msg := st.Status
	if msg == "" {
		msg = strings.TrimSpace(string(body))
	}
	if resp.StatusCode >= 500 {
		return fmt.Errorf("%s: GET %s: HTTP %d: %s: %w%w", r.name, u, resp.StatusCode, msg, transcribe.ErrUnavailable, outage{})
	}
	return fmt.Errorf("%s: GET %s: HTTP %d: %s: %w", r.name, u, resp.StatusCode, msg, transcribe.ErrUnavailable)
}

// outage marks a health error as transcribe.ErrEngineUnavailable without
// changing its text.
type outage struct{}

func (outage) Error() string        { return "" }
func (outage) Is(target error) bool { return target == transcribe.ErrEngineUnavailable }
