package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"sort"
	"strconv"
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
// machine's load. Metrics: the median jobs/min per level, its ratio to one
// process, and the CPU time the server processes and their engine
// workers spent per job (which bounds what a machine can do: cores ÷
// CPU-s per job). Each round's line gives the machine's CPU use during
// the runs, other programs included: on a shared machine the figures
// move with it. Claim latency under contention is
// BenchmarkClaimContention in storage/postgres.
func BenchmarkJobsPerMinute(b *testing.B) {
	clips := shortClips(b)
	lb := newBalancer(b)
	env := newClusterEnv(b, lb.URL(), "EARSHOT_WORKERS=1", "EARSHOT_STREAM_DECODERS=1")
	levels := []int{1, 2, 3}
	rates := make([][]float64, len(levels))
	var cpu []float64
	for i := 0; i < b.N; i++ {
		var line []string
		for j, n := range levels {
			r := clusterRun(b, env, lb, clips, n)
			rates[j] = append(rates[j], r.rate)
			cpu = append(cpu, r.cpuPerJob)
			line = append(line, fmt.Sprintf("%d: %.1f jobs/min, %.2f CPU-s/job, machine %.0f%% busy", n, r.rate, r.cpuPerJob, 100*r.busy))
		}
		b.Logf("round %d: %s", i+1, strings.Join(line, "; "))
	}
	med := func(xs []float64) float64 {
		r := append([]float64(nil), xs...)
		sort.Float64s(r)
		return r[len(r)/2]
	}
	b.ReportMetric(0, "ns/op")
	one := med(rates[0])
	for j, n := range levels {
		m := med(rates[j])
		b.ReportMetric(m, fmt.Sprintf("jobs/min_%dproc", n))
		if j > 0 {
			b.ReportMetric(m/one, fmt.Sprintf("x_%dproc", n))
		}
		b.Logf("%d processes: median %.1f jobs/min (runs %v), %.2fx one process", n, m, rounded(rates[j]), m/one)
	}
	c := med(cpu)
	b.ReportMetric(c, "CPU-s/job")
	b.Logf("median CPU per job %.2f s: at most %.0f jobs/min per core", c, 60/c)
}

// clusterResult is one run's outcome.
type clusterResult struct {
	rate      float64 // jobs per minute
	cpuPerJob float64 // CPU seconds of the server processes and their children per job
	busy      float64 // fraction of the machine's CPU in use during the run
}

// clusterBenchJobs is how many jobs one run queues.
const clusterBenchJobs = 60

// clusterRun starts n processes, runs clusterBenchJobs jobs through them
// and stops them.
func clusterRun(b *testing.B, env *clusterEnv, lb *balancer, clips [][]byte, n int) clusterResult {
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
	cpu0 := clusterCPU(nodes)
	busy0, total0 := machineCPU()
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
	cpu := clusterCPU(nodes) - cpu0
	busy1, total1 := machineCPU()
	for _, nd := range nodes {
		nd.stop()
	}
	r := clusterResult{rate: float64(clusterBenchJobs) / el.Minutes(), cpuPerJob: cpu.Seconds() / clusterBenchJobs}
	if total1 > total0 {
		r.busy = (busy1 - busy0) / (total1 - total0)
	}
	return r
}

// clusterCPU returns the CPU time (user + system) used so far by the
// nodes' processes and their children (the engine workers).
func clusterCPU(nodes []*node) time.Duration {
	pids := map[int]bool{}
	for _, n := range nodes {
		pids[n.cmd.Process.Pid] = true
	}
	var ticks int64
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// Fields after the command name (which may hold spaces): state is
		// field 3, ppid 4, utime 14, stime 15, and the reaped children's
		// cutime 16, cstime 17 (ffmpeg runs, workers that exited).
		f := strings.Fields(string(st[bytes.LastIndexByte(st, ')')+1:]))
		if len(f) < 15 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		if !pids[pid] && !pids[ppid] {
			continue
		}
		for _, k := range f[11:15] {
			v, _ := strconv.ParseInt(k, 10, 64)
			ticks += v
		}
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ is 100 on Linux
}

// machineCPU returns the machine's busy and total CPU ticks so far
// (/proc/stat).
func machineCPU() (busy, total float64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	for i, v := range f[1:] {
		x, _ := strconv.ParseFloat(v, 64)
		if i >= 8 { // guest times are already in user
			break
		}
		total += x
		if i != 3 && i != 4 { // idle, iowait
			busy += x
		}
	}
	return busy, total
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
