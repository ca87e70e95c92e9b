package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"

	"github.com/earshot-dev/earshot/adapters/openai/enginetest"
	"github.com/earshot-dev/earshot/internal/testaudio"
)

// TestEnginesBySpeechModel runs the server with two more engines beside
// pocketsphinx — a whisper.cpp server and an OpenAI-compatible server,
// played by test engines that answer in those servers' own shapes (see
// adapters/openai/enginetest) — and drives it with the official Go SDK:
// speech_model routes each request to its engine, speech_model_used says
// which one ran, and an unknown model or a language the engine cannot do
// is a 400 naming the alternatives.
func TestEnginesBySpeechModel(t *testing.T) {
	whisper := enginetest.NewEngine(t, enginetest.WhisperCPP, "/inference")
	oai := enginetest.NewEngine(t, enginetest.OpenAI, "/v1/audio/transcriptions")
	s := startServer(t, t.TempDir(), freeAddr(t), "EARSHOT_API_KEYS="+keyK+":p",
		"EARSHOT_WHISPERCPP_URL="+whisper.URL, "EARSHOT_OPENAI_URL="+oai.URL+"/v1", "EARSHOT_OPENAI_MODEL=whisper-1",
		"EARSHOT_ENGINE_LANGUAGES=en,fr")
	c := client(s, keyK)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	wav := testaudio.Speech(t, "slt", "the weather is lovely today")
	for _, want := range []struct {
		model  string
		engine *enginetest.Engine
		echo   string
	}{
		{"", nil, "pocketsphinx"},
		{"whispercpp", whisper, "whispercpp"},
		{"openai", oai, "openai"},
		{"best", nil, "best"}, // an API name no engine claims: the default
	} {
		before := map[*enginetest.Engine]int{whisper: len(whisper.Requests()), oai: len(oai.Requests())}
		params := &aai.TranscriptOptionalParams{}
		if want.model != "" {
			params.SpeechModel = aai.SpeechModel(want.model)
		}
		tr := submitFile(t, ctx, c, wav, params)
		if tr.SpeechModel == "" || string(tr.SpeechModel) != want.echo {
			t.Errorf("speech_model %q echoed as %q, want %q", want.model, tr.SpeechModel, want.echo)
		}
		if !strings.Contains(strings.ToLower(deref(tr.Text)), "weather") {
			t.Errorf("speech_model %q: text %q", want.model, deref(tr.Text))
		}
		for _, e := range []*enginetest.Engine{whisper, oai} {
			got := len(e.Requests()) - before[e]
			if (e == want.engine) != (got > 0) {
				t.Errorf("speech_model %q: engine %s got %d requests", want.model, e.Shape, got)
			}
		}
	}
	u, err := c.Upload(ctx, strings.NewReader("RIFF...."))
	if err != nil {
		t.Fatal(err)
	}
	var apiErr aai.APIError
	_, err = c.Transcripts.SubmitFromURL(ctx, u, &aai.TranscriptOptionalParams{SpeechModel: "large-v9"})
	if !errors.As(err, &apiErr) || apiErr.Status != 400 || !strings.Contains(apiErr.Message, `"whispercpp"`) || !strings.Contains(apiErr.Message, `"openai"`) {
		t.Errorf("unknown model: %v", err)
	}
	_, err = c.Transcripts.SubmitFromURL(ctx, u, &aai.TranscriptOptionalParams{SpeechModel: "whispercpp", LanguageCode: "de"})
	if !errors.As(err, &apiErr) || apiErr.Status != 400 || !strings.Contains(apiErr.Message, "en, fr") {
		t.Errorf("unsupported language: %v", err)
	}
}
