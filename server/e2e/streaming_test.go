package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/nodetest"
	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// TestJSSDKStreamingThroughServer runs the official JS SDK 4.41.5's
// Universal-Streaming client (realtime/universal/jstest/streaming.cjs)
// against the reference server process, behind a TLS proxy (the SDK
// wants wss): a token from the server's GET /v3/token, then the API key;
// two sentences, the first ended by its pause, the second by
// ForceEndpoint, then Terminate.
func TestJSSDKStreamingThroughServer(t *testing.T) {
	dir := nodetest.Dir(t, filepath.Join("..", "..", "realtime", "universal", "jstest"), "assemblyai")
	s := startServer(t, t.TempDir(), freeAddr(t), "EARSHOT_API_KEYS="+keyJS+":jsproject")
	target, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httptest.NewTLSServer(httputil.NewSingleHostReverseProxy(target))
	t.Cleanup(proxy.Close)
	tmp := t.TempDir()
	caPath := filepath.Join(tmp, "ca.pem")
	if err := os.WriteFile(caPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: proxy.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	pcm := func(name, voice, text string, trailMs int) string {
		samples, _, err := transcribetest.ReadWAV16(testaudio.Speech(t, voice, text))
		if err != nil {
			t.Fatal(err)
		}
		samples = append(append(make([]int16, 4800), samples...), make([]int16, 16*trailMs)...)
		b := make([]byte, 2*len(samples))
		for i, v := range samples {
			b[2*i], b[2*i+1] = byte(v), byte(uint16(v)>>8)
		}
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pcm1 := pcm("1.pcm", "slt", "we need more money for the new school", 1800)
	pcm2 := pcm("2.pcm", "rms", "the quick brown fox jumps over the lazy dog", 200)
	for _, mode := range []string{"token", "key"} {
		t.Run(mode, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, "node", "streaming.cjs")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "NODE_EXTRA_CA_CERTS="+caPath, "EARSHOT_URL="+proxy.URL, "EARSHOT_KEY="+keyJS,
				"EARSHOT_MODE="+mode, "EARSHOT_PCM1="+pcm1, "EARSHOT_PCM2="+pcm2)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("node: %v\nstdout: %s\nstderr: %s", err, out, stderr.String())
			}
			var r struct {
				ID           string `json:"id"`
				ConnectError string `json:"connectError"`
				Turns        []struct {
					Order      int     `json:"order"`
					End        bool    `json:"end"`
					Formatted  bool    `json:"formatted"`
					Transcript string  `json:"transcript"`
					Confidence float64 `json:"confidence"`
					Words      int     `json:"words"`
				} `json:"turns"`
				Types   []string `json:"types"`
				Errors  []string `json:"errors"`
				CloseMs int64    `json:"closeMs"`
				Fatal   string   `json:"fatal"`
			}
			if err := json.Unmarshal(bytes.TrimSpace(out), &r); err != nil || r.Fatal != "" || r.ID == "" {
				t.Fatalf("node printed %s (%v)\nstderr: %s\nserver log:\n%s", out, err, stderr.String(), s.logs())
			}
			var ended []string
			formatted := 0
			for _, tu := range r.Turns {
				if tu.End && tu.Formatted {
					formatted++
				} else if tu.End {
					ended = append(ended, tu.Transcript)
					if tu.Words == 0 || tu.Confidence <= 0 || tu.Confidence > 1 {
						t.Errorf("ended turn %+v", tu)
					}
				}
			}
			got := strings.Join(ended, " | ")
			t.Logf("ended turns %q, %d formatted, close() %d ms", got, formatted, r.CloseMs)
			if len(ended) != 2 || formatted != 1 || !strings.Contains(got, "money") || !strings.Contains(got, "fox") {
				t.Errorf("turns %+v", r.Turns)
			}
			if n := len(r.Types); n == 0 || r.Types[n-1] != "Termination" || r.CloseMs > 4500 || len(r.Errors) != 0 {
				t.Errorf("types %v, close() %d ms, errors %v", r.Types, r.CloseMs, r.Errors)
			}
		})
	}
}
