package realtime

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/nodetest"
	"github.com/earshot-dev/earshot/realtime/realtimetest/streamtest"
)

type jsResult struct {
	Token          bool   `json:"token"`
	SessionID      string `json:"sessionId"`
	ExpiresAtValid bool   `json:"expiresAtValid"`
	ConnectError   string `json:"connectError"`
	Partials       []struct {
		Text    string `json:"text"`
		Created bool   `json:"created"`
	} `json:"partials"`
	Finals []struct {
		Text       string `json:"text"`
		Punctuated bool   `json:"punctuated"`
		Words      int    `json:"words"`
		Start      int64  `json:"start"`
		End        int64  `json:"end"`
		Created    bool   `json:"created"`
	} `json:"finals"`
	Info   []float64 `json:"info"`
	Errors []string  `json:"errors"`
	Close  *struct {
		Code   int    `json:"code"`
		Reason string `json:"reason"`
	} `json:"close"`
	Types   []string `json:"types"`
	CloseMs int64    `json:"closeMs"`
	Fatal   string   `json:"fatal"`
}

// TestJSSDKRealtime runs the official JS SDK 4.41.5 real-time client
// over wss (wire-format.md section 7, JS items 8 to 10).
func TestJSSDKRealtime(t *testing.T) {
	dir := nodetest.Dir(t, "jstest", "assemblyai")
	const text = "we need more money for the new school"
	pcmPath := filepath.Join(t.TempDir(), "speech.pcm")
	if err := os.WriteFile(pcmPath, speechClip(t, "slt", text), 0o644); err != nil {
		t.Fatal(err)
	}
	h, ts, real := sdkServer(t, true)
	caPath := filepath.Join(t.TempDir(), "ca.pem")
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw})
	if err := os.WriteFile(caPath, ca, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, mode string) jsResult {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "node", "realtime.cjs")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "NODE_EXTRA_CA_CERTS="+caPath, "EARSHOT_URL="+ts.URL,
			"EARSHOT_KEY=key-a", "EARSHOT_MODE="+mode, "EARSHOT_PCM="+pcmPath)
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
			if r.SessionID == "" || !r.ExpiresAtValid {
				t.Fatalf("connect: %+v", r)
			}
			if len(r.Partials) == 0 || len(r.Finals) == 0 {
				t.Fatalf("partials %d finals %d: %+v", len(r.Partials), len(r.Finals), r)
			}
			var texts []string
			for _, f := range r.Finals {
				if !f.Punctuated || f.Words == 0 || !f.Created || f.End <= f.Start {
					t.Errorf("final %+v", f)
				}
				texts = append(texts, f.Text)
			}
			got := strings.Join(texts, " ")
			t.Logf("finals %q, %d partials, close() took %d ms", got, len(r.Partials), r.CloseMs)
			if real && streamtest.WordOverlap(text, got) < 0.7 {
				t.Errorf("recognized %q for %q", got, text)
			}
			if len(r.Info) != 1 || r.Info[0] < 2 {
				t.Errorf("session_information %v", r.Info)
			}
			if n := len(r.Types); n < 2 || r.Types[n-2] != "SessionInformation" || r.Types[n-1] != "SessionTerminated" {
				t.Errorf("message types %v: want SessionInformation, SessionTerminated last", r.Types)
			}
			if r.CloseMs > 4500 {
				t.Errorf("close() took %d ms (the SDK gives up at 5000)", r.CloseMs)
			}
			if len(r.Errors) != 0 {
				t.Errorf("errors %v", r.Errors)
			}
			sess := h.Session(r.SessionID)
			if sess == nil || sess.State() != StateTerminated {
				t.Fatalf("session not terminated by terminate_session")
			}
			o := sess.Options()
			if len(o.WordBoost) != 1 || o.WordBoost[0] != "foo" || !o.EnableExtraSessionInformation {
				t.Errorf("options %+v", o)
			}
			// endUtteranceSilenceThreshold was sent in onopen.
			if got := sess.SilenceThreshold(); got != 500*time.Millisecond {
				t.Errorf("silence threshold %v", got)
			}
		})
	}
	t.Run("bad token", func(t *testing.T) {
		r := run(t, "badtoken")
		if !strings.Contains(r.ConnectError, "4001") || r.Close == nil || r.Close.Code != 4001 {
			t.Fatalf("%+v", r)
		}
		if len(r.Errors) == 0 || r.Errors[0] != "Not Authorized" {
			t.Fatalf("errors %v", r.Errors)
		}
	})
}
