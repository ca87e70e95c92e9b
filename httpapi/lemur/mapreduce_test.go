package lemur_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"

	"github.com/earshot-dev/earshot/httpapi/lemur"
)

var partRE = regexp.MustCompile(`This is part (\d+) of (\d+)`)

// TestMapReduce: a transcript longer than the model's context is cut
// into parts that each fit, every part is read on its own, and the final
// answer is made from their notes, in order; the answer carries a
// warning, not an error.
func TestMapReduce(t *testing.T) {
	t.Parallel()
	chat := newChat(t, func(req chatRequest) recording {
		if m := partRE.FindStringSubmatch(req.user()); m != nil {
			return answer(t, "llamacpp-bullets.json", "note from part "+m[1], true)
		}
		if strings.Contains(req.user(), "Answer each question") {
			return answer(t, "ollama-headline.json", `{"answers": [{"question": "q", "answer": "Anna sends the minutes."}]}`, true)
		}
		return answer(t, "ollama-headline.json", "The committee asks the city for money; Anna sends the minutes.", true)
	})
	const ctxTokens = 1024
	e := newEnv(t, chat, func(c *lemur.Config) { c.ContextTokens = ctxTokens })
	id := e.transcript(t, e.client, 20, nil) // longText, about 4,800 characters
	res, err := e.client.LeMUR.Summarize(context.Background(), aai.LeMURSummaryParams{
		LeMURBaseParams: aai.LeMURBaseParams{TranscriptIDs: []string{id}, MaxOutputSize: aai.Int64(200)}})
	if err != nil {
		t.Fatal(err)
	}
	if *res.Response != "The committee asks the city for money; Anna sends the minutes." {
		t.Errorf("response %q", *res.Response)
	}
	var full struct {
		Warning string `json:"warning"`
	}
	if err := e.client.LeMUR.GetResponseData(context.Background(), *res.RequestID, &full); err != nil {
		t.Fatal(err)
	}
	reqs := chat.requests()
	parts := len(reqs) - 1
	if parts < 2 || !strings.Contains(full.Warning, fmt.Sprintf("cut into %d parts", parts)) {
		t.Fatalf("%d model requests; warning %q", len(reqs), full.Warning)
	}
	var text strings.Builder
	for i, r := range reqs {
		size := 0
		for _, m := range r.Messages {
			size += utf8.RuneCountInString(m.Content)
		}
		// Every prompt fits the context with the answer, even counting
		// three characters a token.
		if size/3+r.MaxTokens > ctxTokens {
			t.Errorf("request %d: %d characters and max_tokens %d overflow a context of %d tokens", i, size, r.MaxTokens, ctxTokens)
		}
		if i < parts {
			m := partRE.FindStringSubmatch(r.user())
			if m == nil || m[2] != fmt.Sprint(parts) {
				t.Fatalf("request %d is not a part: %q", i, r.user())
			}
			text.WriteString(r.user())
		}
	}
	// The parts hold the whole transcript (its last words too), and name it.
	all := strings.ToLower(text.String())
	if !strings.Contains(all, "anna promised to send the minutes to everyone by monday") || !strings.Contains(all, "=== transcript 1 (continued) ===") {
		t.Errorf("the parts miss the end of the transcript or its label")
	}
	final := reqs[parts].user()
	for i := 1; i <= parts; i++ {
		if !strings.Contains(final, fmt.Sprintf("--- Notes of part %d ---\nnote from part %d", i, i)) {
			t.Errorf("final prompt lacks the notes of part %d", i)
		}
	}
	if !strings.Contains(final, "Summarize the transcripts.") {
		t.Errorf("final prompt: %q", final)
	}

	// Question-answer over the same transcript: the answers come from the
	// notes, in the SDK's shape.
	qa, err := e.client.LeMUR.Question(context.Background(), aai.LeMURQuestionAnswerParams{
		LeMURBaseParams: aai.LeMURBaseParams{TranscriptIDs: []string{id}, MaxOutputSize: aai.Int64(200)},
		Questions:       []aai.LeMURQuestion{{Question: aai.String("Who sends the minutes?")}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(qa.Response) != 1 || *qa.Response[0].Answer != "Anna sends the minutes." || *qa.Response[0].Question != "Who sends the minutes?" {
		t.Errorf("answers %+v", qa.Response)
	}
}

// TestContextOverflowRetried: a model whose context is smaller than the
// server was told (it refuses prompts over 2,500 characters with
// llama-server's exceed_context_size_error) gets smaller parts, and the
// warning says so.
func TestContextOverflowRetried(t *testing.T) {
	t.Parallel()
	var refused atomic.Int32
	overflow := load(t, "llamacpp-context.json")
	chat := newChat(t, func(req chatRequest) recording {
		if utf8.RuneCountInString(req.user()) > 2500 {
			refused.Add(1)
			return overflow
		}
		if partRE.MatchString(req.user()) {
			return answer(t, "llamacpp-bullets.json", "a note", true)
		}
		return answer(t, "llamacpp-bullets.json", "The answer.", true)
	})
	e := newEnv(t, chat, nil)
	in, err := e.client.LeMUR.Task(context.Background(), aai.LeMURTaskParams{Prompt: aai.String("What happened?"),
		LeMURBaseParams: aai.LeMURBaseParams{InputText: aai.String(longText)}})
	if err != nil {
		t.Fatal(err)
	}
	var full struct {
		Warning string `json:"warning"`
	}
	if err := e.client.LeMUR.GetResponseData(context.Background(), *in.RequestID, &full); err != nil {
		t.Fatal(err)
	}
	if *in.Response != "The answer." || refused.Load() == 0 || !strings.Contains(full.Warning, "so they were cut smaller") {
		t.Errorf("response %q after %d refusals; warning %q", *in.Response, refused.Load(), full.Warning)
	}
}
