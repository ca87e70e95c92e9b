package openapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/httpapi"
	"github.com/earshot-dev/earshot/httpapi/lemur"
	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/transcribe/media"
	"github.com/earshot-dev/earshot/transcribe/pipeline"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// faultyLeMUR is a LeMUR store that fails on demand: "fail" with a plain
// error (500), "slow" with a deadline (503).
type faultyLeMUR struct {
	driver.LeMURStore
	mode atomic.Value // string
}

func (s *faultyLeMUR) fault() error {
	switch s.mode.Load() {
	case "fail":
		return errors.New("disk on fire")
	case "slow":
		return context.DeadlineExceeded
	}
	return nil
}

func (s *faultyLeMUR) GetLeMUR(ctx context.Context, p, id string) (*driver.LeMURRecord, error) {
	if err := s.fault(); err != nil {
		return nil, err
	}
	return s.LeMURStore.GetLeMUR(ctx, p, id)
}

func (s *faultyLeMUR) DeleteLeMUR(ctx context.Context, p, id string) (bool, error) {
	if err := s.fault(); err != nil {
		return false, err
	}
	return s.LeMURStore.DeleteLeMUR(ctx, p, id)
}

// lemurModel is a chat-completions server whose answer depends on a
// marker in the prompt: [crash] a 500, [loading] a 503, [slow] no answer
// in time, [cut] an answer stopped at max_tokens; otherwise an answer
// (JSON answers for question-answer).
func lemurModel(t *testing.T) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		u := req.Messages[len(req.Messages)-1].Content
		w.Header().Set("Content-Type", "application/json")
		content, finish := "Tom books the hotel.", "stop"
		switch {
		case strings.Contains(u, "[crash]"):
			w.WriteHeader(500)
			io.WriteString(w, `{"error":{"message":"llama runner process has terminated","type":"api_error"}}`)
			return
		case strings.Contains(u, "[loading]"):
			w.WriteHeader(503)
			io.WriteString(w, `{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`)
			return
		case strings.Contains(u, "[slow]"):
			time.Sleep(time.Second)
		case strings.Contains(u, "[cut]"):
			finish = "length"
		case strings.Contains(u, "Answer each question"):
			content = `{"answers": [{"question": "Who books?", "answer": "Tom"}]}`
		}
		b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "finish_reason": finish,
			"message": map[string]any{"role": "assistant", "content": content}}}, "usage": map[string]any{"prompt_tokens": 40, "completion_tokens": 5}})
		w.Write(b)
	}))
	t.Cleanup(s.Close)
	return s
}

