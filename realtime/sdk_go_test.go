package realtime

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"
	"github.com/earshot-dev/earshot/realtime/realtimetest/streamtest"
)

// sdkServer serves the token and WebSocket endpoints with a real clock.
func sdkServer(t *testing.T, tls bool) (*Handler, *httptest.Server, bool) {
	t.Helper()
	rec, real := speechRecognizer(t)
	h, err := NewHandler(Config{Recognizer: rec, Authenticate: authKeys})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /v2/realtime/ws", h)
	mux.Handle("GET /v2/realtime/ws/{session_id}", h)
	mux.Handle("POST /v2/realtime/token", h.TokenHandler())
	var ts *httptest.Server
	if tls {
		ts = httptest.NewTLSServer(mux)
	} else {
		ts = httptest.NewServer(mux)
	}
	t.Cleanup(func() {
		ts.Close()
		h.Close()
	})
	return h, ts, real
}

type sdkEvents struct {
	mu         sync.Mutex
	begins     []aai.SessionBegins
	partials   []aai.PartialTranscript
	finals     []aai.FinalTranscript
	info       []aai.SessionInformation
	terminated int
	errs       []error
}

func (e *sdkEvents) transcriber(partials, info bool) *aai.RealTimeTranscriber {
	tr := &aai.RealTimeTranscriber{
		OnSessionBegins: func(ev aai.SessionBegins) { e.mu.Lock(); e.begins = append(e.begins, ev); e.mu.Unlock() },
		OnFinalTranscript: func(ev aai.FinalTranscript) {
			e.mu.Lock()
			e.finals = append(e.finals, ev)
			e.mu.Unlock()
		},
		OnSessionTerminated: func(aai.SessionTerminated) { e.mu.Lock(); e.terminated++; e.mu.Unlock() },
		OnError:             func(err error) { e.mu.Lock(); e.errs = append(e.errs, err); e.mu.Unlock() },
	}
	if partials {
		tr.OnPartialTranscript = func(ev aai.PartialTranscript) { e.mu.Lock(); e.partials = append(e.partials, ev); e.mu.Unlock() }
	}
	if info {
		tr.OnSessionInformation = func(ev aai.SessionInformation) { e.mu.Lock(); e.info = append(e.info, ev); e.mu.Unlock() }
	}
	return tr
}

// streamRealTime sends pcm in 100 ms chunks at real-time speed.
func streamRealTime(ctx context.Context, send func(context.Context, []byte) error, pcm []byte) error {
	start := time.Now()
	for i, ch := range streamtest.Chunks(pcm, 100, 16000) {
		if err := send(ctx, ch); err != nil {
			return err
		}
		time.Sleep(time.Until(start.Add(time.Duration(i+1) * 100 * time.Millisecond)))
	}
	return nil
}

// TestGoSDKRealtime runs the official Go SDK v1.10.0 real-time client
// (wire-format.md section 7, items 11 and 12): a temporary token with
// all handlers, then an API key with no sample rate and no partial or
// information handlers.
func TestGoSDKRealtime(t *testing.T) {
	const text = "the quick brown fox jumps over the lazy dog"
	pcm := speechClip(t, "slt", text)
	h, ts, real := sdkServer(t, false)
	wsURL := "ws" + strings.TrimPrefix(ts.URL, "http") + "/v2/realtime/ws"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	client := aai.NewClientWithOptions(aai.WithAPIKey("key-a"), aai.WithBaseURL(ts.URL))
	tok, err := client.RealTime.CreateTemporaryToken(ctx, 60)
	if err != nil || tok.Token == nil || *tok.Token == "" {
		t.Fatalf("CreateTemporaryToken: %v %+v", err, tok)
	}
	if _, err := client.RealTime.CreateTemporaryToken(ctx, 10); err == nil || !strings.Contains(err.Error(), "60") {
		t.Fatalf("expires_in 10: err %v", err)
	}

	for _, mode := range []string{"token", "api key"} {
		t.Run(mode, func(t *testing.T) {
			ev := &sdkEvents{}
			opts := []aai.RealTimeClientOption{aai.WithRealTimeBaseURL(wsURL)}
			if mode == "token" {
				opts = append(opts, aai.WithRealTimeAuthToken(*tok.Token), aai.WithRealTimeSampleRate(16000),
					aai.WithRealTimeTranscriber(ev.transcriber(true, true)))
			} else {
				opts = append(opts, aai.WithRealTimeAPIKey("key-a"), aai.WithRealTimeTranscriber(ev.transcriber(false, false)))
			}
			rt := aai.NewRealTimeClientWithOptions(opts...)
			if err := rt.Connect(ctx); err != nil {
				t.Fatalf("Connect: %v", err)
			}
			if err := streamRealTime(ctx, rt.Send, pcm); err != nil {
				t.Fatalf("Send: %v", err)
			}
			if err := rt.ForceEndUtterance(ctx); err != nil {
				t.Fatalf("ForceEndUtterance: %v", err)
			}
			done := make(chan error, 1)
			go func() { done <- rt.Disconnect(ctx, true) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Disconnect hung: no SessionTerminated")
			}
			ev.mu.Lock()
			defer ev.mu.Unlock()
			if len(ev.begins) != 1 || len(ev.begins[0].SessionID) != 36 || ev.begins[0].ExpiresAt == "" {
				t.Fatalf("SessionBegins %+v", ev.begins)
			}
			if ev.terminated != 1 {
				t.Fatalf("SessionTerminated %d times", ev.terminated)
			}
			if len(ev.finals) == 0 {
				t.Fatalf("no final transcript")
			}
			var all []string
			for _, f := range ev.finals {
				if !f.Punctuated || !f.TextFormatted || len(f.Words) == 0 || f.AudioEnd <= f.AudioStart {
					t.Errorf("final %+v", f)
				}
				all = append(all, f.Text)
			}
			got := strings.Join(all, " ")
			t.Logf("finals: %q; %d partials", got, len(ev.partials))
			if real {
				if ov := streamtest.WordOverlap(text, got); ov < 0.7 {
					t.Errorf("recognized %q; %.0f%% of %q", got, ov*100, text)
				}
			}
			sess := h.Session(ev.begins[0].SessionID)
			if mode == "token" {
				if len(ev.partials) == 0 {
					t.Error("no partial transcripts")
				}
				if len(ev.info) != 1 || ev.info[0].AudioDurationSeconds < 2 {
					t.Errorf("SessionInformation %+v", ev.info)
				}
				if sess.Options().DisablePartialTranscripts {
					t.Error("partials disabled")
				}
			} else {
				if !sess.Options().DisablePartialTranscripts || sess.Options().SampleRate != 16000 {
					t.Errorf("options %+v", sess.Options())
				}
			}
			if st := sess.State(); st != StateTerminated {
				t.Errorf("state %s", st)
			}
			for _, err := range ev.errs {
				t.Logf("OnError: %v", err)
			}
		})
	}

	t.Run("bad token", func(t *testing.T) {
		rt := aai.NewRealTimeClientWithOptions(aai.WithRealTimeBaseURL(wsURL), aai.WithRealTimeAuthToken("nope"),
			aai.WithRealTimeTranscriber(&aai.RealTimeTranscriber{}))
		if err := rt.Connect(ctx); err == nil || err.Error() != "Not Authorized" {
			t.Fatalf("Connect with a bad token: %v", err)
		}
	})
}
