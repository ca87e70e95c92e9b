package universal

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/earshot-dev/earshot/adapters/pocketsphinx"
	"github.com/earshot-dev/earshot/realtime"
	"github.com/earshot-dev/earshot/realtime/engine"
	"github.com/earshot-dev/earshot/realtime/realtimetest/streamtest"
)

// BenchmarkLatencyV2V3 streams the same speech (four flite sentences, each
// followed by 900 ms of silence) at real-time speed in 100 ms chunks over
// v2 (/v2/realtime/ws, default endpointing: 700 ms of silence) and v3
// (/v3/ws, defaults: min_turn_silence 400 ms, threshold 0.4, max 1280 ms,
// the pause-only turn-end probability), on 1 and then N sessions at once,
// interleaved in one run on one pocketsphinx recognizer, and reports the
// server-side latencies both Handlers give their OnTranscript hooks (the
// server's metrics): first-partial (audio message holding a word's end ->
// the first partial or Turn showing it) and end-of-turn (end of the last
// word -> the endpointed final or ended Turn, the pause included), median
// and 95th percentile in milliseconds. It takes wall-clock time:
//
//	go test -run '^$' -bench LatencyV2V3 -benchtime 1x ./realtime/universal
func BenchmarkLatencyV2V3(b *testing.B) {
	const n = 4
	rec, err := pocketsphinx.New(pocketsphinx.Config{Decoders: n})
	if err != nil {
		b.Fatal(err)
	}
	defer rec.Close()
	if err := rec.Warm(context.Background(), n); err != nil {
		b.Fatal(err)
	}
	var pcm []byte
	for _, s := range []struct{ voice, text string }{
		{"slt", "the quick brown fox jumps over the lazy dog"},
		{"rms", "please call stella and ask her to bring these things"},
		{"awb", "we also need a small plastic snake"},
		{"kal", "she can scoop these things into three red bags"},
	} {
		pcm = streamtest.Cat(pcm, streamtest.SpeechClip(b, s.voice, s.text, 300, 900))
	}
	var mu sync.Mutex
	events := map[string][]realtime.TranscriptEvent{}
	hook := func(proto string) func(realtime.TranscriptEvent) {
		return func(e realtime.TranscriptEvent) { mu.Lock(); events[proto] = append(events[proto], e); mu.Unlock() }
	}
	quiet := slog.New(slog.DiscardHandler)
	v2, err := realtime.NewHandler(realtime.Config{Recognizer: rec, Authenticate: authKeys, Admission: realtime.AdmitAll,
		OnTranscript: hook("v2"), Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	defer v2.Close()
	v3, err := NewHandler(Config{Engine: engine.Config{Recognizer: rec}, Authenticate: authKeys, OnTranscript: hook("v3"), Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	defer v3.Close()
	mux := http.NewServeMux()
	mux.Handle("/v2/realtime/ws", v2)
	mux.Handle("/v3/ws", v3)
	ts := httptest.NewServer(mux)
	defer ts.Close()
	ws := "ws" + strings.TrimPrefix(ts.URL, "http")
	run := func(proto string, sessions int) {
		mu.Lock()
		delete(events, proto)
		mu.Unlock()
		var wg sync.WaitGroup
		for range sessions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				url, terminate := ws+"/v2/realtime/ws?sample_rate=16000", `{"terminate_session":true}`
				if proto == "v3" {
					url, terminate = ws+"/v3/ws?sample_rate=16000", `{"type":"Terminate"}`
				}
				if err := stream(url, pcm, terminate); err != nil {
					b.Error(err)
				}
			}()
		}
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		var partial, final []time.Duration
		for _, e := range events[proto] {
			if e.Final {
				final = append(final, e.Latency)
			} else {
				partial = append(partial, e.Latency)
			}
		}
		pm, p95 := quantiles(partial)
		fm, f95 := quantiles(final)
		fmt.Printf("%s  %d session(s)  first-partial %4d ms median %4d ms p95 (%3d)   end-of-turn %4d ms median %4d ms p95 (%2d)\n",
			proto, sessions, pm, p95, len(partial), fm, f95, len(final))
		b.ReportMetric(float64(pm), proto+"-"+fmt.Sprint(sessions)+"-partial-p50-ms")
		b.ReportMetric(float64(fm), proto+"-"+fmt.Sprint(sessions)+"-final-p50-ms")
	}
	for range b.N {
		for _, sessions := range []int{1, n} {
			run("v2", sessions)
			run("v3", sessions)
		}
	}
}

// stream sends pcm at real-time speed in 100 ms chunks, then terminate,
// and reads until the close.
func stream(url string, pcm []byte, terminate string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"key-a"}}})
	if err != nil {
		return err
	}
	defer c.CloseNow()
	done := make(chan error, 1)
	go func() {
		for {
			if _, _, err := c.Read(ctx); err != nil {
				if websocket.CloseStatus(err) == websocket.StatusNormalClosure {
					err = nil
				}
				done <- err
				return
			}
		}
	}()
	t0 := time.Now()
	for i, ch := range streamtest.Chunks(pcm, 100, 16000) {
		if err := c.Write(ctx, websocket.MessageBinary, ch); err != nil {
			return err
		}
		time.Sleep(time.Until(t0.Add(time.Duration(i+1) * 100 * time.Millisecond)))
	}
	if err := c.Write(ctx, websocket.MessageText, []byte(terminate)); err != nil {
		return err
	}
	return <-done
}

// quantiles returns the median and 95th percentile in milliseconds.
func quantiles(d []time.Duration) (int64, int64) {
	if len(d) == 0 {
		return -1, -1
	}
	slices.Sort(d)
	at := func(q float64) int64 { return d[min(len(d)-1, int(q*float64(len(d))))].Milliseconds() }
	return at(0.5), at(0.95)
}
