package e2e

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/adapters/enginepool/pooltest"
	"github.com/earshot-dev/earshot/adapters/whispercpp"
	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe"
)

// BenchmarkEnginePool measures how an engine pool scales: N = 1, 2 and 4
// fake whisper.cpp servers (adapters/enginepool/pooltest: loopback, one
// request at a time each, like whisper-server) behind one whispercpp
// Recognizer (default concurrency 1), through the Service with the
// server's default workers (one per CPU, or the pool's capacity if more).
//
//   - turnaround of a 10-minute recording (EARSHOT_BENCH_MINUTES), the
//     servers taking 1 s per minute of audio (whisper's time grows with
//     the audio): one server is sent the file whole, several get its
//     pieces side by side. Metric turnaround-xN: time with 1 server ÷
//     time with N (target ≥ 0.9 N);
//   - throughput of 20 short jobs (a librivox clip each) submitted at
//     once, the servers taking a fixed 200 ms per request. Metric
//     jobs-xN: time with 1 server ÷ time with N (target ≥ 0.9 N).
func BenchmarkEnginePool(b *testing.B) {
	long := longRecording(b, benchMinutes(b))
	clip := testaudio.Librivox(b)[0]
	ns := []int{1, 2, 4}
	turn := make([][]float64, len(ns))
	jobs := make([][]float64, len(ns))
	// service returns a Service on n fresh servers.
	service := func(n int, delay, perSecond time.Duration) (*transcribe.Service, chan string) {
		var urls []string
		for range n {
			s := pooltest.New(b, delay)
			s.PerSecond = perSecond
			urls = append(urls, s.URL)
		}
		rec, err := whispercpp.New(whispercpp.Config{URLs: urls, Languages: []string{"en"}})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { rec.Close() })
		return benchService(b, rec, max(runtime.NumCPU(), rec.Capacity()))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k, n := range ns {
			svc, done := service(n, 0, time.Second/60)
			t0 := time.Now()
			submitClip(b, svc, long)
			id := <-done
			took := time.Since(t0)
			if tr, err := svc.Get(context.Background(), "p", id); err != nil || tr.Status != transcribe.StatusCompleted {
				b.Fatalf("%v %v", err, tr.Error)
			}
			turn[k] = append(turn[k], took.Seconds())

			svc, done = service(n, 200*time.Millisecond, 0)
			t0 = time.Now()
			for range 20 {
				submitClip(b, svc, clip)
			}
			for range 20 {
				<-done
			}
			jobs[k] = append(jobs[k], time.Since(t0).Seconds())
			b.Logf("%d servers: %.0f-minute recording %.2f s, 20 short jobs %.2f s", n, benchMinutes(b), turn[k][i], jobs[k][i])
		}
	}
	for k, n := range ns[1:] {
		var tr, jr []float64
		for i := range turn[0] {
			tr = append(tr, turn[0][i]/turn[k+1][i])
			jr = append(jr, jobs[0][i]/jobs[k+1][i])
		}
		b.ReportMetric(median(tr), fmt.Sprintf("turnaround-x%d", n))
		b.ReportMetric(median(jr), fmt.Sprintf("jobs-x%d", n))
	}
}
