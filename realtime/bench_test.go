package realtime

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/realtime/engine"
	"github.com/earshot-dev/earshot/realtime/realtimetest/streamtest"
	"github.com/earshot-dev/earshot/transcribe"
)

// Benchmarks of streaming over a real WebSocket with real speech sent at
// real-time speed. They take wall-clock time, so run them one at a time:
//
//	go test -run '^$' -bench 'Streaming' -benchtime 1x ./realtime
//
// BenchmarkStreamingLatency reports the median and 90th percentile of
//   - partial-ms: from sending the 100 ms chunk that completes a word to
//     receiving the first PartialTranscript that shows it (words that
//     never show in a partial are counted in words-missed);
//   - final-ms: from sending the chunk in which the endpointing pause
//     (700 ms of non-speech after the last speech frame of the utterance)
//     ends to receiving the FinalTranscript.
//
// BenchmarkStreamingConcurrency streams the clip on N sessions at once,
// for growing N, and reports the largest N at which every session still
// keeps up with real time (median final latency under 1 s and
// SessionTerminated within 2 s of terminate_session). Both measure wall
// time, so other work on the machine inflates them.
//
// BenchmarkSessionCPU reports CPU seconds per second of audio, the cost
// that bounds how many sessions the cores carry whatever else runs.

var benchSentences = []struct{ voice, text string }{
	{"slt", "the quick brown fox jumps over the lazy dog"},
	{"rms", "please call stella and ask her to bring these things"},
	{"awb", "we also need a small plastic snake"},
	{"kal", "she can scoop these things into three red bags"},
}

// benchClip returns the sentences separated by 1.2 s pauses, and the
// client-side speech/non-speech decision of every 10 ms frame.
func benchClip(b testing.TB, n int) ([]byte, []bool) {
	var pcm []byte
	for i := 0; i < n; i++ {
		s := benchSentences[i%len(benchSentences)]
		pcm = streamtest.Cat(pcm, streamtest.Silence(300, 16000), streamtest.WAVPCM(b, testaudio.Speech(b, s.voice, s.text)), streamtest.Silence(900, 16000))
	}
	return pcm, engine.SpeechFrames(pcm, 16000, 300)
}

type recvMsg struct {
	at  time.Time
	typ string
	m   struct {
		AudioStart int64  `json:"audio_start"`
		AudioEnd   int64  `json:"audio_end"`
		Text       string `json:"text"`
		Words      []Word `json:"words"`
	}
}

type clipRun struct {
	sent       []time.Time // when chunk i was sent
	msgs       []recvMsg
	terminated time.Duration // terminate_session -> SessionTerminated
	err        error
}

// streamClip streams pcm over one session at real-time speed in 100 ms
// chunks and records what came back and when.
func streamClip(ctx context.Context, url string, pcm []byte) clipRun {
	var r clipRun
	c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"key-a"}}})
	if err != nil {
		r.err = err
		return r
	}
	if _, _, err := c.Read(ctx); err != nil { // SessionBegins
		c.CloseNow()
		r.err = err
		return r
	}
	return streamUntil(ctx, c, pcm, nil)
}

func normWord(s string) string {
	return strings.Trim(strings.ToLower(s), ".,?!;:")
}

// latencies derives the partial and final latencies of a run.
func (r clipRun) latencies(flags []bool) (partial, final []time.Duration, missed int) {
	chunkSent := func(ms int64) (time.Time, bool) {
		i := int(ms / 100)
		if i < 0 || i >= len(r.sent) {
			return time.Time{}, false
		}
		return r.sent[i], true
	}
	prevFinal := -1
	for fi, f := range r.msgs {
		if f.typ != "FinalTranscript" {
			continue
		}
		for _, w := range f.m.Words {
			sent, ok := chunkSent(w.End)
			if !ok {
				continue
			}
			found := false
			for _, p := range r.msgs[prevFinal+1 : fi] {
				if p.typ != "PartialTranscript" {
					continue
				}
				for _, pw := range p.m.Words {
					if normWord(pw.Text) == normWord(w.Text) && abs64(pw.Start-w.Start) < 300 {
						found = true
						break
					}
				}
				if found {
					partial = append(partial, p.at.Sub(sent))
					break
				}
			}
			if !found {
				missed++
			}
		}
		prevFinal = fi
		// End of the pause: 700 ms after the last speech frame at or
		// before the final's audio_end (+300 ms for timing slack).
		last := -1
		for k := int(min(int64(len(flags)-1), (f.m.AudioEnd+300)/10)); k >= 0; k-- {
			if flags[k] {
				last = k
				break
			}
		}
		if last < 0 {
			continue
		}
		pauseEnd := int64(last+1)*10 + DefaultSilenceThreshold.Milliseconds()
		if sent, ok := chunkSent(pauseEnd); ok && pauseEnd < int64(len(r.sent))*100 {
			final = append(final, f.at.Sub(sent))
		}
	}
	return partial, final, missed
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return -1
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(q*float64(len(s)-1)+0.5)]
}

func benchServer(b testing.TB, rec transcribe.StreamRecognizer) string {
	h, err := NewHandler(Config{Recognizer: rec, Authenticate: authKeys, MaxSessionsPerProject: 1000, Admission: AdmitAll})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(h)
	b.Cleanup(func() {
		ts.Close()
		h.Close()
	})
	return "ws" + strings.TrimPrefix(ts.URL, "http") + "/v2/realtime/ws"
}

