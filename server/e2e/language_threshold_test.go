package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/adapters/openai/enginetest"
	"github.com/earshot-dev/earshot/internal/testaudio"
)

// recordedEngine serves, at any path, the answer of the exchange named by
// *current: "inference_detect.json" and the like from a testdata
// directory (enginetest.Exchange), or "f0d2bfbf/<name>" for the raw
// whisper-server f0d2bfbf answers (hdr-<name>.txt and raw-<name>.out).
func recordedEngine(t *testing.T, dir string, current *atomic.Value) *httptest.Server {
	t.Helper()
	load := func(name string) (int, http.Header, []byte) {
		if raw, ok := strings.CutPrefix(name, "f0d2bfbf/"); ok {
			hdr, err1 := os.ReadFile(filepath.Join(dir, "f0d2bfbf", "hdr-"+raw+".txt"))
			body, err2 := os.ReadFile(filepath.Join(dir, "f0d2bfbf", "raw-"+raw+".out"))
			if err1 != nil || err2 != nil {
				t.Errorf("%s: %v %v", name, err1, err2)
				return 500, nil, nil
			}
			resp, err := http.ReadResponse(bufio.NewReader(io.MultiReader(bytes.NewReader(hdr), bytes.NewReader(body))), nil)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				return 500, nil, nil
			}
			return resp.StatusCode, resp.Header, body
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		var ex enginetest.Exchange
		if err == nil {
			err = json.Unmarshal(b, &ex)
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			return 500, nil, nil
		}
		h := http.Header{"Content-Type": {ex.ContentType}}
		for k, v := range ex.Headers {
			h.Set(k, v)
		}
		return ex.Status, h, []byte(ex.Body)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		status, h, body := load(current.Load().(string))
		for k, v := range h {
			if k != "Content-Length" {
				w.Header()[k] = v
			}
		}
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestLanguageConfidenceThresholdOnEveryEngine drives a real server
// process with each kind of engine and language_confidence_threshold 0.5:
// it is never silently ignored. pocketsphinx (which does not detect) is a
// 400 naming the parameter; whisper.cpp with language_probabilities
// (233fe1fc) and an OpenAI-compatible server with them pass or fail on the
// engine's confidence; whisper.cpp f0d2bfbf (no probabilities) and an
// OpenAI-compatible server without them (speaches' verbose_json) fail
// the transcript naming the missing confidence. The engines answer with
// recorded answers (adapters/*/testdata). Before, the last two completed
// with language_confidence null and pocketsphinx with "en".
func TestLanguageConfidenceThresholdOnEveryEngine(t *testing.T) {
	var wc, oai atomic.Value
	whisper := recordedEngine(t, "../../adapters/whispercpp/testdata", &wc)
	compat := recordedEngine(t, "../../adapters/openai/testdata", &oai)
	s := startServer(t, t.TempDir(), freeAddr(t), "EARSHOT_API_KEYS="+keyK+":p",
		"EARSHOT_WHISPERCPP_URL="+whisper.URL, "EARSHOT_OPENAI_URL="+compat.URL+"/v1")
	wav, err := os.ReadFile(testaudio.Speech(t, "slt", "the quick brown fox jumps over the lazy dog"))
	if err != nil {
		t.Fatal(err)
	}
	call := func(method, path string, body []byte) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(method, s.URL+path, bytes.NewReader(body))
		req.Header.Set("Authorization", keyK)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&v)
		return resp.StatusCode, v
	}
	run := func(model, threshold string) (int, map[string]any) {
		t.Helper()
		_, up := call("POST", "/v2/upload", wav)
		body := `{"audio_url":"` + up["upload_url"].(string) + `","speech_model":"` + model + `","language_detection":true` + threshold + `}`
		code, tr := call("POST", "/v2/transcript", []byte(body))
		if code != 200 {
			return code, tr
		}
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			_, tr = call("GET", "/v2/transcript/"+tr["id"].(string), nil)
			if tr["status"] == "completed" || tr["status"] == "error" {
				return code, tr
			}
		}
		t.Fatalf("%s: not done: %v", model, tr)
		return 0, nil
	}
	const th = `,"language_confidence_threshold":0.5`
	for _, c := range []struct {
		label, model, answer, threshold string
		code                            int
		status, lang                    string
		conf                            any
		reason                          string
	}{
		{"pocketsphinx", "pocketsphinx", "", th, 400, "", "", nil, `language_confidence_threshold: engine "pocketsphinx" does not detect languages`},
		{"pocketsphinx, no threshold", "pocketsphinx", "", "", 200, "completed", "en", nil, ""},
		{"whisper.cpp 233fe1fc", "whispercpp", "inference_detect.json", th, 200, "completed", "gl", 0.7966729402542114, ""},
		{"whisper.cpp 233fe1fc, 0.9", "whispercpp", "inference_detect.json", `,"language_confidence_threshold":0.9`, 200, "error", "", nil, "below language_confidence_threshold 0.90"},
		{"whisper.cpp f0d2bfbf", "whispercpp", "f0d2bfbf/rand-ml-auto", th, 200, "error", "", nil, "language_confidence_threshold 0.50 cannot be applied: the speech engine whisper.cpp reported the language ne without a confidence"},
		{"whisper.cpp f0d2bfbf, no threshold", "whispercpp", "f0d2bfbf/rand-ml-auto", "", 200, "completed", "ne", nil, ""},
		{"OpenAI-compatible with probabilities", "openai", "whispercpp_auto.json", th, 200, "completed", "gl", 0.7966729402542114, ""},
		{"OpenAI-compatible without (speaches)", "openai", "speaches_verbose.json", th, 200, "error", "", nil, "language_confidence_threshold 0.50 cannot be applied: the speech engine whisper-1 reported the language en without a confidence"},
	} {
		wc.Store(c.answer)
		oai.Store(c.answer)
		code, tr := run(c.model, c.threshold)
		if code != c.code {
			t.Errorf("%s: HTTP %d (status %v, error %v), want %d", c.label, code, tr["status"], tr["error"], c.code)
			continue
		}
		if code != 200 {
			if msg, _ := tr["error"].(string); !strings.Contains(msg, c.reason) {
				t.Errorf("%s: %q, want %q", c.label, msg, c.reason)
			}
			continue
		}
		if tr["status"] != c.status {
			t.Errorf("%s: %v (%v), want %s", c.label, tr["status"], tr["error"], c.status)
			continue
		}
		if c.status == "error" {
			if msg, _ := tr["error"].(string); !strings.Contains(msg, c.reason) {
				t.Errorf("%s: error %q, want %q", c.label, msg, c.reason)
			}
			continue
		}
		if tr["language_code"] != c.lang || tr["language_confidence"] != c.conf {
			t.Errorf("%s: language %v confidence %v, want %s %v", c.label, tr["language_code"], tr["language_confidence"], c.lang, c.conf)
		}
	}
}
