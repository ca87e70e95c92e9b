package openaiapi_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/earshot-dev/earshot/httpapi"
	"github.com/earshot-dev/earshot/httpapi/openaiapi"
	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/media"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// Example mounts the OpenAI audio API beside an application's routes and
// sends it the request the official SDKs send for
// client.audio.transcriptions.create({file, model: "whisper-1"}). (The
// engine here is a stand-in that "hears" a fixed sentence; the server
// passes its real engines.)
func Example() {
	dec, _ := media.NewDecoder(media.Config{})
	engines := []transcribe.Engine{{Name: "pocketsphinx", Recognizer: &transcribetest.FakeRecognizer{Text: "hello from earshot"}}}
	svc, err := transcribe.NewService(transcribe.Config{
		Store: memory.New(), Blobs: memory.NewBlobStore(), Engines: engines, Decoder: dec, Key: transcribe.NewKey(),
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		panic(err)
	}
	svc.Start()
	defer svc.Close(context.Background())
	oai, err := openaiapi.New(openaiapi.Config{
		Service: svc, Engines: engines, Auth: httpapi.Keys{"a-long-secret-api-key": "project-1"},
		Now: func() time.Time { return time.Unix(1767225600, 0) }, // the models' "created"
	})
	if err != nil {
		panic(err)
	}
	defer oai.Close(context.Background())
	mux := http.NewServeMux()
	mux.Handle("/v1/", oai) // clients take http://host/v1 as their base URL

	var body bytes.Buffer
	form := multipart.NewWriter(&body)
	file, _ := form.CreateFormFile("file", "hello.wav")
	file.Write(toneWAV(1))
	form.WriteField("model", "whisper-1")
	form.Close()
	req := httptest.NewRequest("POST", "/v1/audio/transcriptions", &body)
	req.Header.Set("Authorization", "Bearer a-long-secret-api-key")
	req.Header.Set("Content-Type", form.FormDataContentType())
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, req)
	fmt.Println(rec.Code, rec.Body.String())

	rec = httptest.NewRecorder()
	req = httptest.NewRequest("GET", "/v1/models", nil)
	req.Header.Set("Authorization", "Bearer a-long-secret-api-key")
	mux.ServeHTTP(rec, req)
	fmt.Println(rec.Code, rec.Body.String())
	// Output:
	// 200 {"text":"hello from earshot","usage":{"type":"duration","seconds":1}}
	// 200 {"object":"list","data":[{"id":"whisper-1","object":"model","created":1767225600,"owned_by":"earshot"},{"id":"pocketsphinx","object":"model","created":1767225600,"owned_by":"earshot"}]}
}

// ExampleRender writes a transcript as verbose_json with word timestamps.
func ExampleRender() {
	text, dur, lang := "Hello, world.", 1.0, "en"
	t := &transcribe.Transcript{
		Status: transcribe.StatusCompleted, Text: &text, AudioDuration: &dur,
		TranscriptParams: transcribe.TranscriptParams{LanguageCode: &lang},
		Words: []transcribe.Word{
			{Text: "Hello,", Start: 100, End: 420, Confidence: 0.9},
			{Text: "world.", Start: 450, End: 800, Confidence: 0.8},
		},
	}
	ct, body, _ := openaiapi.Render(t, openaiapi.RenderOptions{Format: openaiapi.FormatVerboseJSON, Words: true})
	fmt.Println(ct)
	fmt.Println(string(body))
	// Output:
	// application/json
	// {"task":"transcribe","language":"english","duration":1,"text":"Hello, world.","words":[{"word":"Hello","start":0.1,"end":0.42},{"word":"world","start":0.45,"end":0.8}],"usage":{"type":"duration","seconds":1}}
}

// toneWAV is seconds of a 440 Hz tone as a 16 kHz mono WAV.
func toneWAV(seconds float64) []byte {
	pcm := &transcribe.PCM{SampleRate: 16000, Channels: [][]int16{make([]int16, int(seconds*16000))}}
	for i := range pcm.Channels[0] {
		pcm.Channels[0][i] = int16(8000 * math.Sin(2*math.Pi*440*float64(i)/16000))
	}
	var b bytes.Buffer
	if err := media.WriteWAV(&b, pcm); err != nil {
		panic(err)
	}
	return b.Bytes()
}