// TestLeMURResponsesMatchDocument drives the LeMUR endpoints through
// success and every error the document lists, validating each exchange
// against the document, and checks that every documented LeMUR response
// was seen. (TestLiveResponsesMatchDocument leaves /lemur/ to this test.)
func TestLeMURResponsesMatchDocument(t *testing.T) {
	t.Parallel()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	dec, err := media.NewDecoder(media.Config{})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := transcribe.NewService(transcribe.Config{
		Store: memory.New(), Blobs: memory.NewBlobStore(), Decoder: dec, Key: transcribe.NewKey(),
		Recognizer: &transcribetest.FakeRecognizer{Text: "we agreed that tom will book the hotel by friday"},
		Stages:     pipeline.Default(pipeline.Options{}), AllowPrivateURLs: true, Workers: 2, PollInterval: 10 * time.Millisecond, Logger: quiet,
	})
	if err != nil {
		t.Fatal(err)
	}
	svc.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		svc.Close(ctx)
	})
	store := &faultyLeMUR{LeMURStore: memory.NewLeMURStore()}
	model := lemurModel(t)
	h, err := lemur.New(lemur.Config{Service: svc, BaseURL: model.URL + "/v1", Model: "m", ModelTimeout: 300 * time.Millisecond,
		MaxRequestBytes: 64 << 10, Store: store, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	auth := httpapi.Keys{key1: "p1", key2: "p2", key3: "p3"}
	serve := func(lm httpapi.LeMUR, rate float64) string {
		ts := httptest.NewUnstartedServer(nil)
		urls, err := httpapi.NewURLs("http://"+ts.Listener.Addr().String(), nil)
		if err != nil {
			t.Fatal(err)
		}
		api, err := httpapi.New(httpapi.Config{Service: svc, Auth: auth, URLs: urls, LeMUR: lm, RateLimit: rate, RateBurst: 1, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		ts.Config.Handler = api
		ts.Start()
		t.Cleanup(ts.Close)
		return ts.URL
	}
	seen := map[string]bool{}
	c := newChecker(t, serve(h, -1), seen)
	limited := newChecker(t, serve(nil, 0.0001), seen) // no model; one request per project

	// A completed transcript of p1, and one that failed.
	transcript := func(body string) string {
		r := c.do(req{method: "POST", target: "/v2/transcript", key: key1, body: []byte(body), status: 200})
		return r.str(t, "id")
	}
	up := c.do(req{method: "POST", target: "/v2/upload", key: key1, body: wav(t, 2, 1), ctype: "application/octet-stream", status: 200}).str(t, "upload_url")
	done := transcript(`{"audio_url":"` + up + `"}`)
	failed := transcript(`{"audio_url":"http://127.0.0.1:1/a.wav"}`)
	for _, id := range []string{done, failed} {
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			tr, err := svc.Get(context.Background(), "p1", id)
			if err != nil || tr.Status.Final() || time.Now().After(deadline) {
				break
			}
		}
	}

	gen := func(kind, body string, status int, docRejects bool) res {
		t.Helper()
		return c.do(req{method: "POST", target: "/lemur/v3/generate/" + kind, key: key1, body: []byte(body), status: status, docRejects: docRejects})
	}
	ids := `"transcript_ids":["` + done + `"]`
	task := gen("task", `{"prompt":"Who books?",`+ids+`,"context":{"trip":"Rome"},"final_model":"anthropic/claude-3-5-sonnet","max_output_size":300,"temperature":0.5}`, 200, false)
	gen("summary", `{`+ids+`,"answer_format":"TLDR"}`, 200, false)
	gen("action-items", `{"input_text":"Tom: I will book the hotel."}`, 200, false)
	qa := gen("question-answer", `{`+ids+`,"questions":[{"question":"Who books?","answer_format":"one word","context":"the hotel"}]}`, 200, false)
	long := gen("summary", `{"input_text":"`+strings.Repeat("Tom will book the hotel. ", 1200)+`"}`, 200, false)
	if !strings.Contains(long.str(t, "warning"), "cut into") {
		t.Errorf("no warning on a long input: %s", long.body)
	}
	for kind, body := range map[string]string{
		"task":            `{"prompt":"p"}`,                                       // neither transcript_ids nor input_text
		"summary":         `{"transcript_ids":["` + failed + `"]}`,                // not completed
		"action-items":    `{"input_text":"x","transcript_ids":["` + done + `"]}`, // both
		"question-answer": `{"input_text":"x","questions":[{"question":"q","answer_format":"f","answer_options":["a","b"]}]}`,
	} {
		gen(kind, body, 400, false)
	}
	for kind, body := range map[string]string{
		"task":            `{"input_text":"x"}`,                                                       // no prompt
		"summary":         `{"input_text":"x","temperature":1.5}`,                                     // out of range
		"action-items":    `{"input_text":"x","max_output_size":0}`,                                   // out of range
		"question-answer": `{"input_text":"x","questions":[{"question":"q","answer_options":["a"]}]}`, // one option
	} {
		gen(kind, body, 400, true)
	}
	big := `"input_text":"` + strings.Repeat("w", 70<<10) + `"`
	for _, kind := range []string{"task", "summary", "action-items", "question-answer"} {
		gen(kind, `{"prompt":"p","transcript_ids":["6f1c2c1e-8d7f-4f59-9a57-1b1a5b0d1d1d"],"questions":[{"question":"q"}]}`, 404, false)
		gen(kind, `{"prompt":"p",`+big+`,"questions":[{"question":"q"}]}`, 413, false)
		for marker, status := range map[string]int{"[crash]": 502, "[loading]": 503, "[slow]": 504, "[cut]": 422} {
			r := gen(kind, `{"prompt":"p","input_text":"`+marker+`","questions":[{"question":"q"}]}`, status, false)
			if status == 503 && r.header.Get("Retry-After") == "" {
				t.Errorf("%s %s: 503 without Retry-After", kind, marker)
			}
		}
		c.do(req{method: "POST", target: "/lemur/v3/generate/" + kind, body: []byte(`{"input_text":"x"}`), status: 401, docRejects: true})
	}

	// GET and DELETE, with the store failing and slow.
	taskID, qaID := task.str(t, "request_id"), qa.str(t, "request_id")
	for _, id := range []string{taskID, qaID} {
		got := c.do(req{method: "GET", target: "/lemur/v3/" + id, key: key1, status: 200})
		if id == taskID && !bytes.Equal(got.body, task.body) {
			t.Errorf("GET gave %s, POST %s", got.body, task.body)
		}
	}
	for _, m := range []string{"GET", "DELETE"} {
		c.do(req{method: m, target: "/lemur/v3/" + taskID, key: key2, status: 404})
		c.do(req{method: m, target: "/lemur/v3/not-an-id", key: key1, status: 404})
		c.do(req{method: m, target: "/lemur/v3/" + taskID, status: 401, docRejects: true})
		store.mode.Store("fail")
		c.do(req{method: m, target: "/lemur/v3/" + taskID, key: key1, status: 500})
		store.mode.Store("slow")
		if r := c.do(req{method: m, target: "/lemur/v3/" + taskID, key: key1, status: 503}); r.header.Get("Retry-After") == "" {
			t.Errorf("%s: 503 without Retry-After", m)
		}
		store.mode.Store("")
	}
	c.do(req{method: "DELETE", target: "/lemur/v3/" + taskID, key: key1, status: 200})
	c.do(req{method: "GET", target: "/lemur/v3/" + taskID, key: key1, status: 404})

	// A server without a model: 400; then the project's one request is
	// spent: 429.
	limited.do(req{method: "GET", target: "/lemur/v3/" + qaID, key: key1, status: 400})
	limited.do(req{method: "DELETE", target: "/lemur/v3/" + qaID, key: key2, status: 400})
	limited.do(req{method: "GET", target: "/lemur/v3/" + qaID, key: key1, status: 429})
	limited.do(req{method: "DELETE", target: "/lemur/v3/" + qaID, key: key1, status: 429})
	for _, kind := range []string{"task", "summary", "action-items", "question-answer"} {
		limited.do(req{method: "POST", target: "/lemur/v3/generate/" + kind, key: key1, body: []byte(`{"prompt":"p","input_text":"x","questions":[{"question":"q"}]}`), status: 429})
	}

	var notSeen []string
	for path, item := range c.spec.model.Paths.PathItems.FromOldest() {
		if !strings.HasPrefix(path, "/lemur/") {
			continue
		}
		for method, op := range item.GetOperations().FromOldest() {
			for code := range op.Responses.Codes.KeysFromOldest() {
				if k := strings.ToUpper(method) + " " + path + " " + code; !seen[k] {
					notSeen = append(notSeen, k)
				}
			}
		}
	}
	sort.Strings(notSeen)
	if len(notSeen) > 0 {
		t.Errorf("documented LeMUR responses the test never saw:\n  %s", strings.Join(notSeen, "\n  "))
	}
}
