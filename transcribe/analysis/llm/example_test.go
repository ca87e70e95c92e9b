package llm_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/earshot-dev/earshot/transcribe/analysis/llm"
	"github.com/earshot-dev/earshot/transcribe/analysis/summary"

	"github.com/earshot-dev/earshot/transcribe"
)

func ExampleClient_Summarize() {
	// A stand-in for llama-server or Ollama on loopback.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"object":"chat.completion","choices":[{"index":0,"finish_reason":"stop",`+
			`"message":{"role":"assistant","content":"Here is the summary:\n* Bees are dying.\n* Rates are up."}}]}`)
	}))
	defer srv.Close()

	c, err := llm.New(llm.Config{BaseURL: srv.URL + "/v1", Model: "llama3.1:8b", Timeout: 30 * time.Second})
	if err != nil {
		panic(err)
	}
	s, err := c.Summarize(context.Background(), summary.Request{Text: "Speaker A: ...", Type: transcribe.SummaryBullets})
	fmt.Println(s, err)
	// Output:
	// - Bees are dying.
	// - Rates are up. <nil>
}

func ExampleNew() {
	// A server wires the client into the summary and chapter stages; they
	// fall back to extractive summaries whenever it fails.
	c, err := llm.New(llm.Config{BaseURL: "http://127.0.0.1:11434/v1", Model: "llama3.1:8b"})
	if err != nil {
		panic(err)
	}
	stages := summary.Stages(summary.Options{Generator: c})
	fmt.Println(len(stages), stages[0].Name(), stages[1].Name())
	_, err = llm.New(llm.Config{BaseURL: "localhost:11434"})
	fmt.Println(err)
	// Output:
	// 2 summarization auto_chapters
	// llm: invalid configuration: BaseURL "localhost:11434" is not an http(s) URL with a host
}
