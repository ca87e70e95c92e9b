package llm

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// TestCompleteUsage: the usage the servers send comes back with the
// answer; an answer without usage gives nil, not zeros.
func TestCompleteUsage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		file           string
		prompt, answer int64
	}{
		{"llamacpp-bullets.json", 243, 71},
		{"ollama-headline.json", 231, 64},
		{"openai-bullets.json", 180, 55},
	} {
		s := replay(t, c.file)
		out, u, err := client(t, s, nil).CompleteUsage(context.Background(), []Message{{Role: "user", Content: "hi"}}, false)
		if err != nil || out == "" {
			t.Fatalf("%s: %q, %v", c.file, out, err)
		}
		if u == nil || u.PromptTokens != c.prompt || u.CompletionTokens != c.answer {
			t.Errorf("%s: usage %+v, want %d/%d", c.file, u, c.prompt, c.answer)
		}
	}
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"choices":[{"message":{"content":"fine"},"finish_reason":"stop"}]}`))
	})
	if _, u, err := client(t, s, nil).CompleteUsage(context.Background(), []Message{{Role: "user", Content: "hi"}}, false); err != nil || u != nil {
		t.Errorf("no usage sent: %+v, %v", u, err)
	}
}

// TestPlainText: a free-form answer loses its wrapping and markup but
// keeps its lines.
func TestPlainText(t *testing.T) {
	t.Parallel()
	got := PlainText("<think>plan</think>\n```\nHere is the answer:\n**Bold** [link](http://x)\n<script>alert(1)</script>line two\x1b[31m\n```")
	if want := "Bold link\nline two[31m"; got != want {
		t.Errorf("PlainText: %q, want %q", got, want)
	}
	if strings.Contains(PlainText("a\u202eb"), "\u202e") {
		t.Error("bidi override kept")
	}
}
