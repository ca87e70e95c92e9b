package lemur_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"

	"github.com/earshot-dev/earshot/httpapi/lemur"
)

// TestValidation: bad requests are 4xx naming the problem, before any
// model call; transcripts are project-scoped like GET /v2/transcript.
func TestValidation(t *testing.T) {
	t.Parallel()
	chat := newChat(t, func(chatRequest) recording { return answer(t, "llamacpp-bullets.json", "fine", true) })
	e := newEnv(t, chat, func(c *lemur.Config) { c.MaxRequestBytes = 64 << 10; c.MaxParts = 2 })
	mine := e.transcript(t, e.client, 3, nil)
	theirs := e.transcript(t, e.other, 3, nil)
	// A transcript that failed (its audio cannot be fetched), and one deleted.
	failed, err := e.client.Transcripts.SubmitFromURL(context.Background(), "http://127.0.0.1:1/a.wav", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.client.Transcripts.Wait(context.Background(), *failed.ID); err != nil {
		t.Fatal(err)
	}
	deleted := e.transcript(t, e.client, 3, nil)
	if _, err := e.client.Transcripts.Delete(context.Background(), deleted); err != nil {
		t.Fatal(err)
	}
	missing := "6f1c2c1e-8d7f-4f59-9a57-1b1a5b0d1d1d"
	task := "/lemur/v3/generate/task"
	for _, c := range []struct {
		path, body string
		status     int
		msg        string
	}{
		{task, `{"prompt":"p"}`, 400, "transcript_ids or input_text is required"},
		{task, `{"prompt":"p","transcript_ids":[]}`, 400, "transcript_ids or input_text is required"},
		{task, `{"prompt":"p","transcript_ids":["` + mine + `"],"input_text":"x"}`, 400, "either transcript_ids or input_text, not both"},
		{task, `{"prompt":"p","transcript_ids":"` + mine + `"}`, 400, "transcript_ids: must be an array of strings"},
		{task, `{"prompt":"p","transcript_ids":[""]}`, 400, "transcript_ids[0] is empty"},
		{task, `{"prompt":"p","input_text":"  "}`, 400, "input_text is empty"},
		{task, `{"prompt":"p","input_text":"x","max_output_size":0}`, 400, "max_output_size must be between 1 and 4000 tokens, got 0"},
		{task, `{"prompt":"p","input_text":"x","max_output_size":4001}`, 400, "max_output_size must be between 1 and 4000 tokens, got 4001"},
		{task, `{"prompt":"p","input_text":"x","max_output_size":"big"}`, 400, "max_output_size: must be an integer"},
		{task, `{"prompt":"p","input_text":"x","temperature":1.5}`, 400, "temperature must be between 0.0 and 1.0, got 1.5"},
		{task, `{"prompt":"p","input_text":"x","temperature":-0.1}`, 400, "temperature must be between 0.0 and 1.0"},
		{task, `{"prompt":"p","input_text":"x","final_model":""}`, 400, "final_model must be a model name"},
		{task, `{"prompt":"p","input_text":"x","context":""}`, 400, "context is empty"},
		{task, `{"input_text":"x"}`, 400, "prompt is required"},
		{task, `{"prompt":"p","input_text":"x","max_output_size":4000}`, 400, "leaves no room for the transcripts in the model's context of 4096 tokens"},
		{task, `{"prompt":"` + strings.Repeat("word ", 3000) + `","input_text":"x"}`, 400, "leaves no room"},
		{task, `{"prompt":"p","input_text":"` + strings.Repeat("word ", 6000) + `"}`, 400, "input_text is too long: the text (about 1000"},
		{task, `{"prompt":"p","input_text":"` + strings.Repeat("w", 70<<10) + `"}`, 413, "larger than 65536 bytes"},
		{task, `[1]`, 400, "must be a JSON object"},
		{task, `{"prompt":"p"`, 400, "not valid JSON"},
		{task, `{"prompt":"p"} {}`, 400, "one JSON object"},
		{"/lemur/v3/generate/question-answer", `{"input_text":"x"}`, 400, "questions is required"},
		{"/lemur/v3/generate/question-answer", `{"input_text":"x","questions":[{"question":" "}]}`, 400, "questions[0].question is required"},
		{"/lemur/v3/generate/question-answer", `{"input_text":"x","questions":[{"question":"q","answer_format":"f","answer_options":["a","b"]}]}`, 400, "answer_format and answer_options cannot be used together"},
		{"/lemur/v3/generate/question-answer", `{"input_text":"x","questions":[{"question":"q","answer_options":["a"]}]}`, 400, "at least two options"},
		{"/lemur/v3/generate/question-answer", `{"input_text":"x","questions":"q"}`, 400, "questions: must be an array of question objects"},
		{"/lemur/v3/generate/summary", `{"transcript_ids":["` + missing + `"]}`, 404, "Transcript " + missing + " not found"},
		{"/lemur/v3/generate/summary", `{"transcript_ids":["nope"]}`, 404, `Transcript "nope" not found`},
		{"/lemur/v3/generate/summary", `{"transcript_ids":["` + mine + `","` + theirs + `"]}`, 404, "Transcript " + theirs + " not found"},
		{"/lemur/v3/generate/summary", `{"transcript_ids":["` + *failed.ID + `"]}`, 400, "Transcript " + *failed.ID + " is error; LeMUR needs completed transcripts"},
		{"/lemur/v3/generate/action-items", `{"transcript_ids":["` + deleted + `"]}`, 400, "was deleted"},
	} {
		r := rawPost(t, e, key1, c.path, c.body)
		msg, _ := r.body["error"].(string)
		if r.status != c.status || !strings.Contains(msg, c.msg) {
			t.Errorf("POST %s %.80s: %d %q, want %d with %q", c.path, c.body, r.status, msg, c.status, c.msg)
		}
	}
	if n := len(chat.requests()); n != 0 {
		t.Errorf("%d model requests for bad requests", n)
	}

	// Routes: methods, keys, unknown paths and ids.
	for _, c := range []struct {
		method, path, key string
		status            int
		allow             string
	}{
		{"GET", task, key1, 405, "POST"},
		{"PUT", "/lemur/v3/" + missing, key1, 405, "DELETE, GET"},
		{"POST", task, "", 401, ""},
		{"POST", task, "wrong", 401, ""},
		{"GET", "/lemur/v3/" + missing, key1, 404, ""},
		{"GET", "/lemur/v3/not-an-id", key1, 404, ""},
		{"DELETE", "/lemur/v3/" + missing, key1, 404, ""},
		{"POST", "/lemur/v3/generate/poem", key1, 404, ""},
	} {
		r := rawDo(t, e, c.method, c.key, c.path, "{}")
		if r.status != c.status || r.header.Get("Allow") != c.allow || r.header.Get("X-Request-Id") == "" {
			t.Errorf("%s %s: %d Allow %q X-Request-Id %q, want %d Allow %q", c.method, c.path, r.status, r.header.Get("Allow"), r.header.Get("X-Request-Id"), c.status, c.allow)
		}
	}
}

// TestNoModel: without a LeMUR handler (no EARSHOT_LLM_URL) every LeMUR
// route is 400 saying so, through the SDK.
func TestNoModel(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil, nil)
	_, err := e.client.LeMUR.Task(context.Background(), aai.LeMURTaskParams{Prompt: aai.String("p"), LeMURBaseParams: aai.LeMURBaseParams{InputText: aai.String("x")}})
	status, msg := apiStatus(t, err)
	if status != http.StatusBadRequest || !strings.Contains(msg, "no language model configured") {
		t.Errorf("%d %q", status, msg)
	}
	var v map[string]any
	err = e.client.LeMUR.GetResponseData(context.Background(), "6f1c2c1e-8d7f-4f59-9a57-1b1a5b0d1d1d", &v)
	if status, msg := apiStatus(t, err); status != http.StatusBadRequest || !strings.Contains(msg, "no language model configured") {
		t.Errorf("GET: %d %q", status, msg)
	}
	if r := rawDo(t, e, "POST", "", "/lemur/v3/generate/summary", "{}"); r.status != 401 {
		t.Errorf("no key: %d", r.status)
	}
}
