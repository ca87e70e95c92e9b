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
package enginetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
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

// segment is a run of words between pauses.
type segment struct {
	words      []transcribe.Word
	start, end float64
}

// segmentsOf groups words at pauses of 300 ms or more, at most 12 words
// each, as whisper's segments fall.
func segmentsOf(ws []transcribe.Word) []segment {
	var out []segment
	for i, w := range ws {
		if i == 0 || w.Start-ws[i-1].End >= 300 || len(out[len(out)-1].words) >= 12 {
			out = append(out, segment{start: float64(w.Start) / 1000})
		}
		s := &out[len(out)-1]
		s.words = append(s.words, w)
		s.end = float64(w.End) / 1000
	}
	return out
}

// written returns the words as a whisper model writes them: the first of
// each segment capitalized, the last followed by a full stop.
func written(s segment) []string {
	out := make([]string, len(s.words))
	for i, w := range s.words {
		out[i] = w.Text
	}
	if len(out) > 0 {
		out[0] = strings.ToUpper(out[0][:1]) + out[0][1:]
		out[len(out)-1] += "."
	}
	return out
}

func segText(s segment) string { return " " + strings.Join(written(s), " ") }

func allText(segs []segment) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteString(segText(s))
	}
	return strings.TrimSpace(b.String())
}

// tokenID is a stable stand-in for a BPE token id.
func tokenID(s string) int {
	h := fnv.New32a()
	h.Write([]byte(s))
	return int(h.Sum32()%50000) + 1
}

func avgLogprob(ws []transcribe.Word) float64 {
	if len(ws) == 0 {
		return 0
	}
	s := 0.0
	for _, w := range ws {
		s += math.Log(max(w.Confidence, 1e-6))
	}
	return s / float64(len(ws))
}

func sec(ms int64) float64 { return math.Round(float64(ms)) / 1000 }

// Render returns the JSON value shape's server would answer for words
// recognized in dur seconds of audio, given the request's fields.
func Render(shape Shape, words []transcribe.Word, dur float64, form url.Values) any {
	segs := segmentsOf(words)
	lang := form.Get("language")
	switch shape {
	case WhisperCPP:
		return renderWhisperCPP(segs, dur, form)
	case OpenAI:
		// openai-python src/openai/types/audio/transcription_verbose.py,
		// transcription_segment.py, transcription_word.py.
		var ws, ss []any
		for i, s := range segs {
			for k, w := range written(s) {
				ws = append(ws, map[string]any{"word": strings.TrimSuffix(w, "."), "start": sec(s.words[k].Start), "end": sec(s.words[k].End)})
			}
			ss = append(ss, map[string]any{"id": i, "seek": 0, "start": s.start, "end": s.end, "text": segText(s), "tokens": tokens(s),
				"temperature": 0.0, "avg_logprob": avgLogprob(s.words), "compression_ratio": 1.1, "no_speech_prob": 0.01})
		}
		return map[string]any{"task": "transcribe", "language": "english", "duration": dur, "text": allText(segs),
			"words": orEmpty(ws), "segments": orEmpty(ss), "usage": map[string]any{"type": "duration", "seconds": int(math.Ceil(dur))}}
	case Speaches:
		// speaches src/speaches/executors/whisper.py
		// segments_to_transcription_response: faster-whisper words start
		// with a space; language is the code; usage is null.
		var ws, ss []any
		for i, s := range segs {
			for k, w := range written(s) {
				ws = append(ws, map[string]any{"end": sec(s.words[k].End), "start": sec(s.words[k].Start), "word": " " + w})
			}
			ss = append(ss, map[string]any{"id": i + 1, "avg_logprob": avgLogprob(s.words), "compression_ratio": 1.1, "end": s.end,
				"no_speech_prob": 0.01, "seek": 0, "start": s.start, "temperature": 0.0, "text": segText(s), "tokens": tokens(s)})
		}
		return map[string]any{"duration": dur, "language": "en", "text": allText(segs), "segments": orEmpty(ss), "usage": nil, "words": orEmpty(ws)}
	case LocalAICrispASR, LocalAIWhisper:
		// LocalAI core/http/endpoints/openai/transcription.go
		// (schema.TranscriptionResultSeconds: words named "text",
		// omitempty) over core/backend/transcript.go
		// transcriptResultFromProto; Language is the request's.
		var all, ss []any
		for i, s := range segs {
			seg := map[string]any{"id": i, "start": s.start, "end": s.end, "text": segText(s)}
			if shape == LocalAICrispASR {
				var ws []any
				for k, w := range written(s) {
					ws = append(ws, map[string]any{"start": sec(s.words[k].Start), "end": sec(s.words[k].End), "text": w})
				}
				seg["words"], seg["tokens"] = ws, nil
				all = append(all, ws...)
			} else {
				seg["tokens"] = tokens(s)
			}
			ss = append(ss, seg)
		}
		out := map[string]any{"text": allText(segs)}
		if len(ss) > 0 {
			out["segments"] = ss
		}
		if len(all) > 0 {
			out["words"] = all
		}
		if lang != "" {
			out["language"] = lang
		}
		if shape == LocalAICrispASR {
			out["duration"] = dur
		}
		return out
	case VLLM:
		// vllm speech_to_text.py _get_verbose_segments and
		// TranscriptionResponseVerbose(duration=str(duration_s),
		// language=request.language); no words.
		var ss []any
		for i, s := range segs {
			ss = append(ss, map[string]any{"id": i, "avg_logprob": avgLogprob(s.words), "compression_ratio": 1.1, "end": s.end,
				"no_speech_prob": nil, "seek": 0, "start": s.start, "temperature": 0.0, "text": segText(s), "tokens": tokens(s)})
		}
		var l any
		if lang != "" {
			l = lang
		}
		return map[string]any{"duration": fmt.Sprint(dur), "language": l, "text": allText(segs), "segments": orEmpty(ss), "words": nil}
	case FunASR:
		// FunASR funasr/bin/_server_app.py build_openai_verbose_json over
		// _process_vllm: segment words {"word", "start", "end"}; language
		// the request's, else "unknown" (resolve_transcription_language).
		var ss []any
		for i, s := range segs {
			var ws []any
			for k, w := range written(s) {
				ws = append(ws, map[string]any{"word": strings.TrimSuffix(w, "."), "start": sec(s.words[k].Start), "end": sec(s.words[k].End)})
			}
			ss = append(ss, map[string]any{"id": i, "start": s.start, "end": s.end, "text": strings.TrimSpace(segText(s)), "words": ws})
		}
		if lang == "" {
			lang = "unknown"
		}
		return map[string]any{"task": "transcribe", "language": lang, "duration": dur, "text": allText(segs), "segments": orEmpty(ss)}
	}
	panic("enginetest: unknown shape " + string(shape))
}

