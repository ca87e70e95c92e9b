package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"

	"github.com/earshot-dev/earshot/internal/testaudio"
)

// engineScript is what the OpenAI-compatible engine of
// TestEngineTextKeptAndRedacted answers: a punctuated, cased transcript of
// twelve sentences holding names, an acronym, questions and PII written as
// whisper writes them (issues 19.2 and 21.1).
const engineScript = "Hello, is that you, Dr. Miles Dyson? Yes, it is. My card number is 4111 1111 1111 1111 and it expires 09/28. " +
	"Please call me at 4155550123. My email is sarah75@skynet.com. I was born on 03/14/1985. My passport number is X12345678. " +
	"My IBAN is GB82 WEST 1234 5698 7654 32. The server is at 192.0.2.44. The VIN is 1HGCM82633A004352. " +
	"We moved to the US. Did you get all that?"

const engineSentences = 12

// piiValues are the pieces of engineScript no output may hold once
// redacted.
var piiValues = []string{"4111", "09/28", "4155550123", "sarah75", "skynet", "03/14/1985", "X12345678", "GB82", "WEST 1234", "5698",
	"192.0.2.44", "1HGCM82633A004352", "Dyson"}

// scriptedEngine answers every transcription request in the OpenAI API's
// verbose_json shape: words without punctuation (as the API lists them),
// 250 ms each, and the punctuated text.
func scriptedEngine(t *testing.T, text string) *httptest.Server {
	var words []map[string]any
	for i, f := range strings.Fields(text) {
		words = append(words, map[string]any{"word": strings.TrimRight(f, ".,?!"), "start": float64(i) * 0.25, "end": float64(i)*0.25 + 0.2})
	}
	body, err := json.Marshal(map[string]any{"task": "transcribe", "language": "english", "duration": float64(len(words)) * 0.25,
		"text": text, "words": words})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/audio/transcriptions" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestEngineTextKeptAndRedacted drives a real server with an
// OpenAI-compatible engine that answers a punctuated, cased transcript.
// Without redaction the transcript is the engine's text word for word,
// /sentences has the engine's twelve sentences (questions kept, "Dr." not
// a sentence end), SRT keeps the casing, and entities find the full name.
// With redact_pii every PII value is gone from the text, words,
// utterances, sentences, paragraphs, SRT, VTT and word search.
func TestEngineTextKeptAndRedacted(t *testing.T) {
	t.Parallel()
	eng := scriptedEngine(t, engineScript)
	s := startServer(t, t.TempDir(), freeAddr(t), "EARSHOT_API_KEYS="+keyK+":p",
		"EARSHOT_OPENAI_URL="+eng.URL+"/v1", "EARSHOT_OPENAI_MODEL=whisper-1")
	c := client(s, keyK)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	wav := testaudio.Speech(t, "slt", "hello is that you doctor miles dyson yes it is my card number is four one one one one one one one "+
		"one one one one one one one one and it expires oh nine twenty eight please call me at four one five five five five zero one two three "+
		"my email is sarah seventy five at skynet dot com i was born on march fourteenth nineteen eighty five")

	tr := submitFile(t, ctx, c, wav, &aai.TranscriptOptionalParams{SpeechModel: "openai", EntityDetection: aai.Bool(true)})
	if got := deref(tr.Text); got != engineScript {
		t.Errorf("text is not the engine's:\n got %q\nwant %q", got, engineScript)
	}
	sents, err := c.Transcripts.GetSentences(ctx, *tr.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(sents.Sentences) != engineSentences {
		var ss []string
		for _, x := range sents.Sentences {
			ss = append(ss, deref(x.Text))
		}
		t.Errorf("%d sentences, the engine gave %d: %q", len(sents.Sentences), engineSentences, ss)
	} else if first := deref(sents.Sentences[0].Text); first != "Hello, is that you, Dr. Miles Dyson?" {
		t.Errorf("first sentence %q", first)
	}
	srt, err := c.Transcripts.GetSubtitles(ctx, *tr.ID, "srt", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Dr. Miles Dyson?", "the US.", "sarah75@skynet.com", "4111 1111 1111 1111"} {
		if !strings.Contains(strings.Join(strings.Fields(string(srt)), " "), want) {
			t.Errorf("SRT lacks %q:\n%s", want, srt)
		}
	}
	found := false
	for _, e := range tr.Entities {
		found = found || e.EntityType == "person_name" && deref(e.Text) == "Miles Dyson"
	}
	if !found {
		t.Errorf("entities lack person_name Miles Dyson: %+v", tr.Entities)
	}

	policies := []aai.PIIPolicy{"person_name", "credit_card_number", "credit_card_expiration", "phone_number", "email_address",
		"date_of_birth", "passport_number", "banking_information", "ip_address", "vehicle_id"}
	red := submitFile(t, ctx, c, wav, &aai.TranscriptOptionalParams{SpeechModel: "openai", RedactPII: aai.Bool(true),
		RedactPIIPolicies: policies, SpeakerLabels: aai.Bool(true)})
	outputs := map[string]string{"text": deref(red.Text)}
	var ws []string
	for _, w := range red.Words {
		ws = append(ws, deref(w.Text))
	}
	outputs["words"] = strings.Join(ws, " ")
	var us []string
	for _, u := range red.Utterances {
		us = append(us, deref(u.Text))
		for _, w := range u.Words {
			us = append(us, deref(w.Text))
		}
	}
	outputs["utterances"] = strings.Join(us, " ")
	if sents, err := c.Transcripts.GetSentences(ctx, *red.ID); err == nil {
		b, _ := json.Marshal(sents)
		outputs["sentences"] = string(b)
	} else {
		t.Fatal(err)
	}
	if paras, err := c.Transcripts.GetParagraphs(ctx, *red.ID); err == nil {
		b, _ := json.Marshal(paras)
		outputs["paragraphs"] = string(b)
	} else {
		t.Fatal(err)
	}
	for _, f := range []aai.SubtitleFormat{"srt", "vtt"} {
		b, err := c.Transcripts.GetSubtitles(ctx, *red.ID, f, nil)
		if err != nil {
			t.Fatal(err)
		}
		outputs[string(f)] = string(b)
	}
	if !strings.Contains(outputs["text"], "#") || !strings.Contains(outputs["text"], "We moved to the US.") {
		t.Errorf("redacted text %q", outputs["text"])
	}
	for name, out := range outputs {
		for _, v := range piiValues {
			if strings.Contains(out, v) {
				t.Errorf("%s holds %q after redaction: %s", name, v, out)
			}
		}
	}
	search, err := c.Transcripts.WordSearch(ctx, *red.ID, []string{"4111", "Dyson", "X12345678", "GB82"})
	if err != nil {
		t.Fatal(err)
	}
	if deref(search.TotalCount) != 0 {
		t.Errorf("word search finds redacted values: %+v", search.Matches)
	}
}
