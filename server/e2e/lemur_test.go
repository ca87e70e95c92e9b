package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"

	"github.com/earshot-dev/earshot/internal/testaudio"
)

// TestLeMUR: the official Go SDK's LeMUR client against the real server
// process with EARSHOT_LLM_URL set to a chat model server on loopback
// (answers shaped as llama-server's, from the llm package's recordings):
// the model gets the recognized text, the answer comes back, it is kept
// across a restart (sealed in SQLite) and purged; a server without a
// model answers 400 saying so.
func TestLeMUR(t *testing.T) {
	raw, err := os.ReadFile("../../transcribe/analysis/llm/testdata/llamacpp-bullets.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Body map[string]any `json:"body"`
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	rec.Body["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"] = "The speaker is testing the transcription service."
	var mu sync.Mutex
	var prompts []string
	chat := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string `json:"model"`
			Messages []struct{ Content string }
		}
		json.NewDecoder(r.Body).Decode(&req)
		mu.Lock()
		prompts = append(prompts, req.Model+"\n"+req.Messages[len(req.Messages)-1].Content)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		json.NewEncoder(w).Encode(rec.Body)
	}))
	defer chat.Close()

	data, addr := t.TempDir(), freeAddr(t)
	llm := []string{"EARSHOT_API_KEYS=" + keyK + ":p", "EARSHOT_LLM_URL=" + chat.URL + "/v1", "EARSHOT_LLM_MODEL=llama3.1:8b", "EARSHOT_LLM_CONTEXT=2048"}
	s := startServer(t, data, addr, llm...)
	c := client(s, keyK)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tr := submitFile(t, ctx, c, testaudio.Speech(t, "slt", speechText), nil)
	res, err := c.LeMUR.Task(ctx, aai.LeMURTaskParams{Prompt: aai.String("What is the speaker doing?"),
		LeMURBaseParams: aai.LeMURBaseParams{TranscriptIDs: []string{*tr.ID}, FinalModel: aai.LeMURModelAnthropicClaude3_5_Sonnet}})
	if err != nil {
		t.Fatal(err)
	}
	if *res.Response != "The speaker is testing the transcription service." || *res.Usage.InputTokens != 243 {
		t.Errorf("answer %q, usage %+v", *res.Response, res.Usage)
	}
	mu.Lock()
	got := strings.Join(prompts, "\n")
	mu.Unlock()
	if !strings.HasPrefix(got, "llama3.1:8b\n") || !strings.Contains(got, strings.TrimSpace(deref(tr.Text))) || !strings.Contains(got, "Task: What is the speaker doing?") {
		t.Errorf("the model got %q; the transcript says %q", got, deref(tr.Text))
	}

	// Another process on the same data: the answer is there; purge it.
	s.stop(syscall.SIGTERM)
	s = startServer(t, data, addr, llm...)
	c = client(s, keyK)
	var again aai.LeMURTaskResponse
	if err := c.LeMUR.GetResponseData(ctx, *res.RequestID, &again); err != nil || *again.Response != *res.Response {
		t.Fatalf("after a restart: %+v, %v", again, err)
	}
	if p, err := c.LeMUR.PurgeRequestData(ctx, *res.RequestID); err != nil || !*p.Deleted {
		t.Fatalf("purge: %+v, %v", p, err)
	}
	var ae aai.APIError
	if err := c.LeMUR.GetResponseData(ctx, *res.RequestID, &again); !errors.As(err, &ae) || ae.Status != 404 {
		t.Errorf("GET after purge: %v", err)
	}

	// Without a model: 400 naming what is missing.
	s.stop(syscall.SIGTERM)
	s = startServer(t, data, addr, "EARSHOT_API_KEYS="+keyK+":p")
	c = client(s, keyK)
	_, err = c.LeMUR.Summarize(ctx, aai.LeMURSummaryParams{LeMURBaseParams: aai.LeMURBaseParams{TranscriptIDs: []string{*tr.ID}}})
	if !errors.As(err, &ae) || ae.Status != 400 || !strings.Contains(ae.Message, "no language model configured") {
		t.Errorf("no model: %v", err)
	}
}
