package e2e

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"

	"github.com/earshot-dev/earshot/adapters/openai/enginetest"
	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
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
		{"", nil, "universal"}, // the API's default model name; speech_model_used names the engine
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

// TestWordBoostListsKeepTheServer sends the word_boost lists that killed
// the whole server (issue 11: twenty terms with digits; SIGSEGV in
// pocketsphinx) to the real server, as batch jobs and as a streaming
// session: each completes with text, no engine worker crashed, and the
// process that received them is still the one serving afterwards.
func TestWordBoostListsKeepTheServer(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), freeAddr(t), "EARSHOT_API_KEYS="+keyK+":p")
	c := client(s, keyK)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	seq := func(prefix string, from, to int) []string {
		var out []string
		for i := from; i <= to; i++ {
			out = append(out, prefix+strconv.Itoa(i))
		}
		return out
	}
	realistic := []string{"windows 11", "mp4", "k8s", "covid-19", "gpt 4o", "python 3.12", "h264", "web3", "5g", "ipv6",
		"s3", "ec2", "b2b", "24/7", "x86", "arm64", "utf-8", "mp3", "4k", "1080p"}
	cases := []struct {
		terms []string
		text  string
	}{
		{seq("", 1, 20), "one two three four five six seven eight nine ten"},
		{seq("term", 0, 19), "term zero term one term two term three term four term five"},
		{realistic, "we moved to windows eleven, m p four and k eight s"},
	}
	for _, cs := range cases {
		wav := testaudio.Speech(t, "slt", cs.text)
		for _, boost := range []*aai.TranscriptOptionalParams{
			{WordBoost: cs.terms},
			{WordBoost: cs.terms, BoostParam: aai.TranscriptBoostParam("high")},
		} {
			tr := submitFile(t, ctx, c, wav, boost)
			if deref(tr.Text) == "" {
				t.Errorf("word_boost %v: no text", cs.terms[:3])
			}
		}
	}
	samples, _, err := transcribetest.ReadWAV16(testaudio.Speech(t, "slt", cases[2].text))
	if err != nil {
		t.Fatal(err)
	}
	pcm := make([]byte, 2*len(samples))
	for i, v := range samples {
		pcm[2*i], pcm[2*i+1] = byte(v), byte(uint16(v)>>8)
	}
	var ev rtEvents
	rt := aai.NewRealTimeClientWithOptions(aai.WithRealTimeBaseURL("ws"+strings.TrimPrefix(s.URL, "http")+"/v2/realtime/ws"),
		aai.WithRealTimeAPIKey(keyK), aai.WithRealTimeSampleRate(16000), aai.WithRealTimeWordBoost(realistic),
		aai.WithRealTimeTranscriber(ev.transcriber()))
	if err := rt.Connect(ctx); err != nil {
		t.Fatalf("connect: %v", err)
	}
	sendRealTime(t, ctx, rt, pcm)
	if err := rt.ForceEndUtterance(ctx); err != nil {
		t.Fatal(err)
	}
	if err := rt.Disconnect(ctx, true); err != nil {
		t.Fatal(err)
	}
	if ev.text() == "" {
		t.Error("the boosted streaming session gave no final transcript")
	}
	select {
	case <-s.exited:
		t.Fatalf("the server exited:\n%s", s.logs())
	default:
	}
	if _, err := c.Transcripts.List(ctx, aai.ListTranscriptParams{}); err != nil {
		t.Fatalf("the server no longer answers: %v", err)
	}
	if m := regexp.MustCompile(`engine_crashes=[1-9]|restarting a speech engine worker|signal`).FindString(s.logs()); m != "" {
		t.Errorf("a speech engine worker crashed (%q in the log):\n%s", m, s.logs())
	}
}
