package llm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp/nlptest"
	"github.com/earshot-dev/earshot/transcribe/analysis/summary"
)

// recording is one recorded server answer (testdata/*.json); "source"
// names the server source the shape comes from.
type recording struct {
	Source      string          `json:"source"`
	Status      int             `json:"status"`
	ContentType string          `json:"content_type"`
	Body        json.RawMessage `json:"body"`
}

func load(t testing.TB, name string) recording {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var r recording
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if r.Source == "" || r.Status == 0 {
		t.Fatalf("%s: no source or status", name)
	}
	return r
}

// server is a real HTTP server on loopback that answers
// POST /v1/chat/completions with a handler and keeps the requests.
type server struct {
	*httptest.Server
	mu       sync.Mutex
	requests []chatRequest
	headers  []http.Header
}

func newServer(t *testing.T, h func(w http.ResponseWriter, r *http.Request)) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, `{"error":{"message":"not found","type":"not_found_error"}}`, http.StatusNotFound)
			return
		}
		var req chatRequest
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil {
			t.Errorf("request body %q: %v", body, err)
		}
		s.mu.Lock()
		s.requests = append(s.requests, req)
		s.headers = append(s.headers, r.Header.Clone())
		s.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// replay serves the recordings in turn (the last one again when they run
// out).
func replay(t *testing.T, names ...string) *server {
	var recs []recording
	for _, n := range names {
		recs = append(recs, load(t, n))
	}
	var mu sync.Mutex
	i := 0
	return newServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		rec := recs[min(i, len(recs)-1)]
		i++
		mu.Unlock()
		w.Header().Set("Content-Type", rec.ContentType)
		w.WriteHeader(rec.Status)
		w.Write(rec.Body)
	})
}

