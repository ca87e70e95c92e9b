package lemur_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"

	"github.com/earshot-dev/earshot/httpapi"
	"github.com/earshot-dev/earshot/httpapi/lemur"
	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/media"
	"github.com/earshot-dev/earshot/transcribe/pipeline"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// The recordings of the llm package (transcribe/analysis/llm/testdata),
// each shaped after a server's own source (its "source" field): the
// failures are replayed as they are, and the successful answers are the
// templates of the answers here (the content replaced by what each test
// needs).
const llmTestdata = "../../transcribe/analysis/llm/testdata/"

type recording struct {
	Source      string          `json:"source"`
	Status      int             `json:"status"`
	ContentType string          `json:"content_type"`
	Body        json.RawMessage `json:"body"`
}

func load(t testing.TB, name string) recording {
	t.Helper()
	b, err := os.ReadFile(llmTestdata + name)
	if err != nil {
		t.Fatal(err)
	}
	var r recording
	if err := json.Unmarshal(b, &r); err != nil || r.Source == "" || r.Status == 0 {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

// answer is a recorded success (llamacpp-bullets.json: llama-server's
// to_json_oaicompat_chat; ollama-headline.json: Ollama's
// openai.ToChatCompletion) with its content replaced and, when usage is
// false, its usage removed.
func answer(t testing.TB, template, content string, withUsage bool) recording {
	t.Helper()
	r := load(t, template)
	var body map[string]any
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	body["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"] = content
	if !withUsage {
		delete(body, "usage")
	}
	r.Body, _ = json.Marshal(body)
	return r
}

// chatRequest is what the fake model server reads of a request.
type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	MaxTokens      int             `json:"max_tokens"`
	Temperature    float64         `json:"temperature"`
	ResponseFormat json.RawMessage `json:"response_format"`
}

func (c chatRequest) user() string { return c.Messages[len(c.Messages)-1].Content }

// chatServer is a real HTTP server on loopback serving POST
// /v1/chat/completions with reply, keeping every request.
type chatServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []chatRequest
}

func newChat(t *testing.T, reply func(chatRequest) recording) *chatServer {
	t.Helper()
	s := &chatServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		var req chatRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			t.Errorf("model request: %v", err)
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.reqs = append(s.reqs, req)
		s.mu.Unlock()
		rec := reply(req)
		w.Header().Set("Content-Type", rec.ContentType)
		w.WriteHeader(rec.Status)
		w.Write(rec.Body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *chatServer) requests() []chatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]chatRequest(nil), s.reqs...)
}

// Texts of the fake recognizer: audio of up to 4 s says shortText, longer
// audio longText.
const shortText = "my name is sarah and i paid twenty five dollars for the tickets we agreed that tom will book the hotel by friday"

var longText = strings.Repeat("the committee reviewed the budget for the new library and the roof repairs and decided to ask the city for more money ", 40) +
	"finally anna promised to send the minutes to everyone by monday"

// env is an Earshot API with LeMUR over real HTTP, and an SDK client.
type env struct {
	srv    *httptest.Server
	svc    *transcribe.Service
	client *aai.Client // project p1
	other  *aai.Client // project p2
	chat   *chatServer
}

const (
	key1 = "lemur-key-1"
	key2 = "lemur-key-2"
)

// newEnv starts the API with a LeMUR handler on chat (none when chat is
// nil); edit changes the handler's Config.
func newEnv(t *testing.T, chat *chatServer, edit func(*lemur.Config)) *env {
	t.Helper()
	dec, err := media.NewDecoder(media.Config{})
	if err != nil {
		t.Fatal(err)
	}
	rec := &transcribetest.FakeRecognizer{Script: func(audio []int16, _ transcribe.RecognizeOptions) ([]transcribe.Word, error) {
		if len(audio) <= 4*16000 {
			return transcribetest.SpreadWords(shortText, audio, 16000), nil
		}
		return transcribetest.SpreadWords(longText, audio, 16000), nil
	}}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc, err := transcribe.NewService(transcribe.Config{
		Store: memory.New(), Blobs: memory.NewBlobStore(), Recognizer: rec, Decoder: dec, Key: transcribe.NewKey(),
		Workers: 2, PollInterval: 10 * time.Millisecond, AllowPrivateURLs: true,
		Stages: pipeline.Default(pipeline.Options{}), Logger: quiet,
	})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{svc: svc, chat: chat}
	e.srv = httptest.NewUnstartedServer(nil)
	urls, err := httpapi.NewURLs("http://"+e.srv.Listener.Addr().String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := httpapi.Config{Service: svc, Auth: httpapi.Keys{key1: "p1", key2: "p2"}, URLs: urls, RateLimit: -1, Logger: quiet}
	if chat != nil {
		lc := lemur.Config{Service: svc, BaseURL: chat.URL + "/v1", Model: "test-model", ModelTimeout: 5 * time.Second, Logger: quiet}
		if edit != nil {
			edit(&lc)
		}
		h, err := lemur.New(lc)
		if err != nil {
			t.Fatal(err)
		}
		cfg.LeMUR = h
	}
	api, err := httpapi.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.srv.Config.Handler = api
	e.srv.Start()
	svc.Start()
	t.Cleanup(func() {
		e.srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		svc.Close(ctx)
	})
	e.client = aai.NewClientWithOptions(aai.WithAPIKey(key1), aai.WithBaseURL(e.srv.URL))
	e.other = aai.NewClientWithOptions(aai.WithAPIKey(key2), aai.WithBaseURL(e.srv.URL))
	return e
}

// wav is seconds of a 300 Hz tone, 16 kHz mono.
func wav(t testing.TB, seconds float64) []byte { return transcribetest.ToneWAV(seconds) }

// transcript submits seconds of audio through the SDK and waits for the
// transcript to complete.
func (e *env) transcript(t *testing.T, c *aai.Client, seconds float64, params *aai.TranscriptOptionalParams) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr, err := c.Transcripts.SubmitFromReader(ctx, bytes.NewReader(wav(t, seconds)), params)
	if err != nil {
		t.Fatal(err)
	}
	for {
		got, err := c.Transcripts.Get(ctx, *tr.ID)
		if err != nil {
			t.Fatal(err)
		}
		switch got.Status {
		case aai.TranscriptStatusCompleted:
			return *tr.ID
		case aai.TranscriptStatusError:
			t.Fatalf("transcript %s failed: %s", *tr.ID, *got.Error)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// apiStatus returns the status and message of an SDK error.
func apiStatus(t *testing.T, err error) (int, string) {
	t.Helper()
	var ae aai.APIError
	if err == nil {
		t.Fatal("no error")
	}
	if !errors.As(err, &ae) {
		t.Fatalf("error %v (%T) is not an APIError", err, err)
	}
	return ae.Status, ae.Message
}

type rawResp struct {
	status int
	header http.Header
	body   map[string]any
}

// rawPost sends body as is and reads the JSON answer.
func rawPost(t *testing.T, e *env, key, path, body string) rawResp {
	t.Helper()
	return rawDo(t, e, http.MethodPost, key, path, body)
}

func rawDo(t *testing.T, e *env, method, key, path, body string) rawResp {
	t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	out := rawResp{status: res.StatusCode, header: res.Header}
	if ct := res.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s %s: Content-Type %q, body %q", method, path, ct, b)
	}
	if err := json.Unmarshal(b, &out.body); err != nil {
		t.Errorf("%s %s: body %q is not a JSON object", method, path, b)
	}
	return out
}