func orEmpty(v []any) []any {
	if v == nil {
		return []any{}
	}
	return v
}

func tokens(s segment) []int {
	var out []int
	for _, w := range written(s) {
		out = append(out, tokenID(w))
	}
	return out
}

// renderWhisperCPP follows whisper.cpp examples/server/server.cpp (the
// verbose_json branch of the inference handler): "words" are BPE tokens,
// a word's first token starting with a space; each has start, end, t_dtw
// and probability; segments carry tokens, temperature, avg_logprob and
// no_speech_prob; "language" is the name; detected_language,
// detected_language_probability and language_probabilities are added
// unless no_language_probabilities is set.
func renderWhisperCPP(segs []segment, dur float64, form url.Values) any {
	var ss []any
	for i, s := range segs {
		var toks []any
		var ids []int
		for k, w := range written(s) {
			src := s.words[k]
			// Split words of more than four letters into two tokens, as BPE
			// splits rarer words: " qu" "ick." -> one word again.
			pieces := []string{" " + w}
			if r := []rune(w); len(r) > 4 {
				pieces = []string{" " + string(r[:2]), string(r[2:])}
			}
			span := src.End - src.Start
			for p, piece := range pieces {
				t0 := src.Start + span*int64(p)/int64(len(pieces))
				t1 := src.Start + span*int64(p+1)/int64(len(pieces))
				ids = append(ids, tokenID(piece))
				toks = append(toks, map[string]any{"word": piece, "start": float64(t0/10) / 100, "end": float64(t1/10) / 100,
					"t_dtw": -1, "probability": src.Confidence})
			}
		}
		ss = append(ss, map[string]any{"id": i, "text": segText(s), "start": float64(int64(s.start*100)) / 100, "end": float64(int64(s.end*100)) / 100,
			"tokens": ids, "words": toks, "temperature": 0.0, "avg_logprob": avgLogprob(s.words), "no_speech_prob": 0.001})
	}
	out := map[string]any{"task": "transcribe", "language": "english", "duration": dur, "text": allText(segs) + "\n", "segments": orEmpty(ss)}
	if form.Get("no_language_probabilities") != "true" {
		out["detected_language"] = "english"
		out["detected_language_probability"] = 1.0
		out["language_probabilities"] = map[string]any{"en": 1.0}
	}
	return out
}