func client(t *testing.T, s *server, mod func(*Config)) *Client {
	t.Helper()
	cfg := Config{BaseURL: s.URL + "/v1/", Model: "test-model", Timeout: 5 * time.Second}
	if mod != nil {
		mod(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestNewValidates(t *testing.T) {
	t.Parallel()
	neg := -0.5
	for _, cfg := range []Config{
		{},
		{BaseURL: "http://127.0.0.1:8080/v1"},
		{BaseURL: "127.0.0.1:8080", Model: "m"},
		{BaseURL: "ftp://host/v1", Model: "m"},
		{BaseURL: "http:///v1", Model: "m"},
		{BaseURL: "http://h/v1", Model: "m", Timeout: -time.Second},
		{BaseURL: "http://h/v1", Model: "m", MaxTokens: -1},
		{BaseURL: "http://h/v1", Model: "m", Temperature: &neg},
		{BaseURL: "http://h/v1", Model: "m", MaxResponseBytes: -1},
	} {
		if _, err := New(cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("New(%+v) = %v, want ErrConfig", cfg, err)
		}
	}
	c, err := New(Config{BaseURL: "http://127.0.0.1:11434/v1/", Model: "llama3.1:8b"})
	if err != nil {
		t.Fatal(err)
	}
	if c.endpoint != "http://127.0.0.1:11434/v1/chat/completions" || c.cfg.Timeout != DefaultTimeout || c.cfg.MaxTokens != DefaultMaxTokens || *c.cfg.Temperature != DefaultTemperature {
		t.Errorf("defaults: %s %+v", c.endpoint, c.cfg)
	}
}

// TestRequestShape checks what is sent: the OpenAI chat-completions body
// llama-server and Ollama parse (Ollama's openai.ChatCompletionRequest:
// model, messages, stream, max_tokens, temperature, response_format).
func TestRequestShape(t *testing.T) {
	t.Parallel()
	s := replay(t, "llamacpp-chapter.json")
	c := client(t, s, func(c *Config) { c.APIKey = "sk-local" })
	if _, err := c.Chapter(context.Background(), summary.Request{Text: "Speaker A: Bees are dying."}); err != nil {
		t.Fatal(err)
	}
	r := s.requests[0]
	if r.Model != "test-model" || r.Stream || r.MaxTokens != DefaultMaxTokens || r.Temperature != DefaultTemperature ||
		r.ResponseFormat == nil || r.ResponseFormat.Type != "json_object" || len(r.Messages) != 2 ||
		r.Messages[0].Role != "system" || r.Messages[1].Role != "user" || !strings.HasSuffix(r.Messages[1].Content, "Speaker A: Bees are dying.") {
		t.Errorf("request %+v", r)
	}
	if h := s.headers[0]; h.Get("Authorization") != "Bearer sk-local" || h.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v", h)
	}
	// No key, no Authorization header; no response_format when disabled
	// or for summaries.
	s2 := replay(t, "llamacpp-chapter.json")
	c2 := client(t, s2, func(c *Config) { c.NoResponseFormat = true })
	c2.Chapter(context.Background(), summary.Request{Text: "x"})
	c2.Summarize(context.Background(), summary.Request{Text: "x", Type: transcribe.SummaryParagraph})
	for i, r := range s2.requests {
		if r.ResponseFormat != nil || s2.headers[i].Get("Authorization") != "" {
			t.Errorf("request %d: %+v %v", i, r, s2.headers[i])
		}
	}
}

func TestRecordedAnswers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		rec  string
		typ  transcribe.SummaryType
		want string
	}{
		{"llamacpp-bullets.json", transcribe.SummaryBullets, "- Beekeepers lost almost half of their honeybee colonies last winter, mostly to the varroa mite.\n" +
			"- Pesticides and a lack of varied flowers weaken the hives further.\n" +
			"- Mortgage rates have doubled in two years, pushing first-time buyers to keep renting."},
		{"openai-bullets.json", transcribe.SummaryBulletsVerbose, "- Speaker A reports that the internet has been down since the morning.\n" +
			"- Speaker B finds an outage caused by a cut fiber cable.\n" +
			"- Service returns by six tonight, and the day is credited to the bill."},
		{"ollama-headline.json", transcribe.SummaryHeadline, "Beekeepers lost almost half of their honeybee colonies last winter as mites and pesticides took their toll."},
		{"ollama-think.json", transcribe.SummaryGist, "Honeybee colony losses"},
		{"ollama-headline.json", transcribe.SummaryParagraph, "\"Beekeepers lost almost half of their honeybee colonies last winter as mites and pesticides took their toll.\""},
	}
	for _, c := range cases {
		s := replay(t, c.rec)
		got, err := client(t, s, nil).Summarize(ctx, summary.Request{Text: "...", Type: c.typ, Model: transcribe.SummaryConversational})
		if err != nil {
			t.Errorf("%s: %v", c.rec, err)
			continue
		}
		if got != c.want {
			t.Errorf("%s as %s:\n got %q\nwant %q", c.rec, c.typ, got, c.want)
		}
		if !strings.Contains(s.requests[0].Messages[1].Content, "naming the speakers") {
			t.Errorf("%s: conversational instructions missing", c.rec)
		}
	}
	for _, rec := range []string{"llamacpp-chapter.json", "ollama-chapter-fenced.json"} {
		ct, err := client(t, replay(t, rec), nil).Chapter(ctx, summary.Request{Text: "..."})
		if err != nil || ct.Gist == "" || strings.HasSuffix(ct.Gist, ".") || ct.Headline == "" || strings.Contains(ct.Summary, "\n") {
			t.Errorf("%s: %+v, %v", rec, ct, err)
		}
	}
}

