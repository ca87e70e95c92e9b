// Package enginetest holds the test engines of adapters/openai and
// adapters/whispercpp: HTTP servers on loopback that speak the wire format
// of real transcription servers, so the adapters' tests exchange real
// multipart requests and real JSON answers over real TCP.
//
// Entry points:
//
//   - NewEngine starts an Engine: it decodes the uploaded file with
//     transcribe/media and recognizes it with the real pocketsphinx
//     recognizer (adapters/pocketsphinx), then answers in the shape of one
//     of the servers (Shape): whisper.cpp, the OpenAI API, speaches
//     (faster-whisper), LocalAI, vLLM or FunASR. Each shape's renderer cites
//     the server source it follows, and the tests compare its JSON structure
//     with recorded and source-derived answers (Structure), so that the
//     conformance suite (transcribetest.RunRecognizerTests) can run on real
//     speech with answers an engine would give.
//   - LoadExchange reads a recorded or source-derived exchange from
//     testdata; Replay serves one over HTTP, checking that the request
//     carries the recorded fields.
//   - Structure lists the JSON paths and value types of a body.
//
// This package is for tests; it needs Debian's libpocketsphinx3 and
// pocketsphinx-en-us, like adapters/pocketsphinx.
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: Replayer, the
// type Replay returns, for tests that inspect its requests.
package enginetest

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/earshot-dev/earshot/adapters/pocketsphinx"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/media"
)

// Shape names the wire format of a transcription server.
type Shape string

// Shapes of the servers the adapters were checked against.
const (
	// WhisperCPP: whisper.cpp examples/server/server.cpp, verbose_json:
	// sub-word tokens as "words" with probabilities, language by name.
	WhisperCPP Shape = "whisper.cpp"
	// OpenAI: the OpenAI API (openai-python types/audio/
	// transcription_verbose.py): top-level words without probabilities.
	OpenAI Shape = "openai"
	// Speaches: speaches src/speaches/executors/whisper.py
	// segments_to_transcription_response (faster-whisper).
	Speaches Shape = "speaches"
	// LocalAICrispASR: LocalAI core/http/endpoints/openai/transcription.go
	// with a backend that gives words (crispasr): words named "text".
	LocalAICrispASR Shape = "localai-crispasr"
	// LocalAIWhisper: LocalAI with its whisper backend: segments only.
	LocalAIWhisper Shape = "localai-whisper"
	// VLLM: vllm speech_to_text.py: segments only, duration as a string.
	VLLM Shape = "vllm"
	// FunASR: FunASR funasr/bin/_server_app.py build_openai_verbose_json
	// over _process_vllm: segment words.
	FunASR Shape = "funasr"
)

// Shapes lists every Shape.
func Shapes() []Shape {
	return []Shape{WhisperCPP, OpenAI, Speaches, LocalAICrispASR, LocalAIWhisper, VLLM, FunASR}
}

var (
	psOnce sync.Once
	psRec  *pocketsphinx.Recognizer
	psErr  error

	cacheMu sync.Mutex
	cache   = map[[32]byte][]transcribe.Word{}
)

// recognize decodes media and recognizes it, caching by content: the
// conformance suite sends the same sentence many times.
func recognize(data []byte) ([]transcribe.Word, float64, error) {
	dir, err := os.MkdirTemp("", "enginetest")
	if err != nil {
		return nil, 0, err
	}
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, "upload")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		return nil, 0, err
	}
	pcm, err := (&media.Decoder{}).Decode(context.Background(), p, pocketsphinx.SampleRate, false)
	if err != nil {
		return nil, 0, err
	}
	dur := pcm.Duration().Seconds()
	key := sha256.Sum256(data)
	cacheMu.Lock()
	ws, ok := cache[key]
	cacheMu.Unlock()
	if ok {
		return ws, dur, nil
	}
	psOnce.Do(func() { psRec, psErr = pocketsphinx.New(pocketsphinx.Config{Decoders: 2}) })
	if psErr != nil {
		return nil, 0, psErr
	}
	rec, err := psRec.Recognize(context.Background(), pcm.Mono(), transcribe.RecognizeOptions{})
	if err != nil {
		return nil, 0, err
	}
	cacheMu.Lock()
	cache[key] = rec.Words
	cacheMu.Unlock()
	return rec.Words, dur, nil
}

// Engine is a test transcription server.
type Engine struct {
	// URL is the server's root ("http://127.0.0.1:PORT").
	URL string
	// Shape is the answer format.
	Shape Shape
	// Path is the endpoint ("/v1/audio/transcriptions", "/inference").
	Path string

	mu    sync.Mutex
	forms []url.Values
	files [][]byte
}

// NewEngine starts an Engine answering POSTs to path in shape; it stops
// when t ends.
func NewEngine(t testing.TB, shape Shape, path string) *Engine {
	e := &Engine{Shape: shape, Path: path}
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	e.URL = srv.URL
	return e
}

// Requests returns the form fields (without the file) of every request
// answered so far, in order.
func (e *Engine) Requests() []url.Values {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.forms)
}

// Files returns the uploaded files of every request so far, in order.
func (e *Engine) Files() [][]byte {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.files)
}

func (e *Engine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != e.Path || r.Method != http.MethodPost {
		http.Error(w, "File Not Found ("+r.URL.Path+")", http.StatusNotFound)
		return
	}
	form, data, err := ReadRequest(r)
	if err != nil {
		writeError(w, e.Shape, http.StatusBadRequest, err.Error())
		return
	}
	if form.Get("response_format") != "verbose_json" {
		writeError(w, e.Shape, http.StatusBadRequest, "want response_format verbose_json, got "+form.Get("response_format"))
		return
	}
	if e.Shape != WhisperCPP && form.Get("model") == "" {
		writeError(w, e.Shape, http.StatusUnprocessableEntity, "body.model: Field required")
		return
	}
	e.mu.Lock()
	e.forms = append(e.forms, form)
	e.files = append(e.files, data)
	e.mu.Unlock()
	words, dur, err := recognize(data)
	if err != nil {
		writeError(w, e.Shape, http.StatusBadRequest, "failed to read audio data: "+err.Error())
		return
	}
	body, err := json.Marshal(Render(e.Shape, words, dur, form))
	if err != nil {
		writeError(w, e.Shape, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

// ReadRequest parses a multipart transcription request: its fields and the
// content of its "file" part.
func ReadRequest(r *http.Request) (url.Values, []byte, error) {
	if err := r.ParseMultipartForm(64 << 20); err != nil {
		return nil, nil, fmt.Errorf("not a multipart form: %v", err)
	}
	files := r.MultipartForm.File["file"]
	if len(files) != 1 {
		return nil, nil, fmt.Errorf("no 'file' field in the request")
	}
	f, err := files[0].Open()
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, nil, err
	}
	return url.Values(r.MultipartForm.Value), data, nil
}

func writeError(w http.ResponseWriter, shape Shape, status int, msg string) {
	switch shape {
	case WhisperCPP:
		// httplib's error handler replaces the body of a 400 (see the
		// recordings in adapters/whispercpp/testdata).
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(status)
		if status == http.StatusBadRequest {
			msg = "Invalid request"
		}
		_, _ = io.WriteString(w, msg)
	case Speaches, FunASR:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]any{"detail": msg})
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "code": status}})
	}
}
