package lemur_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"
)

// TestSDK runs the official Go SDK v1.10.0's LeMUR client (Task,
// Summarize, Question, ActionItems, GetResponseData, PurgeRequestData)
// against Earshot over real HTTP, with a model server replaying
// llama-server's and Ollama's answer shapes, and checks what reached the
// model: the configured model, max_output_size as max_tokens, the
// temperature, the transcript's speakers' text, the context and prompt.
func TestSDK(t *testing.T) {
	t.Parallel()
	chat := newChat(t, func(req chatRequest) recording {
		u := req.user()
		switch {
		case strings.Contains(u, "Task: "):
			return answer(t, "llamacpp-bullets.json", "Here is the answer:\n**Sarah** paid $25 for the tickets.", true)
		case strings.Contains(u, "Summarize the transcripts"):
			return answer(t, "ollama-headline.json", "<think>short</think>Sarah paid for tickets; Tom books the hotel.", true)
		case strings.Contains(u, "List the action items"):
			return answer(t, "llamacpp-bullets.json", "- Tom: book the hotel by Friday", false)
		default: // question-answer, fenced JSON as small models write it
			return answer(t, "ollama-headline.json", "```json\n{\"answers\": [{\"question\": \"How much?\", \"answer\": \"Twenty five dollars.\"},"+
				" {\"question\": \"Was a hotel mentioned?\", \"answer\": \"Yes, Tom will book it.\"}]}\n```", true)
		}
	})
	e := newEnv(t, chat, nil)
	id := e.transcript(t, e.client, 3, nil)
	ctx := context.Background()
	base := aai.LeMURBaseParams{TranscriptIDs: []string{id}, Context: "A call about a trip", FinalModel: aai.LeMURModelAnthropicClaude3_5_Sonnet,
		MaxOutputSize: aai.Int64(300), Temperature: aai.Float64(0.4)}

	task, err := e.client.LeMUR.Task(ctx, aai.LeMURTaskParams{Prompt: aai.String("Who paid, and how much?"), LeMURBaseParams: base})
	if err != nil {
		t.Fatal(err)
	}
	if got := *task.Response; got != "Sarah paid $25 for the tickets." {
		t.Errorf("task response %q", got)
	}
	if task.RequestID == nil || task.Usage.InputTokens == nil || *task.Usage.InputTokens != 243 || *task.Usage.OutputTokens != 71 {
		t.Errorf("task request id %v, usage %+v (want llama-server's 243/71)", task.RequestID, task.Usage)
	}

	sum, err := e.client.LeMUR.Summarize(ctx, aai.LeMURSummaryParams{AnswerFormat: aai.String("one sentence"), LeMURBaseParams: base})
	if err != nil {
		t.Fatal(err)
	}
	if got := *sum.Response; got != "Sarah paid for tickets; Tom books the hotel." {
		t.Errorf("summary %q", got)
	}

	items, err := e.client.LeMUR.ActionItems(ctx, aai.LeMURActionItemsParams{LeMURBaseParams: base})
	if err != nil {
		t.Fatal(err)
	}
	if got := *items.Response; got != "- Tom: book the hotel by Friday" {
		t.Errorf("action items %q", got)
	}
	// No usage from the server: estimated from characters, never zero.
	if items.Usage.InputTokens == nil || *items.Usage.InputTokens < 50 || *items.Usage.OutputTokens < 5 {
		t.Errorf("estimated usage %+v", items.Usage)
	}

	qa, err := e.client.LeMUR.Question(ctx, aai.LeMURQuestionAnswerParams{LeMURBaseParams: base, Questions: []aai.LeMURQuestion{
		{Question: aai.String("How much did Sarah pay?"), AnswerFormat: aai.String("short sentence")},
		{Question: aai.String("Was a hotel mentioned?"), AnswerOptions: []string{"Yes", "No"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(qa.Response) != 2 || *qa.Response[0].Question != "How much did Sarah pay?" || *qa.Response[0].Answer != "Twenty five dollars." ||
		*qa.Response[1].Question != "Was a hotel mentioned?" || *qa.Response[1].Answer != "Yes" {
		b, _ := json.Marshal(qa.Response)
		t.Errorf("answers %s", b)
	}

	reqs := chat.requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 4", len(reqs))
	}
	for _, r := range reqs {
		if r.Model != "test-model" || r.MaxTokens != 300 || r.Temperature != 0.4 || r.Messages[0].Role != "system" {
			t.Errorf("model request: model %q, max_tokens %d, temperature %v", r.Model, r.MaxTokens, r.Temperature)
		}
		u := r.user()
		if !strings.Contains(u, "Context from the user: A call about a trip") || !strings.Contains(strings.ToLower(u), "tom will book the hotel by friday") {
			t.Errorf("model request lacks the context or the transcript: %q", u)
		}
	}
	if !strings.Contains(reqs[0].user(), "Task: Who paid, and how much?") || !strings.Contains(reqs[1].user(), "Answer format: one sentence.") ||
		!strings.Contains(reqs[3].user(), "(Answer with exactly one of: Yes | No)") || len(reqs[3].ResponseFormat) == 0 {
		t.Errorf("instructions not in the prompts")
	}

	// GET returns the answer as it was given; another project does not
	// see it; DELETE purges it.
	var again aai.LeMURTaskResponse
	if err := e.client.LeMUR.GetResponseData(ctx, *task.RequestID, &again); err != nil {
		t.Fatal(err)
	}
	if *again.Response != *task.Response || *again.RequestID != *task.RequestID || *again.Usage.InputTokens != 243 {
		t.Errorf("GET gave %+v", again)
	}
	var qaAgain aai.LeMURQuestionAnswerResponse
	if err := e.client.LeMUR.GetResponseData(ctx, *qa.RequestID, &qaAgain); err != nil || len(qaAgain.Response) != 2 {
		t.Errorf("GET question-answer: %+v, %v", qaAgain, err)
	}
	if err := e.other.LeMUR.GetResponseData(ctx, *task.RequestID, &again); err == nil {
		t.Error("another project read the answer")
	} else if st, _ := apiStatus(t, err); st != http.StatusNotFound {
		t.Errorf("another project's GET: %d", st)
	}
	if _, err := e.other.LeMUR.PurgeRequestData(ctx, *task.RequestID); err == nil {
		t.Error("another project purged the answer")
	}
	purged, err := e.client.LeMUR.PurgeRequestData(ctx, *task.RequestID)
	if err != nil {
		t.Fatal(err)
	}
	if !*purged.Deleted || *purged.RequestIDToPurge != *task.RequestID || purged.RequestID == nil || *purged.RequestID == *task.RequestID {
		t.Errorf("purge answer %+v", purged)
	}
	err = e.client.LeMUR.GetResponseData(ctx, *task.RequestID, &again)
	if st, msg := apiStatus(t, err); st != http.StatusNotFound || msg != "LeMUR request not found" {
		t.Errorf("GET after purge: %d %q", st, msg)
	}
	if _, err := e.client.LeMUR.PurgeRequestData(ctx, *task.RequestID); err == nil {
		t.Error("second purge succeeded")
	}
}

// TestInputText: input_text instead of transcript_ids; final_model is
// echoed; the default max_output_size and temperature.
func TestInputText(t *testing.T) {
	t.Parallel()
	chat := newChat(t, func(chatRequest) recording { return answer(t, "llamacpp-bullets.json", "It is about bees.", true) })
	e := newEnv(t, chat, nil)
	res, err := e.client.LeMUR.Task(context.Background(), aai.LeMURTaskParams{Prompt: aai.String("What is it about?"),
		LeMURBaseParams: aai.LeMURBaseParams{InputText: aai.String("Speaker A: the bees are dying.\nSpeaker B: yes, the hives are empty.")}})
	if err != nil {
		t.Fatal(err)
	}
	if *res.Response != "It is about bees." {
		t.Errorf("response %q", *res.Response)
	}
	r := chat.requests()[0]
	if r.MaxTokens != 1024 || r.Temperature != 0 || !strings.Contains(r.user(), "Speaker B: yes, the hives are empty.") {
		t.Errorf("max_tokens %d (want 2000 capped at a quarter of 4096), temperature %v, prompt %q", r.MaxTokens, r.Temperature, r.user())
	}
	raw := rawPost(t, e, key1, "/lemur/v3/generate/task", `{"prompt":"p","input_text":"some text","final_model":"anthropic/claude-3-haiku"}`)
	if raw.status != 200 || raw.body["final_model"] != "anthropic/claude-3-haiku" || raw.body["warning"] != nil {
		t.Errorf("final_model not echoed: %d %v", raw.status, raw.body)
	}
}
