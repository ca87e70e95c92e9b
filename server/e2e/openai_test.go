package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/internal/testaudio"
)

// TestOpenAIAudioAPI: the reference server serves OpenAI's audio API
// (httpapi/openaiapi) on /v1 with the same keys and engines, and keeps
// nothing of what it transcribes.
func TestOpenAIAudioAPI(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), freeAddr(t), "EARSHOT_API_KEYS="+keyK+":p")
	wav, err := os.ReadFile(testaudio.Speech(t, "slt", "hello from new york this is a test of the transcription service"))
	if err != nil {
		t.Fatal(err)
	}
	call := func(method, path, ct string, body io.Reader) (int, []byte, http.Header) {
		req, _ := http.NewRequest(method, s.URL+path, body)
		req.Header.Set("Authorization", "Bearer "+keyK)
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, b, res.Header
	}
	status, body, _ := call("GET", "/v1/models", "", nil)
	if status != 200 || !strings.Contains(string(body), `"id":"whisper-1"`) || !strings.Contains(string(body), `"id":"pocketsphinx"`) {
		t.Fatalf("models: %d %s", status, body)
	}
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	mw.WriteField("model", "whisper-1")
	fw, _ := mw.CreateFormFile("file", "hello.wav")
	fw.Write(wav)
	mw.Close()
	status, body, hdr := call("POST", "/v1/audio/transcriptions", mw.FormDataContentType(), &form)
	var tr struct{ Text string }
	if status != 200 || json.Unmarshal(body, &tr) != nil || !strings.Contains(strings.ToLower(tr.Text), "new york") {
		t.Fatalf("transcription: %d %s", status, body)
	}
	if hdr.Get("X-Request-Id") == "" {
		t.Error("no X-Request-Id on the /v1 answer")
	}
	if status, body, _ = call("GET", "/v2/transcript", "", nil); status != 200 || !strings.Contains(string(body), `"transcripts":[]`) {
		t.Errorf("list after the transcription: %d %s", status, body)
	}
	if status, body, _ = call("POST", "/v1/audio/transcriptions", "application/json", strings.NewReader(`{}`)); status != 400 || !strings.Contains(string(body), `"error"`) {
		t.Errorf("not multipart: %d %s", status, body)
	}
}
