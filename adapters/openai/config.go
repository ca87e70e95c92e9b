package openai

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/earshot-dev/earshot/adapters/enginepool"
)

// Defaults of Config.
const (
	// DefaultPath is where OpenAI-compatible servers take transcriptions,
	// relative to the API root (BaseURL).
	DefaultPath = "/audio/transcriptions"
	// DefaultModel is OpenAI's whisper model name; LocalAI's examples use it
	// too. speaches, vLLM and FunASR want their own model names.
	DefaultModel = "whisper-1"
	// DefaultTimeout bounds one HTTP attempt, upload and recognition
	// included.
	DefaultTimeout = 10 * time.Minute
	// DefaultMaxRetries is how many times a request is retried after a 429,
	// a 5xx or a failed connection.
	DefaultMaxRetries = 3
	// DefaultMaxRequestBytes is OpenAI's upload limit (25 MB), also vLLM's
	// default VLLM_MAX_AUDIO_CLIP_FILESIZE_MB.
	DefaultMaxRequestBytes = 25 << 20
	// DefaultMaxChunk is the longest audio sent in one request (9.6 MB of
	// 16 kHz 16-bit WAV): short enough that a retry repeats little work.
	DefaultMaxChunk = 5 * time.Minute
	// DefaultMaxResponseBytes caps a response body. A verbose_json response
	// for five minutes of speech with word times is well under 1 MB.
	DefaultMaxResponseBytes = 32 << 20
	// SampleRate is the rate Recognize takes and sends: whisper's.
	SampleRate = 16000
)

// DefaultFileFormats are the formats, as media.Sniff names them, that
// RecognizeFile sends as they are: WAV, MP3 and FLAC are read by every
// engine this package was checked against (OpenAI, speaches, LocalAI,
// vLLM's librosa, FunASR's soundfile, whisper.cpp's miniaudio).
var DefaultFileFormats = []string{"wav", "mp3", "flac"}

// Field is one multipart form field of a request.
type Field struct{ Name, Value string }

// Request describes one transcription request to a Form function.
type Request struct {
	// Language is the whisper language code to transcribe in ("en"), or ""
	// when the engine should detect it.
	Language string
	// Prompt is built from RecognizeOptions.Prompt, WordBoost and
	// Disfluencies within Config.PromptTokens; "" for none.
	Prompt string
	// WordBoost are the request's boost terms as given, for servers with a
	// field of their own for them (speaches' and vLLM's "hotwords").
	WordBoost []string
}

// Form returns the multipart fields of one request besides "file".
type Form func(r Request) []Field

// StandardFields are the fields of OpenAI's createTranscription that this
// package uses: model, response_format verbose_json, both timestamp
// granularities (word and segment), temperature 0, and language and prompt
// when set. It is the default Form (with Config.Model); a custom Form can
// add to it:
//
//	Form: func(r openai.Request) []openai.Field {
//		return append(openai.StandardFields("Systran/faster-whisper-small", r),
//			openai.Field{Name: "hotwords", Value: strings.Join(r.WordBoost, " ")})
//	}
func StandardFields(model string, r Request) []Field {
	f := []Field{
		{"model", model},
		{"response_format", "verbose_json"},
		{"timestamp_granularities[]", "word"},
		{"timestamp_granularities[]", "segment"},
		{"temperature", "0"},
	}
	if r.Language != "" {
		f = append(f, Field{"language", r.Language})
	}
	if r.Prompt != "" {
		f = append(f, Field{"prompt", r.Prompt})
	}
	return f
}

// Backoff returns how long to wait before retry number retry (1 for the
// first). resp is the failed attempt's response, nil when the engine did
// not answer.
type Backoff func(retry int, resp *http.Response) time.Duration

// DefaultBackoff honours a Retry-After header (seconds or an HTTP date, at
// most a minute) and otherwise waits 1 s, 2 s, 4 s, ... up to 30 s.
func DefaultBackoff(retry int, resp *http.Response) time.Duration {
	if d, ok := retryAfter(resp, time.Now()); ok {
		return min(d, time.Minute)
	}
	d := time.Second << min(max(retry-1, 0), 5)
	return min(d, 30*time.Second)
}