func BenchmarkStreamingLatency(b *testing.B) {
	rec, real := benchRecognizer(b, 1)
	pcm, flags := benchClip(b, 4)
	url := benchServer(b, rec)
	var partial, final []time.Duration
	missed, words := 0, 0
	for i := 0; i < b.N; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		r := streamClip(ctx, url, pcm)
		cancel()
		if r.err != nil {
			b.Fatal(r.err)
		}
		p, f, m := r.latencies(flags)
		partial, final, missed = append(partial, p...), append(final, f...), missed+m
		words += len(p) + m
		var texts []string
		for _, m := range r.msgs {
			if m.typ == "FinalTranscript" {
				texts = append(texts, m.m.Text)
			}
		}
		b.Logf("real recognizer %v; finals: %s", real, strings.Join(texts, " | "))
	}
	b.ReportMetric(float64(quantile(partial, 0.5).Milliseconds()), "partial-ms-p50")
	b.ReportMetric(float64(quantile(partial, 0.9).Milliseconds()), "partial-ms-p90")
	b.ReportMetric(float64(quantile(final, 0.5).Milliseconds()), "final-ms-p50")
	b.ReportMetric(float64(quantile(final, 0.9).Milliseconds()), "final-ms-p90")
	b.ReportMetric(float64(missed), "words-missed")
	b.ReportMetric(float64(words), "words")
	b.ReportMetric(0, "ns/op")
}

func BenchmarkStreamingConcurrency(b *testing.B) {
	pcm, flags := benchClip(b, 2)
	best := 0
	for _, n := range []int{1, 2, 4, 6, 8, 12, 16, 24, 32} {
		rec, _ := benchRecognizer(b, n)
		url := benchServer(b, rec)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		runs := make([]clipRun, n)
		var wg sync.WaitGroup
		for i := range runs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(time.Duration(i) * 100 * time.Millisecond / time.Duration(n)) // stagger chunk phases
				runs[i] = streamClip(ctx, url, pcm)
			}()
		}
		wg.Wait()
		cancel()
		ok := true
		var worstFinal, worstTerm time.Duration
		for _, r := range runs {
			if r.err != nil {
				b.Logf("n=%d: %v", n, r.err)
				ok = false
				continue
			}
			_, f, _ := r.latencies(flags)
			med := quantile(f, 0.5)
			worstFinal = max(worstFinal, med)
			worstTerm = max(worstTerm, r.terminated)
			if med < 0 || med > time.Second || r.terminated > 2*time.Second {
				ok = false
			}
		}
		b.Logf("n=%d sessions: keeps real time %v; worst median final latency %v, worst terminate->SessionTerminated %v", n, ok, worstFinal, worstTerm)
		if closer, ok := rec.(interface{ Close() error }); ok {
			closer.Close()
		}
		if !ok {
			break
		}
		best = n
	}
	b.ReportMetric(float64(best), "realtime-sessions")
	b.ReportMetric(0, "ns/op")
}

// cpuTime returns the CPU time (user + system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// threadTime returns the CPU time of the calling OS thread (the caller
// locks its goroutine to the thread; cpu_linux.go).
func threadTime() time.Duration {
	n, _ := threadCPU()
	return time.Duration(n)
}

// BenchmarkSessionCPU feeds the speech clip through the session engine
// (recognizer included, no WebSocket) as fast as it goes and reports CPU
// seconds per second of audio, the number of real-time sessions the
// machine's cores could carry at that cost with 30% headroom, and the CPU
// time of handling the chunk that ends an utterance (the floor of the
// final-transcript latency) and of other chunks. CPU time, unlike wall
// time, does not depend on what else the machine runs.
func BenchmarkSessionCPU(b *testing.B) {
	rec, _ := benchRecognizer(b, 1)
	pcm, _ := benchClip(b, 4)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var audio, cpu, wall time.Duration
	var finalCPU, otherCPU []time.Duration
	for i := 0; i < b.N; i++ {
		s, err := NewSession(context.Background(), Config{Recognizer: rec}, SessionOptions{})
		if err != nil {
			b.Fatal(err)
		}
		c0, w0 := cpuTime(), time.Now()
		for _, ch := range streamtest.Chunks(pcm, 100, 16000) {
			t0 := threadTime()
			msgs, err := s.Audio(ch)
			d := threadTime() - t0
			if err != nil {
				b.Fatal(err)
			}
			final := false
			for _, m := range msgs {
				final = final || m.Type() == TypeFinalTranscript
			}
			if final {
				finalCPU = append(finalCPU, d)
			} else {
				otherCPU = append(otherCPU, d)
			}
		}
		if _, err := s.Terminate(); err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime() - c0
		wall += time.Since(w0)
		audio += s.AudioDuration()
	}
	perSec := cpu.Seconds() / audio.Seconds()
	b.ReportMetric(perSec, "cpu-s/audio-s")
	b.ReportMetric(wall.Seconds()/audio.Seconds(), "wall-s/audio-s")
	b.ReportMetric(float64(runtime.NumCPU())*0.7/perSec, "est-realtime-sessions")
	b.ReportMetric(float64(quantile(finalCPU, 0.5).Microseconds())/1000, "final-chunk-cpu-ms-p50")
	b.ReportMetric(float64(quantile(finalCPU, 0.9).Microseconds())/1000, "final-chunk-cpu-ms-p90")
	b.ReportMetric(float64(quantile(otherCPU, 0.5).Microseconds())/1000, "chunk-cpu-ms-p50")
	b.ReportMetric(float64(quantile(otherCPU, 0.9).Microseconds())/1000, "chunk-cpu-ms-p90")
	b.ReportMetric(0, "ns/op")
}
