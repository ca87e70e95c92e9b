package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Defaults of Config.
const (
	DefaultTimeout          = 60 * time.Second
	DefaultMaxTokens        = 600
	DefaultTemperature      = 0.2
	DefaultMaxResponseBytes = 1 << 20
)

// Config configures a Client. Zero fields mean the defaults.
type Config struct {
	// BaseURL is the OpenAI-compatible API root, to which
	// "/chat/completions" is appended: "http://127.0.0.1:8080/v1"
	// (llama.cpp's llama-server), "http://127.0.0.1:11434/v1" (Ollama),
	// "http://127.0.0.1:8000/v1" (vLLM), "http://127.0.0.1:8080/v1"
	// (LocalAI), "https://api.openai.com/v1". Required: http or https,
	// with a host.
	BaseURL string
	// Model is the "model" of every request ("llama3.1:8b" for Ollama;
	// llama-server answers with the model it has loaded whatever the
	// name). Required.
	Model string
	// APIKey, when set, is sent as "Authorization: Bearer <APIKey>".
	// Empty sends no Authorization header (local servers need none).
	APIKey string
	// Timeout bounds each request, connection to last byte. 0 means
	// DefaultTimeout (60 s); negative is an error.
	Timeout time.Duration
	// MaxTokens is the answer's "max_tokens". 0 means DefaultMaxTokens
	// (600).
	MaxTokens int
	// Temperature is the sampling temperature. nil means
	// DefaultTemperature (0.2): summaries should stick to the transcript.
	Temperature *float64
	// NoResponseFormat leaves "response_format": {"type": "json_object"}
	// out of chapter requests, for servers that reject it (the answer is
	// then parsed from plain text). Default false: llama-server, Ollama,
	// vLLM and OpenAI all accept it.
	NoResponseFormat bool
	// MaxResponseBytes caps the response body read. 0 means
	// DefaultMaxResponseBytes (1 MiB).
	MaxResponseBytes int64
	// HTTPClient sends the requests. nil means a client with no timeout
	// of its own (Timeout applies through the request's context) and the
	// default transport.
	HTTPClient *http.Client
}

// Client is a chat-completions client for one server and model. It is
// safe for concurrent use.
type Client struct {
	cfg      Config
	endpoint string
	http     *http.Client
}

// Errors. Every error of Complete wraps exactly one of these (or a
// context error when the caller's context is done), and *APIError carries
// an error status with the server's message.
var (
	// ErrConfig: a Config field is invalid.
	ErrConfig = errors.New("llm: invalid configuration")
	// ErrUnreachable: no answer came (connection refused or reset, DNS
	// failure, TLS failure, the body cut off).
	ErrUnreachable = errors.New("llm: server unreachable")
	// ErrTimeout: Config.Timeout passed before the answer was complete.
	ErrTimeout = errors.New("llm: request timed out")
	// ErrMalformed: the answer is not a chat completion (not JSON, no
	// choices, no message content).
	ErrMalformed = errors.New("llm: malformed answer")
	// ErrTruncated: the model stopped at max_tokens (finish_reason
	// "length"), so the answer is incomplete.
	ErrTruncated = errors.New("llm: answer truncated at max_tokens")
	// ErrUnusable: the answer is complete but not what was asked for (no
	// bullet lines, a gist of a paragraph, a chapter without its JSON).
	ErrUnusable = errors.New("llm: answer not usable")
)

// APIError is an error status from the server, with the message of its
// OpenAI-style body ({"error": {"message": ..., "type": ...}}) when there
// is one. It wraps ErrUnreachable for 5xx statuses.
type APIError struct {
	StatusCode int
	Type       string
	Message    string
}

func (e *APIError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.StatusCode)
	}
	if e.Type != "" {
		return fmt.Sprintf("llm: server answered %d (%s): %s", e.StatusCode, e.Type, msg)
	}
	return fmt.Sprintf("llm: server answered %d: %s", e.StatusCode, msg)
}

// Unwrap makes a 5xx status match ErrUnreachable (the server is there but
// cannot serve: loading a model, overloaded, crashed).
func (e *APIError) Unwrap() error {
	if e.StatusCode >= 500 {
		return ErrUnreachable
	}
	return nil
}

