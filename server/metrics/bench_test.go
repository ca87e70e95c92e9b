package metrics_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/httpapi"
	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/realtime"
	"github.com/earshot-dev/earshot/server/metrics"
	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// What the operations side costs, as ratios to the same work without it,
// measured in the same run (interleaved, so machine load hits both):
//
//	go test -run '^$' -bench HookOverhead -benchtime 20x ./internal/metrics
//
// http: GET /v2/transcript (a list page of 3 transcripts) served by the
// API with OnRequest feeding the metrics and a JSON access-log line (to
// io.Discard) / without. realtime: streaming sessions over 3 s of real
// speech and a pause in 100 ms chunks, with OnSession and OnTranscript
// feeding the metrics / without.
func BenchmarkHookOverhead(b *testing.B) {
	b.Run("http", func(b *testing.B) {
		svc, err := transcribe.NewService(transcribe.Config{Store: memory.New(), Blobs: memory.NewBlobStore(),
			Recognizer: &transcribetest.FakeRecognizer{}, Decoder: nopDecoder{}, Key: transcribe.NewKey(), Workers: -1,
			Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			b.Fatal(err)
		}
		for range 3 {
			if _, err := svc.Submit(context.Background(), "p", transcribe.SubmitRequest{Params: transcribe.TranscriptParams{AudioURL: "https://media.example/a.wav"}}); err != nil {
				b.Fatal(err)
			}
		}
		urls, _ := httpapi.NewURLs("http://earshot.test", nil)
		m := metrics.New(metrics.Config{})
		access := slog.New(httpapi.LogHandler(slog.NewJSONHandler(io.Discard, nil)))
		onRequest := func(i httpapi.RequestInfo) {
			access.Info("request", "request_id", i.RequestID, "method", i.Method, "path", i.Path, "route", i.Route, "status", i.Status)
			m.Request(i)
		}
		plain, _ := httpapi.New(httpapi.Config{Service: svc, Auth: httpapi.Keys{"key": "p"}, URLs: urls, RateLimit: -1})
		hooked, _ := httpapi.New(httpapi.Config{Service: svc, Auth: httpapi.Keys{"key": "p"}, URLs: urls, RateLimit: -1, OnRequest: onRequest})
		serve := func(api *httpapi.API) time.Duration {
			start := time.Now()
			for range 200 {
				req := httptest.NewRequest("GET", "/v2/transcript?limit=10", nil)
				req.Header.Set("Authorization", "key")
				rec := httptest.NewRecorder()
				api.ServeHTTP(rec, req)
				if rec.Code != 200 {
					b.Fatalf("list: %d %s", rec.Code, rec.Body)
				}
			}
			return time.Since(start) / 200
		}
		ratio(b, func() time.Duration { return serve(plain) }, func() time.Duration { return serve(hooked) })
	})

	b.Run("realtime", func(b *testing.B) {
		// 3 s of speech and a 1 s pause, 100 ms chunks. The recognizer is a
		// stand-in that costs nothing (one word per 300 ms), so the ratio
		// is the hooks' share of the session engine's own work (decoding,
		// voice activity detection, messages); next to a real recognizer
		// (pocketsphinx: about 8 ms per chunk) it is smaller still.
		samples, _, err := transcribetest.ReadWAV16(testaudio.Speech(b, "slt", "hello world this is a test of the transcription service"))
		if err != nil {
			b.Fatal(err)
		}
		pcm := make([]byte, 2*len(samples))
		for i, v := range samples {
			pcm[2*i], pcm[2*i+1] = byte(v), byte(uint16(v)>>8)
		}
		pcm = append(pcm, make([]byte, 2*16000)...) // a pause: an endpointed final
		m := metrics.New(metrics.Config{})
		session := func(hooks bool) time.Duration {
			cfg := realtime.Config{Recognizer: &wordStreams{}}
			if hooks {
				cfg.OnSession, cfg.OnTranscript = m.Session, m.Transcript
			}
			start := time.Now()
			for range 20 {
				s, err := realtime.NewSession(context.Background(), cfg, realtime.SessionOptions{})
				if err != nil {
					b.Fatal(err)
				}
				for i := 0; i < len(pcm); i += 3200 {
					if _, err := s.Audio(pcm[i:min(i+3200, len(pcm))]); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := s.Terminate(); err != nil {
					b.Fatal(err)
				}
			}
			return time.Since(start) / 20
		}
		ratio(b, func() time.Duration { return session(false) }, func() time.Duration { return session(true) })
	})
}

// wordStreams is a streaming recognizer that costs nothing: a word per
// 300 ms written, with times.
type wordStreams struct{ stubRecognizer }

func (*wordStreams) NewStream(context.Context, transcribe.StreamOptions) (transcribe.Stream, error) {
	return &wordStream{}, nil
}

type wordStream struct {
	written int64 // samples
	from    int64 // ms where the open utterance began
}

func (w *wordStream) Write(x []int16) error { w.written += int64(len(x)); return nil }

func (w *wordStream) words() []transcribe.Word {
	var ws []transcribe.Word
	for end := w.from + 300; end <= w.written/16; end += 300 {
		ws = append(ws, transcribe.Word{Text: "word", Start: end - 250, End: end, Confidence: 0.9})
	}
	return ws
}

func (w *wordStream) Partial() (transcribe.Hypothesis, error) {
	return transcribe.Hypothesis{Words: w.words()}, nil
}

func (w *wordStream) EndUtterance() (transcribe.Hypothesis, error) {
	h := transcribe.Hypothesis{Words: w.words()}
	w.from = w.written / 16
	return h, nil
}

func (w *wordStream) Close() error { return nil }

// ratio runs base and with alternately b.N times and reports their
// medians and the median of the per-round ratios.
func ratio(b *testing.B, base, with func() time.Duration) {
	var bs, ws, rs []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var x, y time.Duration
		if i%2 == 0 {
			x, y = base(), with()
		} else {
			y, x = with(), base()
		}
		bs, ws, rs = append(bs, float64(x)), append(ws, float64(y)), append(rs, float64(y)/float64(x))
	}
	b.ReportMetric(median(bs)/1e3, "base-µs")
	b.ReportMetric(median(ws)/1e3, "hooked-µs")
	b.ReportMetric(median(rs), "ratio")
	b.ReportMetric(0, "ns/op")
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s[len(s)/2]
}