// retryAfter reads resp's Retry-After header relative to now.
func retryAfter(resp *http.Response, now time.Time) (time.Duration, bool) {
	if resp == nil {
		return 0, false
	}
	v := strings.TrimSpace(resp.Header.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// Config configures a Recognizer. Every field but BaseURL has a default.
type Config struct {
	// BaseURL is the API root as OpenAI clients take it, e.g.
	// "http://127.0.0.1:8000/v1" (speaches, vLLM, LocalAI, FunASR,
	// whisper.cpp started with --inference-path /v1/audio/transcriptions)
	// or "https://api.openai.com/v1". Requests go to BaseURL + Path.
	// Required unless BaseURLs is set; http or https.
	BaseURL string
	// BaseURLs are more servers running the same engine and model, each
	// an API root like BaseURL (which may then be empty): requests go to
	// the one with the fewest in flight among those up (adapters/
	// enginepool). Default none.
	BaseURLs []string
	// Concurrency is how many requests each server is given at once; more
	// wait in Earshot for the first free slot. Default 0: no limit (the
	// OpenAI API, vLLM and speaches take requests side by side). Set 1 for
	// a server that runs one request at a time (whisper.cpp's does).
	Concurrency int
	// HealthCheck checks one server, given its API root (from BaseURL or
	// BaseURLs), as Health describes: nil when it is up, an error wrapping
	// transcribe.ErrEngineUnavailable when it is down. The pool skips a
	// server found down until it passes. Default a GET of the server's
	// transcription URL (see Health).
	HealthCheck func(ctx context.Context, root string) error
	// OnServer, when set, receives the pool's events (each request started
	// and finished on a server, with its outcome, and each server going
	// down or up); it is called with the pool's lock held, so it must be
	// quick. Metrics are its intended use. Default none.
	OnServer func(enginepool.Event)
	// Path is appended to BaseURL. Default DefaultPath
	// ("/audio/transcriptions").
	Path string
	// APIKey is sent as "Authorization: Bearer <APIKey>" when set. Default
	// none.
	APIKey string
	// Model is the "model" field. Default DefaultModel ("whisper-1").
	Model string
	// Name is reported as the model used (speech_model_used) and prefixes
	// errors. Default Model.
	Name string
	// Form builds each request's fields. Default StandardFields(Model, r).
	Form Form
	// DetectLanguage is sent as "language" when the language is to be
	// detected. Default "" (the field is left out, which is how the OpenAI
	// API, speaches, vLLM and LocalAI detect). whisper.cpp's server wants
	// "auto": without a language it transcribes in its -l default ("en")
	// and reports that as the language. An answer with the header
	// "Server: whisper.cpp" to a request without a language is therefore
	// not taken: the request is sent again with language=auto, and so is
	// every later one (see doc.go, "Language").
	DetectLanguage string
	// Languages are the language codes the engine transcribes; with more
	// than one, language detection is offered. Default WhisperLanguages();
	// set []string{"en"} for an English-only model (tiny.en, distil-*).
	Languages []string
	// PromptTokens is the prompt budget in (over-)estimated tokens.
	// Default DefaultPromptTokens (224); negative sends no prompt.
	PromptTokens int
	// Timeout bounds each HTTP attempt. Default DefaultTimeout (10 min).
	Timeout time.Duration
	// MaxRetries is how many retries follow a first attempt that got a 429
	// or 5xx answer or no connection. Default DefaultMaxRetries (3);
	// negative means none.
	MaxRetries int
	// Backoff spaces the retries. Default DefaultBackoff.
	Backoff Backoff
	// Sleep waits d or until ctx ends (returning ctx.Err()). Default a
	// timer; tests inject one that does not sleep.
	Sleep func(ctx context.Context, d time.Duration) error
	// MaxRequestBytes is the largest request body the engine takes. Longer
	// audio is split at pauses; larger files are decoded and split. Default
	// DefaultMaxRequestBytes (25 MiB).
	MaxRequestBytes int64
	// MaxChunk is the longest audio sent in one request (also bounded by
	// MaxRequestBytes). Default DefaultMaxChunk (5 min).
	MaxChunk time.Duration
	// Parallel is how many chunks of one long recording are in flight at
	// once. Default the pool's capacity (servers × Concurrency), or 1 when
	// Concurrency is unlimited.
	Parallel int
	// MaxResponseBytes caps a response body. Default
	// DefaultMaxResponseBytes (32 MiB).
	MaxResponseBytes int64
	// FileFormats are the formats (media.Sniff names) RecognizeFile sends
	// as they are. Default DefaultFileFormats.
	FileFormats []string
	// HTTPClient sends the requests. Default a client with no overall
	// timeout (Timeout bounds each attempt).
	HTTPClient *http.Client
}

func (c Config) withDefaults() Config {
	if c.Path == "" {
		c.Path = DefaultPath
	}
	if c.Model == "" {
		c.Model = DefaultModel
	}
	if c.Name == "" {
		c.Name = c.Model
	}
	if c.Form == nil {
		model := c.Model
		c.Form = func(r Request) []Field { return StandardFields(model, r) }
	}
	if len(c.Languages) == 0 {
		c.Languages = WhisperLanguages()
	}
	switch {
	case c.PromptTokens == 0:
		c.PromptTokens = DefaultPromptTokens
	case c.PromptTokens < 0:
		c.PromptTokens = 0
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	switch {
	case c.MaxRetries == 0:
		c.MaxRetries = DefaultMaxRetries
	case c.MaxRetries < 0:
		c.MaxRetries = 0
	}
	if c.Backoff == nil {
		c.Backoff = DefaultBackoff
	}
	if c.Sleep == nil {
		c.Sleep = sleep
	}
	if c.MaxRequestBytes == 0 {
		c.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if c.MaxChunk == 0 {
		c.MaxChunk = DefaultMaxChunk
	}
	if c.Parallel == 0 {
		c.Parallel = max(len(c.roots())*c.Concurrency, 1)
	}
	if c.MaxResponseBytes == 0 {
		c.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if c.FileFormats == nil {
		c.FileFormats = DefaultFileFormats
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{}
	}
	return c
}

// multipartSlack is room for the multipart framing and form fields of a
// request (the prompt is at most a few kilobytes).
const multipartSlack = 16 << 10

// roots returns the servers' API roots: BaseURL, then BaseURLs.
func (c Config) roots() []string {
	var out []string
	if c.BaseURL != "" {
		out = append(out, c.BaseURL)
	}
	return append(out, c.BaseURLs...)
}

// validate names the first field that cannot work.
func (c Config) validate() error {
	roots := c.roots()
	if len(roots) == 0 {
		return fmt.Errorf("openai: Config.BaseURL is required (the API root, e.g. http://127.0.0.1:8000/v1)")
	}
	seen := map[string]bool{}
	for _, root := range roots {
		if err := checkRoot(root); err != nil {
			return err
		}
		key := strings.TrimRight(root, "/")
		if seen[key] {
			return fmt.Errorf("openai: the server %q is named twice in Config.BaseURL and BaseURLs", root)
		}
		seen[key] = true
	}
	switch {
	case c.Concurrency < 0:
		return fmt.Errorf("openai: Config.Concurrency must not be negative, got %d", c.Concurrency)
	case !strings.HasPrefix(c.Path, "/"):
		return fmt.Errorf("openai: Config.Path %q must start with /", c.Path)
	case c.Timeout < 0:
		return fmt.Errorf("openai: Config.Timeout must not be negative, got %v", c.Timeout)
	case c.MaxRequestBytes < 0:
		return fmt.Errorf("openai: Config.MaxRequestBytes must not be negative, got %d", c.MaxRequestBytes)
	case c.MaxRequestBytes > 0 && c.MaxRequestBytes < multipartSlack+44+SampleRate*2:
		return fmt.Errorf("openai: Config.MaxRequestBytes %d leaves room for less than a second of audio; use at least %d", c.MaxRequestBytes, multipartSlack+44+SampleRate*2)
	case c.MaxChunk < 0:
		return fmt.Errorf("openai: Config.MaxChunk must not be negative, got %v", c.MaxChunk)
	case c.MaxChunk > 0 && c.MaxChunk < time.Second:
		return fmt.Errorf("openai: Config.MaxChunk %v is shorter than a second", c.MaxChunk)
	case c.Parallel < 0:
		return fmt.Errorf("openai: Config.Parallel must not be negative, got %d", c.Parallel)
	case c.MaxResponseBytes < 0:
		return fmt.Errorf("openai: Config.MaxResponseBytes must not be negative, got %d", c.MaxResponseBytes)
	}
	for _, l := range c.Languages {
		if strings.TrimSpace(l) == "" {
			return fmt.Errorf("openai: Config.Languages has an empty code")
		}
	}
	return nil
}

// checkRoot checks one API root.
func checkRoot(root string) error {
	u, err := url.Parse(root)
	switch {
	case root == "":
		return fmt.Errorf("openai: Config.BaseURLs has an empty URL")
	case err != nil:
		return fmt.Errorf("openai: Config.BaseURL %q: %v", root, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("openai: Config.BaseURL %q must start with http:// or https://", root)
	case u.Host == "":
		return fmt.Errorf("openai: Config.BaseURL %q has no host", root)
	case u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("openai: Config.BaseURL %q must not have a query or fragment", root)
	}
	return nil
}

// serverName is how a pool names the server at root in errors, events
// and metrics: the URL without its user and password.
func serverName(root string) string {
	u, err := url.Parse(strings.TrimRight(root, "/"))
	if err != nil {
		return root
	}
	u.User = nil
	return u.String()
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