// Exchange is one recorded (or source-derived) HTTP exchange with a
// transcription server, as stored in testdata.
type Exchange struct {
	Engine  string `json:"engine"` // recorded from this server ...
	Source  string `json:"source"` // ... or written from this source
	Server  string `json:"server"`
	Note    string `json:"note"`
	Request struct {
		Method string   `json:"method"`
		Path   string   `json:"path"`
		Fields []string `json:"fields"` // "name=value"
		File   *struct {
			Name    string `json:"name"`
			Content string `json:"content"`
		} `json:"file"`
	} `json:"request"`
	Status      int               `json:"status"`
	ContentType string            `json:"content_type"`
	Headers     map[string]string `json:"headers"`
	Body        string            `json:"body"`
}

// LoadExchange reads testdata/name (relative to the test's package).
func LoadExchange(t testing.TB, name string) *Exchange {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var ex Exchange
	if err := json.Unmarshal(b, &ex); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if ex.Status == 0 {
		t.Fatalf("%s: no status", name)
	}
	return &ex
}

// Replayer serves one Exchange.
type Replayer struct {
	URL string
	ex  *Exchange

	mu    sync.Mutex
	calls int
	errs  []string
}

// Replay serves ex at its path: every POST gets the recorded status,
// headers and body. With checkFields, a request whose fields differ from
// the recorded ones (as a multiset) or that has no file is answered 418
// and noted for Err.
func Replay(t testing.TB, ex *Exchange, checkFields bool) *Replayer {
	rp := &Replayer{ex: ex}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rp.mu.Lock()
		rp.calls++
		rp.mu.Unlock()
		if r.URL.Path != ex.Request.Path {
			http.Error(w, "File Not Found ("+r.URL.Path+")", http.StatusNotFound)
			return
		}
		if checkFields {
			form, _, err := ReadRequest(r)
			if err == nil {
				var got []string
				for k, vs := range form {
					for _, v := range vs {
						got = append(got, k+"="+v)
					}
				}
				want := slices.Clone(ex.Request.Fields)
				sort.Strings(got)
				sort.Strings(want)
				if !slices.Equal(got, want) {
					err = fmt.Errorf("fields %q, recorded %q", got, want)
				}
			}
			if err != nil {
				rp.mu.Lock()
				rp.errs = append(rp.errs, err.Error())
				rp.mu.Unlock()
				http.Error(w, err.Error(), http.StatusTeapot)
				return
			}
		}
		for k, v := range ex.Headers {
			w.Header().Set(k, v)
		}
		if ex.ContentType != "" {
			w.Header().Set("Content-Type", ex.ContentType)
		}
		w.WriteHeader(ex.Status)
		_, _ = io.WriteString(w, ex.Body)
	}))
	t.Cleanup(srv.Close)
	rp.URL = srv.URL
	return rp
}

// Calls returns how many requests were served.
func (rp *Replayer) Calls() int {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return rp.calls
}

// Err reports requests that did not match the recording.
func (rp *Replayer) Err() error {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if len(rp.errs) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(rp.errs, "; "))
}

// Structure lists the JSON paths of body with their value types
// ("segments[].words[].probability number"), sorted and without
// duplicates: two bodies of one server's shape have the same structure
// whatever the words. Keys of language_probabilities (language codes) are
// collapsed to "*".
func Structure(body []byte) ([]string, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	set := map[string]bool{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			set[path+" object"] = true
			for k, e := range x {
				if strings.HasSuffix(path, "language_probabilities") {
					k = "*"
				}
				walk(strings.TrimPrefix(path+"."+k, "."), e)
			}
		case []any:
			set[path+" array"] = true
			for _, e := range x {
				walk(path+"[]", e)
			}
		case string:
			set[path+" string"] = true
		case json.Number:
			set[path+" number"] = true
		case bool:
			set[path+" bool"] = true
		case nil:
			set[path+" null"] = true
		}
	}
	walk("", v)
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, strings.TrimSpace(k))
	}
	sort.Strings(out)
	return out, nil
}
