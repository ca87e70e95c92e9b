package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkJobsPerMinute measures throughput with 1, 2 and 3 server
// processes (one worker each) on one PostgreSQL + S3, behind a load
// balancer: each run starts the processes, queues clusterBenchJobs jobs of
// short real speech through the balancer, and times from the first upload
// to the last job's webhook. Each of the b.N rounds (-benchtime=3x for
// three) runs 1, 2 and 3 processes in turn, so the levels share the
// machine's load; metrics are the median jobs/min per level and its ratio
// to one process. The load average at the start of each run is logged:
// on a shared machine the figures move with it. Claim latency under
// contention is BenchmarkClaimContention in storage/postgres.
func BenchmarkJobsPerMinute(b *testing.B) {
	clips := shortClips(b)
	lb := newBalancer(b)
	env := newClusterEnv(b, lb.URL(), "EARSHOT_WORKERS=1", "EARSHOT_STREAM_DECODERS=1")
	levels := []int{1, 2, 3}
	rates := make([][]float64, len(levels))
	for i := 0; i < b.N; i++ {
		for j, n := range levels {
			rates[j] = append(rates[j], clusterRun(b, env, lb, clips, n))
		}
	}
	med := make([]float64, len(levels))
	for j := range levels {
		r := append([]float64(nil), rates[j]...)
		sort.Float64s(r)
		med[j] = r[len(r)/2]
	}
	b.ReportMetric(0, "ns/op")
	for j, n := range levels {
		b.ReportMetric(med[j], fmt.Sprintf("jobs/min_%dproc", n))
		if j > 0 {
			b.ReportMetric(med[j]/med[0], fmt.Sprintf("x_%dproc", n))
		}
		b.Logf("%d processes: median %.1f jobs/min (runs %v), %.2fx one process", n, med[j], rounded(rates[j]), med[j]/med[0])
	}
}

// clusterBenchJobs is how many jobs one run queues.
const clusterBenchJobs = 60

// clusterRun starts n processes, runs clusterBenchJobs jobs through them
// and stops them; it returns jobs per minute.
func clusterRun(b *testing.B, env *clusterEnv, lb *balancer, clips [][]byte, n int) float64 {
	b.StopTimer()
	hooks := newHookSink(b)
	nodes := make([]*node, n)
	var wg sync.WaitGroup
	for i := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := listenFree()
			if err != nil {
				b.Error(err)
				return
			}
			nodes[i] = startNode(b, env, fmt.Sprint("bench-", i), b.TempDir(), l)
		}()
	}
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
	var addrs []string
	for _, nd := range nodes {
		addrs = append(addrs, nd.Addr)
	}
	lb.set(addrs...)
	load, _ := os.ReadFile("/proc/loadavg")
	cl := api{base: lb.URL(), key: env.Key, c: &http.Client{Timeout: time.Minute}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	b.StartTimer()
	start := time.Now()
	var next atomic.Int64
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= clusterBenchJobs {
					return
				}
				if _, err := cl.submit(ctx, clips[i%len(clips)], map[string]any{"webhook_url": hooks.srv.URL + "/hook"}); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for hooks.distinct() < clusterBenchJobs && !b.Failed() {
		if ctx.Err() != nil {
			b.Fatalf("%d of %d jobs done", hooks.distinct(), clusterBenchJobs)
		}
		time.Sleep(20 * time.Millisecond)
	}
	el := time.Since(start)
	b.StopTimer()
	for _, nd := range nodes {
		nd.stop()
	}
	rate := float64(clusterBenchJobs) / el.Minutes()
	b.Logf("%d processes: %d jobs in %v = %.1f jobs/min (load average at start: %s)", n, clusterBenchJobs, el.Round(time.Millisecond), rate,
		strings.Join(strings.Fields(string(load))[:3], " "))
	return rate
}

// listenFree returns a free loopback address (freeAddr for benchmarks).
func listenFree() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func rounded(xs []float64) []string {
	var out []string
	for _, x := range xs {
		out = append(out, fmt.Sprintf("%.1f", x))
	}
	return out
}
