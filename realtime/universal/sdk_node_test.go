package universal

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/nodetest"
	"github.com/earshot-dev/earshot/realtime/engine"
	"github.com/earshot-dev/earshot/realtime/realtimetest/streamtest"
)

type jsTurn struct {
	Order      int     `json:"order"`
	End        bool    `json:"end"`
	Formatted  bool    `json:"formatted"`
	Transcript string  `json:"transcript"`
	Confidence float64 `json:"confidence"`
	Words      int     `json:"words"`
	FinalWords int     `json:"finalWords"`
	WordsOK    bool    `json:"wordsOK"`
	Language   string  `json:"language"`
}

type jsResult struct {
	Token         bool     `json:"token"`
	ID            string   `json:"id"`
	ExpiresIn     float64  `json:"expiresIn"`
	ConnectError  string   `json:"connectError"`
	ConnectCode   int      `json:"connectCode"`
	Turns         []jsTurn `json:"turns"`
	Types         []string `json:"types"`
	SpeechStarted int      `json:"speechStarted"`
	Errors        []string `json:"errors"`
	CloseMs       int64    `json:"closeMs"`
	Fatal         string   `json:"fatal"`
}

// TestJSSDKStreaming runs the official JS SDK 4.41.5's StreamingTranscriber
// (client.streaming) over wss with a temporary token (GET /v3/token) and
// with the API key: two flite sentences through pocketsphinx, the first
// ended by its pause (and formatted: format_turns), then an
// UpdateConfiguration turning formatting off, the second ended by
// ForceEndpoint, then close() (Terminate -> Termination).
func TestJSSDKStreaming(t *testing.T) {
	dir := nodetest.Dir(t, "jstest", "assemblyai")
	const text1, text2 = "we need more money for the new school", "the quick brown fox jumps over the lazy dog"
	tmp := t.TempDir()
	pcm1, pcm2 := filepath.Join(tmp, "1.pcm"), filepath.Join(tmp, "2.pcm")
	if err := os.WriteFile(pcm1, streamtest.SpeechClip(t, "slt", text1, 300, 1800), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pcm2, streamtest.SpeechClip(t, "rms", text2, 300, 200), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := NewHandler(Config{Engine: engine.Config{Recognizer: speechRecognizer(t)}, Authenticate: authKeys, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/v3/ws", h)
	mux.Handle("/v3/token", h.TokenHandler())
	ts := httptest.NewTLSServer(mux)
	t.Cleanup(func() { ts.Close(); h.Close() })
	caPath := filepath.Join(tmp, "ca.pem")
	if err := os.WriteFile(caPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, mode string) jsResult {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "node", "streaming.cjs")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "NODE_EXTRA_CA_CERTS="+caPath, "EARSHOT_URL="+ts.URL, "EARSHOT_KEY=key-a",
			"EARSHOT_MODE="+mode, "EARSHOT_PCM1="+pcm1, "EARSHOT_PCM2="+pcm2)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("node: %v\nstdout: %s\nstderr: %s", err, out, stderr.String())
		}
		var r jsResult
		if err := json.Unmarshal(bytes.TrimSpace(out), &r); err != nil {
			t.Fatalf("node printed %q: %v (stderr %s)", out, err, stderr.String())
		}
		if r.Fatal != "" {
			t.Fatalf("node failed: %s", r.Fatal)
		}
		return r
	}
	for _, mode := range []string{"token", "key"} {
		t.Run(mode, func(t *testing.T) {
			r := run(t, mode)
			if mode == "token" && !r.Token {
				t.Error("createTemporaryToken returned no token")
			}
			if r.ID == "" || r.ExpiresIn < 60 {
				t.Fatalf("Begin: %+v", r)
			}
			if mode == "token" && r.ExpiresIn > 601 {
				t.Errorf("expires_at %v s away; the token allowed 600", r.ExpiresIn)
			}
			var ended, formatted []jsTurn
			partials := 0
			for _, tu := range r.Turns {
				if !tu.WordsOK {
					t.Errorf("turn words %+v", tu)
				}
				switch {
				case tu.End && tu.Formatted:
					formatted = append(formatted, tu)
				case tu.End:
					ended = append(ended, tu)
					if tu.FinalWords != tu.Words || tu.Words == 0 || tu.Language != "en" {
						t.Errorf("ended turn %+v", tu)
					}
				default:
					partials++
				}
			}
			t.Logf("ended %+v\nformatted %+v\n%d partial turns, close() took %d ms", ended, formatted, partials, r.CloseMs)
			if len(ended) != 2 || partials == 0 || r.SpeechStarted < 2 {
				t.Fatalf("ended %d, partials %d, speech started %d: %+v", len(ended), partials, r.SpeechStarted, r)
			}
			if ended[0].Order != 0 || ended[1].Order != 1 {
				t.Errorf("turn orders %d %d", ended[0].Order, ended[1].Order)
			}
			// The pause ended turn 0 on its own, with the engine's
			// confidence; ForceEndpoint ended turn 1 (confidence 1).
			if c := ended[0].Confidence; c <= 0 || c > 1 {
				t.Errorf("turn 0 end_of_turn_confidence %v", c)
			}
			if ended[1].Confidence != 1 {
				t.Errorf("forced turn end_of_turn_confidence %v", ended[1].Confidence)
			}
			// format_turns: a formatted copy of turn 0 only (UpdateConfiguration turned it off).
			if len(formatted) != 1 || formatted[0].Order != 0 || !strings.HasSuffix(formatted[0].Transcript, ".") ||
				formatted[0].Transcript[0] < 'A' || formatted[0].Transcript[0] > 'Z' {
				t.Errorf("formatted turns %+v", formatted)
			}
			if streamtest.WordOverlap(text1, ended[0].Transcript) < 0.6 || streamtest.WordOverlap(text2, ended[1].Transcript) < 0.6 {
				t.Errorf("recognized %q and %q", ended[0].Transcript, ended[1].Transcript)
			}
			if n := len(r.Types); n == 0 || r.Types[n-1] != "Termination" {
				t.Errorf("message types %v: want Termination last", r.Types)
			}
			if r.CloseMs > 4500 { // the SDK gives up at 5000
				t.Errorf("close() took %d ms", r.CloseMs)
			}
			if len(r.Errors) != 0 {
				t.Errorf("errors %v", r.Errors)
			}
		})
	}
	t.Run("bad token", func(t *testing.T) {
		r := run(t, "badtoken")
		if r.ConnectCode != CloseUnauthorized || !strings.Contains(r.ConnectError, "Invalid temporary token") {
			t.Fatalf("%+v", r)
		}
	})
}