// TestFailures checks every way an exchange can fail: each gives an error
// wrapping the documented sentinel, never a panic or a partial answer.
func TestFailures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ask := func(c *Client) error {
		_, err := c.Summarize(ctx, summary.Request{Text: "...", Type: transcribe.SummaryBullets})
		return err
	}
	// Refused: a port nobody listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	refused, _ := New(Config{BaseURL: "http://" + addr + "/v1", Model: "m"})
	if err := ask(refused); !errors.Is(err, ErrUnreachable) {
		t.Errorf("refused: %v", err)
	}
	// Timeout: the server never answers.
	hang := newServer(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	if err := ask(client(t, hang, func(c *Config) { c.Timeout = 100 * time.Millisecond })); !errors.Is(err, ErrTimeout) {
		t.Errorf("timeout: %v", err)
	}
	// Error statuses with the servers' bodies.
	for _, c := range []struct {
		rec      string
		status   int
		sentinel error
		msg      string
	}{
		{"llamacpp-loading.json", 503, ErrUnreachable, "Loading model"},
		{"ollama-error.json", 500, ErrUnreachable, "llama runner process has terminated"},
		{"llamacpp-context.json", 400, nil, "exceeds the available context size"},
		{"ollama-notfound.json", 404, nil, "not found, try pulling it first"},
	} {
		err := ask(client(t, replay(t, c.rec), nil))
		var ae *APIError
		if !errors.As(err, &ae) || ae.StatusCode != c.status || !strings.Contains(ae.Message, c.msg) || ae.Type == "" {
			t.Errorf("%s: %v", c.rec, err)
		}
		if c.sentinel != nil && !errors.Is(err, c.sentinel) {
			t.Errorf("%s: %v does not wrap %v", c.rec, err, c.sentinel)
		}
	}
	// Truncated at max_tokens.
	if _, err := client(t, replay(t, "llamacpp-truncated.json"), nil).Chapter(ctx, summary.Request{Text: "..."}); !errors.Is(err, ErrTruncated) {
		t.Errorf("finish_reason length: %v", err)
	}
	// Malformed answers.
	for name, h := range map[string]func(w http.ResponseWriter, r *http.Request){
		"html from a proxy": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html><body>It works!</body></html>")
		},
		"no choices": func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"id":"x","object":"chat.completion","choices":[]}`)
		},
		"null content": func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":null},"finish_reason":"stop"}]}`)
		},
		"choices not a list": func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"choices":{"message":"hi"}}`)
		},
	} {
		if err := ask(client(t, newServer(t, h), nil)); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// A body cut off in the middle: Content-Length promises more than
	// arrives before the connection closes.
	rec := load(t, "llamacpp-bullets.json")
	cut := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(rec.Body)))
		w.WriteHeader(200)
		w.Write(rec.Body[:len(rec.Body)/2])
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
			}
		}
	})
	if err := ask(client(t, cut, nil)); !errors.Is(err, ErrUnreachable) {
		t.Errorf("cut body: %v", err)
	}
	// An answer longer than MaxResponseBytes.
	if err := ask(client(t, replay(t, "llamacpp-bullets.json"), func(c *Config) { c.MaxResponseBytes = 100 })); !errors.Is(err, ErrMalformed) {
		t.Errorf("oversized: %v", err)
	}
	// Complete answers that are not what was asked.
	say := func(content string) *server {
		return newServer(t, func(w http.ResponseWriter, r *http.Request) {
			b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}}})
			w.Write(b)
		})
	}
	if err := ask(client(t, say("The transcript is about bees and mortgages."), nil)); !errors.Is(err, ErrUnusable) {
		t.Errorf("bullets without bullets: %v", err)
	}
	if _, err := client(t, say("This transcript discusses many things including bees, mortgages, marathons and more."), nil).Summarize(ctx, summary.Request{Type: transcribe.SummaryGist}); !errors.Is(err, ErrUnusable) {
		t.Errorf("long gist: %v", err)
	}
	for _, s := range []string{`{"gist": "Bees"}`, `not json at all`, "{\"gist\": \"Bees\", \"headline\": \"x\", \"summary\": \"a\nb\"}"} {
		if _, err := client(t, say(s), nil).Chapter(ctx, summary.Request{}); !errors.Is(err, ErrUnusable) {
			t.Errorf("chapter %q: %v", s, err)
		}
	}
	// The caller's context cancelled while waiting.
	cctx, cancel := context.WithCancel(ctx)
	slow := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		cancel()
		<-r.Context().Done()
	})
	if _, err := client(t, slow, nil).Summarize(cctx, summary.Request{}); !errors.Is(err, context.Canceled) || errors.Is(err, ErrTimeout) {
		t.Errorf("cancelled: %v", err)
	}
}

// lecture is a transcript on two topics for the stage tests.
const lecture = "Beekeepers across the country lost almost half of their honeybee colonies last winter. " +
	"The biggest problem is a tiny parasite called the varroa mite, which feeds on the bees and spreads viruses through the hive. " +
	"Pesticides sprayed on nearby crops weaken the colonies even further. " +
	"Some beekeepers now plant wildflower strips and feed their bees sugar syrup in the autumn. " +
	"Mortgage rates have roughly doubled in the past two years. " +
	"On a typical home loan that adds several hundred dollars to the monthly payment. " +
	"First time buyers are hit hardest, because they have smaller savings for a down payment. " +
	"Many are choosing to keep renting, while others look at smaller houses farther from the city."

func summaryOf(t *testing.T, gen summary.Generator, typ transcribe.SummaryType) string {
	t.Helper()
	tr := nlptest.Transcript(nlptest.Words(lecture))
	tr.Summarization = transcribe.Ptr(true)
	m := transcribe.SummaryInformative
	tr.SummaryType, tr.SummaryModel = &typ, &m
	o := summary.Options{}
	if gen != nil {
		o.Generator = gen
	}
	if err := summary.Stages(o)[0].Apply(context.Background(), nlptest.Job(tr)); err != nil {
		t.Fatal(err)
	}
	return *tr.Summary
}

// TestStagesFallBack runs the summary and chapter stages with the real
// client against every failing server: the transcript still gets the
// extractive summary and chapters.
func TestStagesFallBack(t *testing.T) {
	t.Parallel()
	extractive := summaryOf(t, nil, transcribe.SummaryBullets)
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	refused, _ := New(Config{BaseURL: "http://" + addr + "/v1", Model: "m"})
	hang := newServer(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	gens := map[string]*Client{
		"refused":   refused,
		"timeout":   client(t, hang, func(c *Config) { c.Timeout = 100 * time.Millisecond }),
		"503":       client(t, replay(t, "llamacpp-loading.json"), nil),
		"500":       client(t, replay(t, "ollama-error.json"), nil),
		"truncated": client(t, replay(t, "llamacpp-truncated.json"), nil),
		"malformed": client(t, newServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{") }), nil),
	}
	for name, g := range gens {
		if got := summaryOf(t, g, transcribe.SummaryBullets); got != extractive {
			t.Errorf("%s: summary %q, want the extractive one %q", name, got, extractive)
		}
		tr := nlptest.Transcript(nlptest.Words(lecture))
		tr.AutoChapters = transcribe.Ptr(true)
		if err := summary.Stages(summary.Options{Generator: g})[1].Apply(context.Background(), nlptest.Job(tr)); err != nil {
			t.Fatal(err)
		}
		if len(tr.Chapters) == 0 || tr.Chapters[0].Gist == "" || tr.Chapters[0].Summary == "" {
			t.Errorf("%s: chapters %+v", name, tr.Chapters)
		}
	}
	// A working server's answer is used.
	if got := summaryOf(t, client(t, replay(t, "llamacpp-bullets.json"), nil), transcribe.SummaryBullets); !strings.HasPrefix(got, "- Beekeepers lost almost half") {
		t.Errorf("generated summary not used: %q", got)
	}
	tr := nlptest.Transcript(nlptest.Words(lecture))
	tr.AutoChapters = transcribe.Ptr(true)
	if err := summary.Stages(summary.Options{Generator: client(t, replay(t, "llamacpp-chapter.json"), nil)})[1].Apply(context.Background(), nlptest.Job(tr)); err != nil {
		t.Fatal(err)
	}
	if len(tr.Chapters) == 0 || tr.Chapters[0].Gist != "Honeybee colony losses" {
		t.Errorf("generated chapters not used: %+v", tr.Chapters)
	}
}

func TestClean(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"<think>hmm</think>\n\nBees":                  "Bees",
		"```\n- a\n- b\n```":                          "- a\n- b",
		"Here are the key points:\n- a":               "- a",
		"**Bold** words":                              "Bold words",
		"Sure! Here is your summary:\nBees are dying": "Bees are dying",
	} {
		if got := clean(in); got != want {
			t.Errorf("clean(%q) = %q, want %q", in, got, want)
		}
	}
}
