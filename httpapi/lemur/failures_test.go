package lemur_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"

	"github.com/earshot-dev/earshot/httpapi/lemur"
)

func raw(status int, ctype, body string) recording {
	return recording{Status: status, ContentType: ctype, Body: []byte(body)}
}

// TestModelFailures: every way the model server fails becomes a clear
// answer through the SDK (status and reason), promptly.
func TestModelFailures(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		reply  func(t *testing.T) func(chatRequest) recording
		edit   func(*lemur.Config)
		status int
		msg    string
		calls  int // model requests expected; 0: not checked
	}{
		{name: "loading 503 (llama-server)", reply: replay("llamacpp-loading.json"), status: 503, msg: "not ready or is overloaded (503 unavailable_error: Loading model)", calls: 1},
		{name: "runner crashed 500 (Ollama)", reply: replay("ollama-error.json"), status: 502, msg: "failed (500 api_error: llama runner process has terminated: signal: killed)", calls: 1},
		{name: "unknown model 404 (Ollama)", reply: replay("ollama-notfound.json"), status: 502, msg: `does not serve the configured model (404 not_found_error: model "llama3.1:8b" not found`, calls: 1},
		{name: "context overflow 400 (llama-server)", reply: replay("llamacpp-context.json"), status: 502, msg: "longer than its context even after it was cut into smaller parts", calls: 4},
		{name: "cut at max_tokens (llama-server)", reply: replay("llamacpp-truncated.json"), status: 422, msg: "longer than max_output_size (300 tokens)", calls: 1},
		{name: "rate limited 429", reply: fixed(raw(429, "application/json", `{"error":{"message":"slow down","type":"rate_limit"}}`)), status: 503, msg: "overloaded (429 rate_limit: slow down)"},
		{name: "bad key 401", reply: fixed(raw(401, "application/json", `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`)), status: 502, msg: "refused this server's credentials"},
		{name: "HTML from a proxy 502", reply: fixed(raw(502, "text/html", "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>")), status: 502, msg: "failed (502: 502 Bad Gateway"},
		{name: "HTML page 200", reply: fixed(raw(200, "text/html", "<html><body>Welcome to nginx!</body></html>")), status: 502, msg: "not a chat completion"},
		{name: "empty choices", reply: fixed(raw(200, "application/json", `{"id":"x","object":"chat.completion","choices":[]}`)), status: 502, msg: "not a chat completion (malformed answer: no choices)"},
		{name: "null content", reply: fixed(raw(200, "application/json", `{"choices":[{"index":0,"message":{"role":"assistant","content":null},"finish_reason":"stop"}]}`)), status: 502, msg: "empty message content"},
		{name: "body cut off", reply: fixed(raw(200, "application/json", `{"choices":[{"index":0,"message":{"role":"assistant","content":"Sarah pa`)), status: 502, msg: "not a chat completion"},
		{name: "only reasoning", reply: func(t *testing.T) func(chatRequest) recording {
			return fixed(answer(t, "ollama-think.json", "<think>The user wants a summary.</think>", true))(t)
		}, status: 502, msg: "could not be used: it was empty once cleaned", calls: 2},
		{name: "model timeout", reply: slow(2 * time.Second), edit: func(c *lemur.Config) { c.ModelTimeout = 300 * time.Millisecond }, status: 504, msg: "did not answer within 300ms", calls: 1},
		{name: "request timeout", reply: slow(2 * time.Second), edit: func(c *lemur.Config) { c.RequestTimeout = 300 * time.Millisecond }, status: 504, msg: "took longer than 300ms", calls: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			chat := newChat(t, c.reply(t))
			e := newEnv(t, chat, c.edit)
			start := time.Now()
			_, err := e.client.LeMUR.Task(context.Background(), aai.LeMURTaskParams{Prompt: aai.String("Who paid?"),
				LeMURBaseParams: aai.LeMURBaseParams{InputText: aai.String(shortText), MaxOutputSize: aai.Int64(300)}})
			status, msg := apiStatus(t, err)
			if status != c.status || !strings.Contains(msg, c.msg) {
				t.Errorf("%d %q, want %d with %q", status, msg, c.status, c.msg)
			}
			if el := time.Since(start); el > 1500*time.Millisecond {
				t.Errorf("answered after %v", el)
			}
			if n := len(chat.requests()); c.calls > 0 && n != c.calls {
				t.Errorf("%d model requests, want %d", n, c.calls)
			}
		})
	}
}

func replay(name string) func(t *testing.T) func(chatRequest) recording {
	return func(t *testing.T) func(chatRequest) recording {
		rec := load(t, name)
		return func(chatRequest) recording { return rec }
	}
}

func fixed(rec recording) func(t *testing.T) func(chatRequest) recording {
	return func(*testing.T) func(chatRequest) recording { return func(chatRequest) recording { return rec } }
}

func slow(d time.Duration) func(t *testing.T) func(chatRequest) recording {
	return func(t *testing.T) func(chatRequest) recording {
		return func(chatRequest) recording {
			time.Sleep(d)
			return answer(t, "llamacpp-bullets.json", "late", true)
		}
	}
}

// TestModelUnreachable: a model server that refuses connections, and one
// that drops the connection mid-answer.
func TestModelUnreachable(t *testing.T) {
	t.Parallel()
	closed := newChat(t, func(chatRequest) recording { return recording{} })
	closed.Close()
	e := newEnv(t, closed, nil)
	_, err := e.client.LeMUR.Summarize(context.Background(), aai.LeMURSummaryParams{LeMURBaseParams: aai.LeMURBaseParams{InputText: aai.String(shortText)}})
	if status, msg := apiStatus(t, err); status != 502 || !strings.Contains(msg, "could not be reached") {
		t.Errorf("refused: %d %q", status, msg)
	}

	drop := newChat(t, func(chatRequest) recording { panic(http.ErrAbortHandler) })
	e = newEnv(t, drop, nil)
	_, err = e.client.LeMUR.Summarize(context.Background(), aai.LeMURSummaryParams{LeMURBaseParams: aai.LeMURBaseParams{InputText: aai.String(shortText)}})
	if status, msg := apiStatus(t, err); status != 502 || !strings.Contains(msg, "could not be reached") {
		t.Errorf("dropped: %d %q", status, msg)
	}
}

// TestUnusableAnswers: question-answer answers that are not the JSON
// asked for, or name none of the options, are asked for once more, then
// refused with a reason.
func TestUnusableAnswers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ content, msg string }{
		{"Sarah paid twenty five dollars.", "0 answers for 1 questions"},
		{`{"answers": [{"question": "q", "answer": "Maybe"}]}`, `"Maybe" is none of the options`},
		{`{"answers": [{"question": "q", "answer": ""}]}`, "answer 1 is empty"},
	} {
		chat := newChat(t, func(chatRequest) recording { return answer(t, "ollama-headline.json", c.content, true) })
		e := newEnv(t, chat, nil)
		_, err := e.client.LeMUR.Question(context.Background(), aai.LeMURQuestionAnswerParams{
			LeMURBaseParams: aai.LeMURBaseParams{InputText: aai.String(shortText)},
			Questions:       []aai.LeMURQuestion{{Question: aai.String("Did Tom book?"), AnswerOptions: []string{"Yes", "No"}}}})
		if status, msg := apiStatus(t, err); status != 502 || !strings.Contains(msg, c.msg) {
			t.Errorf("%q: %d %q, want 502 with %q", c.content, status, msg, c.msg)
		}
		if n := len(chat.requests()); n != 2 {
			t.Errorf("%q: %d model requests, want 2 (one retry)", c.content, n)
		}
	}
}
