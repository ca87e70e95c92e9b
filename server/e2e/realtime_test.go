package e2e

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"

	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// TestRealtimeThroughServer streams real speech to the reference server's
// /v2/realtime/ws with the Go SDK: once with a temporary token minted by
// the server's token endpoint, once with the API key, so the server's
// wiring (authentication, mounting, streaming decoder pool, formatting of
// finals) is covered end to end.
func TestRealtimeThroughServer(t *testing.T) {
	samples, _, err := transcribetest.ReadWAV16(testaudio.Speech(t, "slt", "the weather is nice today"))
	if err != nil {
		t.Fatal(err)
	}
	s := startServer(t, t.TempDir(), freeAddr(t), "EARSHOT_API_KEYS="+keyK+":p")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tok, err := client(s, keyK).RealTime.CreateTemporaryToken(ctx, 60)
	if err != nil || tok.Token == nil {
		t.Fatalf("token: %v", err)
	}
	wsURL := "ws" + strings.TrimPrefix(s.URL, "http") + "/v2/realtime/ws"
	for _, auth := range []aai.RealTimeClientOption{aai.WithRealTimeAuthToken(*tok.Token), aai.WithRealTimeAPIKey(keyK)} {
		var mu sync.Mutex
		var finals []string
		terminated := false
		rt := aai.NewRealTimeClientWithOptions(aai.WithRealTimeBaseURL(wsURL), auth, aai.WithRealTimeSampleRate(16000),
			aai.WithRealTimeTranscriber(&aai.RealTimeTranscriber{
				OnFinalTranscript:   func(f aai.FinalTranscript) { mu.Lock(); finals = append(finals, f.Text); mu.Unlock() },
				OnSessionTerminated: func(aai.SessionTerminated) { mu.Lock(); terminated = true; mu.Unlock() },
			}))
		if err := rt.Connect(ctx); err != nil {
			t.Fatalf("connect: %v", err)
		}
		for i := 0; i < len(samples); i += 1600 { // 100 ms chunks at real-time speed
			chunk := samples[i:min(i+1600, len(samples))]
			buf := make([]byte, 2*len(chunk))
			for j, v := range chunk {
				buf[2*j], buf[2*j+1] = byte(v), byte(uint16(v)>>8)
			}
			if err := rt.Send(ctx, buf); err != nil {
				t.Fatalf("send: %v", err)
			}
			time.Sleep(100 * time.Millisecond)
		}
		if err := rt.ForceEndUtterance(ctx); err != nil {
			t.Fatal(err)
		}
		if err := rt.Disconnect(ctx, true); err != nil {
			t.Fatalf("disconnect: %v", err)
		}
		mu.Lock()
		got := strings.Join(finals, " ")
		mu.Unlock()
		if !terminated || !strings.Contains(strings.ToLower(got), "weather") || !strings.HasSuffix(got, ".") {
			t.Fatalf("finals %q, terminated %v", got, terminated)
		}
	}
}