// New validates cfg and returns a Client. It makes no request.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(cfg.BaseURL))
	switch {
	case cfg.BaseURL == "":
		return nil, fmt.Errorf("%w: BaseURL is required", ErrConfig)
	case err != nil:
		return nil, fmt.Errorf("%w: BaseURL %q: %v", ErrConfig, cfg.BaseURL, err)
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		return nil, fmt.Errorf("%w: BaseURL %q is not an http(s) URL with a host", ErrConfig, cfg.BaseURL)
	case strings.TrimSpace(cfg.Model) == "":
		return nil, fmt.Errorf("%w: Model is required", ErrConfig)
	case cfg.Timeout < 0:
		return nil, fmt.Errorf("%w: Timeout %v is negative", ErrConfig, cfg.Timeout)
	case cfg.MaxTokens < 0:
		return nil, fmt.Errorf("%w: MaxTokens %d is negative", ErrConfig, cfg.MaxTokens)
	case cfg.Temperature != nil && (*cfg.Temperature < 0 || *cfg.Temperature > 2):
		return nil, fmt.Errorf("%w: Temperature %v is outside [0, 2]", ErrConfig, *cfg.Temperature)
	case cfg.MaxResponseBytes < 0:
		return nil, fmt.Errorf("%w: MaxResponseBytes %d is negative", ErrConfig, cfg.MaxResponseBytes)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	if cfg.Temperature == nil {
		t := DefaultTemperature
		cfg.Temperature = &t
	}
	if cfg.MaxResponseBytes == 0 {
		cfg.MaxResponseBytes = DefaultMaxResponseBytes
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	u.Path = strings.TrimRight(u.Path, "/") + "/chat/completions"
	return &Client{cfg: cfg, endpoint: u.String(), http: hc}, nil
}

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// chatRequest is the body of POST /chat/completions (the fields every
// compatible server reads: Ollama's openai.ChatCompletionRequest,
// llama-server's oaicompat_chat_params_parse).
type chatRequest struct {
	Model          string          `json:"model"`
	Messages       []Message       `json:"messages"`
	Stream         bool            `json:"stream"`
	MaxTokens      int             `json:"max_tokens"`
	Temperature    float64         `json:"temperature"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
}

type responseFormat struct {
	Type string `json:"type"`
}

// chatResponse is the part of a chat completion the client reads.
// Reasoning models put their thinking in "reasoning_content"
// (llama-server) or "reasoning" (Ollama) and the answer in "content".
type chatResponse struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
		} `json:"message"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *Usage `json:"usage"`
}

// Usage is the token count a server reports with an answer ("usage":
// prompt_tokens and completion_tokens; llama-server, Ollama, vLLM and
// OpenAI send it).
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
}

type errorBody struct {
	Error struct {
		Message string `json:"message"`
		Type    string `json:"type"`
	} `json:"error"`
}

// Complete sends messages and returns the first choice's content. The
// request carries "stream": false, the configured max_tokens and
// temperature, and response_format json_object when wantJSON is set (and
// Config.NoResponseFormat is not). See the error variables for what it
// returns when the exchange fails.
func (c *Client) Complete(ctx context.Context, messages []Message, wantJSON bool) (string, error) {
	out, _, err := c.CompleteUsage(ctx, messages, wantJSON)
	return out, err
}

// CompleteUsage is Complete that also returns the answer's usage, nil
// when the server sent none.
func (c *Client) CompleteUsage(ctx context.Context, messages []Message, wantJSON bool) (string, *Usage, error) {
	body := chatRequest{Model: c.cfg.Model, Messages: messages, MaxTokens: c.cfg.MaxTokens, Temperature: *c.cfg.Temperature}
	if wantJSON && !c.cfg.NoResponseFormat {
		body.ResponseFormat = &responseFormat{Type: "json_object"}
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return "", nil, fmt.Errorf("%w: encoding the request: %v", ErrConfig, err)
	}
	rctx, cancel := context.WithTimeoutCause(ctx, c.cfg.Timeout, ErrTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, c.endpoint, bytes.NewReader(raw))
	if err != nil {
		return "", nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return "", nil, c.transportError(ctx, rctx, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.cfg.MaxResponseBytes+1))
	if err != nil {
		return "", nil, c.transportError(ctx, rctx, err)
	}
	if int64(len(data)) > c.cfg.MaxResponseBytes {
		return "", nil, fmt.Errorf("%w: answer longer than %d bytes", ErrMalformed, c.cfg.MaxResponseBytes)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := &APIError{StatusCode: resp.StatusCode}
		var eb errorBody
		if json.Unmarshal(data, &eb) == nil {
			e.Message, e.Type = eb.Error.Message, eb.Error.Type
		}
		if e.Message == "" {
			e.Message = strings.TrimSpace(string(data[:min(len(data), 200)]))
		}
		return "", nil, e
	}
	var cr chatResponse
	if err := json.Unmarshal(data, &cr); err != nil {
		return "", nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if len(cr.Choices) == 0 {
		return "", nil, fmt.Errorf("%w: no choices", ErrMalformed)
	}
	ch := cr.Choices[0]
	if ch.FinishReason != nil && *ch.FinishReason == "length" {
		return "", nil, ErrTruncated
	}
	if ch.Message.Content == nil || strings.TrimSpace(*ch.Message.Content) == "" {
		return "", nil, fmt.Errorf("%w: empty message content", ErrMalformed)
	}
	return *ch.Message.Content, cr.Usage, nil
}

// transportError classifies an error of sending or reading: the caller's
// context first, then our timeout, then an unreachable server.
func (c *Client) transportError(ctx, rctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("llm: %w", ctx.Err())
	}
	if errors.Is(context.Cause(rctx), ErrTimeout) {
		return fmt.Errorf("%w after %v", ErrTimeout, c.cfg.Timeout)
	}
	return fmt.Errorf("%w: %v", ErrUnreachable, err)
}
