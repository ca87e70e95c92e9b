package openaiapi_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/adapters/openai"
	"github.com/earshot-dev/earshot/adapters/openai/enginetest"
	"github.com/earshot-dev/earshot/httpapi/openaiapi"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/media"
)

// remoteEngine is a whisper-class engine: Earshot's OpenAI-compatible
// adapter talking to an enginetest server in OpenAI's shape (real
// pocketsphinx behind it), which records the fields it is sent. It takes
// prompts and detects languages, as whisper does.
func remoteEngine(t *testing.T) (*enginetest.Engine, transcribe.Recognizer) {
	t.Helper()
	srv := enginetest.NewEngine(t, enginetest.OpenAI, "/v1/audio/transcriptions")
	rec, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rec.Close() })
	return srv, rec
}

// TestEngines routes requests by model between pocketsphinx and a
// whisper-class engine, and checks what each is given: the prompt as a
// prompt to the engine that takes one, language as given or detected.
func TestEngines(t *testing.T) {
	t.Parallel()
	srv, remote := remoteEngine(t)
	f := newFixture(t, fixtureOptions{engines: []transcribe.Engine{
		{Name: "pocketsphinx", Recognizer: recognizer(t)},
		{Name: "remote", Aliases: []string{"gpt-4o-transcribe"}, Recognizer: remote},
	}})
	wav := string(sentence(t))
	last := func() map[string][]string {
		reqs := srv.Requests()
		if len(reqs) == 0 {
			t.Fatal("the remote engine got no request")
		}
		return reqs[len(reqs)-1]
	}

	r := f.transcribe(t, field{"model", "remote"}, field{"prompt", "Kubernetes, Terraform"}, field{"language", "en"},
		field{"response_format", "verbose_json"}, field{"file", wav})
	var v openaiapi.TranscriptionVerbose
	if r.status != 200 || json.Unmarshal(r.body, &v) != nil {
		t.Fatalf("%d: %s", r.status, r.body)
	}
	checkText(t, v.Text, sentenceWords)
	if got := last(); !strings.Contains(strings.Join(got["prompt"], ""), "Kubernetes, Terraform") || strings.Join(got["language"], "") != "en" {
		t.Errorf("remote engine got prompt %q language %q", got["prompt"], got["language"])
	}
	if v.Language != "english" {
		t.Errorf("language %q", v.Language)
	}

	// An engine alias; no language: the engine detects it.
	n := len(srv.Requests())
	r = f.transcribe(t, field{"model", "gpt-4o-transcribe"}, field{"response_format", "verbose_json"}, field{"file", wav})
	if r.status != 200 || json.Unmarshal(r.body, &v) != nil {
		t.Fatalf("%d: %s", r.status, r.body)
	}
	if len(srv.Requests()) != n+1 {
		t.Fatalf("the alias did not select the remote engine")
	}
	if got := last(); len(got["language"]) != 0 {
		t.Errorf("language %q sent for detection", got["language"])
	}
	if v.Language != "english" {
		t.Errorf("detected language %q", v.Language)
	}

	// A language pocketsphinx lacks but the whisper engine has.
	r = f.transcribe(t, field{"model", "remote"}, field{"language", "de"}, field{"response_format", "verbose_json"}, field{"file", wav})
	if r.status != 200 || json.Unmarshal(r.body, &v) != nil {
		t.Fatalf("%d: %s", r.status, r.body)
	}
	if got := last(); strings.Join(got["language"], "") != "de" || v.Language != "german" {
		t.Errorf("sent language %q, answered %q", got["language"], v.Language)
	}

	// whisper-1 is pocketsphinx here, which takes the glossary prompt as
	// key terms; the remote engine sees nothing.
	n = len(srv.Requests())
	r = f.transcribe(t, field{"model", "whisper-1"}, field{"prompt", "New York, transcription service"}, field{"file", wav})
	if r.status != 200 {
		t.Fatalf("%d: %s", r.status, r.body)
	}
	if len(srv.Requests()) != n {
		t.Error("whisper-1 went to the remote engine")
	}
	f.expectNothingKept(t)
}

// TestModels checks GET /v1/models and /v1/models/{id}.
func TestModels(t *testing.T) {
	t.Parallel()
	_, remote := remoteEngine(t)
	f := newFixture(t, fixtureOptions{workers: -1, engines: []transcribe.Engine{
		{Name: "pocketsphinx", Aliases: []string{"best"}, Recognizer: recognizer(t)},
		{Name: "remote", Aliases: []string{"gpt-4o-transcribe"}, Recognizer: remote},
	}})
	ctx := context.Background()
	r := f.do(t, ctx, "GET", "/v1/models", key1, "", nil)
	var list openaiapi.ModelList
	if r.status != 200 || r.ctype != "application/json" || json.Unmarshal(r.body, &list) != nil {
		t.Fatalf("%d %s: %s", r.status, r.ctype, r.body)
	}
	var ids []string
	for _, m := range list.Data {
		ids = append(ids, m.ID)
		if m.Object != "model" || m.OwnedBy != "earshot" || m.Created <= 0 {
			t.Errorf("model %+v", m)
		}
	}
	if want := []string{"whisper-1", "pocketsphinx", "remote", "gpt-4o-transcribe"}; list.Object != "list" || !slices.Equal(ids, want) {
		t.Errorf("object %q, models %v, want %v", list.Object, ids, want)
	}
	r = f.do(t, ctx, "GET", "/v1/models/gpt-4o-transcribe", key1, "", nil)
	var m openaiapi.Model
	if r.status != 200 || json.Unmarshal(r.body, &m) != nil || m.ID != "gpt-4o-transcribe" {
		t.Errorf("%d: %s", r.status, r.body)
	}
	expectError(t, f.do(t, ctx, "GET", "/v1/models/whisper-2", key1, "", nil), 404, "invalid_request_error", "model", "model_not_found",
		"this server has whisper-1, pocketsphinx, remote, gpt-4o-transcribe")
	expectError(t, f.do(t, ctx, "DELETE", "/v1/models/whisper-1", key1, "", nil), 405, "invalid_request_error", "", "", "use GET")
}

// TestEarshotAsAnOpenAIEngine points Earshot's own OpenAI-compatible
// engine adapter (adapters/openai, written against OpenAI's and five
// other servers' answers) at the handler: it sends what it sends OpenAI
// (verbose_json, both granularities, temperature 0) and must read the
// words back.
func TestEarshotAsAnOpenAIEngine(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	dec, err := media.NewDecoder(media.Config{})
	if err != nil {
		t.Fatal(err)
	}
	client, err := openai.New(openai.Config{BaseURL: f.srv.URL + "/v1", APIKey: key1, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	path := filepath.Join(t.TempDir(), "sentence.wav")
	if err := os.WriteFile(path, sentence(t), 0o600); err != nil {
		t.Fatal(err)
	}
	pcm, err := dec.Decode(context.Background(), path, openai.SampleRate, false)
	if err != nil {
		t.Fatal(err)
	}
	res, err := client.Recognize(context.Background(), pcm.Channels[0], transcribe.RecognizeOptions{LanguageCode: "en"})
	if err != nil {
		t.Fatal(err)
	}
	var words []string
	for i, w := range res.Words {
		words = append(words, w.Text)
		if w.End <= w.Start || (i > 0 && w.Start < res.Words[i-1].Start) {
			t.Errorf("word %d %+v: bad times", i, w)
		}
	}
	checkText(t, strings.Join(words, " "), sentenceWords)
	if res.Language != "en" {
		t.Errorf("language %q", res.Language)
	}
	f.expectNothingKept(t)
}
