package isolate

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/adapters/pocketsphinx"
	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe"
)

// The benchmarks compare pocketsphinx in this process with pocketsphinx in
// a worker, measured alternately in the same run (the order swapped every
// clip), and report ratios: on a shared machine absolute times drift, the
// ratio of interleaved measurements much less.
//
//	go test -run '^$' -bench . -benchtime 3x ./adapters/isolate/

// pair builds both recognizers, one decoder each, warmed.
func pair(b *testing.B) (*pocketsphinx.Recognizer, *Recognizer) {
	in, err := pocketsphinx.New(pocketsphinx.Config{Decoders: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { in.Close() })
	iso := newRec(b, Config{Engine: "pocketsphinx", EngineConfig: pocketsphinx.Config{Decoders: 1}, Processes: 1})
	ctx := context.Background()
	if err := in.Warm(ctx, 1); err != nil {
		b.Fatal(err)
	}
	if err := iso.Warm(ctx, 1); err != nil {
		b.Fatal(err)
	}
	return in, iso
}

func clips(b *testing.B) [][]int16 {
	var out [][]int16
	for _, p := range testaudio.Librivox(b) {
		out = append(out, wav(b, p))
	}
	return out
}

// cpuSelf is this process's CPU time.
func cpuSelf() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuOf is the CPU time of process pid, from /proc/pid/stat (clock ticks
// of 10 ms on Linux).
func cpuOf(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	// utime and stime are fields 14 and 15 of stat, 12 and 13 after "pid (comm)".
	u, _ := strconv.Atoi(f[11])
	s, _ := strconv.Atoi(f[12])
	return time.Duration(u+s) * 10 * time.Millisecond
}

// median of xs (which it sorts).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// BenchmarkTurnaround: Recognize over every librivox clip, in process and
// through a worker, interleaved clip by clip. isolated/inprocess is the
// median over clips of the ratio of wall times (target <= 1.03), robust to
// bursts of load from other processes; total-isolated/inprocess the ratio
// of the sums; cpu-isolated/inprocess counts the CPU of host and worker.
func BenchmarkTurnaround(b *testing.B) {
	in, iso := pair(b)
	audio := clips(b)
	ctx := context.Background()
	pid := iso.p.pids()[0]
	var wallIn, wallIso, cpuIn, cpuIso time.Duration
	var audioSec float64
	var ratios []float64
	run := func(r transcribe.Recognizer, a []int16, wall, cpu *time.Duration) time.Duration {
		c0, w0, s0 := cpuSelf(), cpuOf(pid), time.Now()
		rec, err := r.Recognize(ctx, a, transcribe.RecognizeOptions{})
		d := time.Since(s0)
		*wall += d
		*cpu += cpuSelf() - c0 + cpuOf(pid) - w0
		if err != nil || len(rec.Words) == 0 {
			b.Fatalf("Recognize: %v, %v", rec, err)
		}
		return d
	}
	k := 0
	for b.Loop() {
		for _, a := range audio {
			audioSec += float64(len(a)) / 16000
			var dIn, dIso time.Duration
			if k%2 == 0 {
				dIn = run(in, a, &wallIn, &cpuIn)
				dIso = run(iso, a, &wallIso, &cpuIso)
			} else {
				dIso = run(iso, a, &wallIso, &cpuIso)
				dIn = run(in, a, &wallIn, &cpuIn)
			}
			ratios = append(ratios, dIso.Seconds()/dIn.Seconds())
			k++
		}
	}
	b.ReportMetric(median(ratios), "isolated/inprocess")
	b.ReportMetric(wallIso.Seconds()/wallIn.Seconds(), "total-isolated/inprocess")
	b.ReportMetric(cpuIso.Seconds()/cpuIn.Seconds(), "cpu-isolated/inprocess")
	b.ReportMetric(audioSec/wallIn.Seconds(), "rtf-inprocess")
	b.ReportMetric(audioSec/wallIso.Seconds(), "rtf-isolated")
	b.ReportMetric(rssMB(pid), "worker-rss-MB")
}

// rssMB is the resident memory of process pid in MB.
func rssMB(pid int) float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.Atoi(f[1])
			return float64(kb) / 1024
		}
	}
	return 0
}

// BenchmarkFirstPartial feeds each librivox clip at real time in 100 ms
// chunks, with a Partial after each, until a partial has words: the
// first-partial latency counts from the first chunk's arrival. delta-ms is
// the median over clips of isolated minus in-process (target <= +10 ms);
// step-delta-ms the mean extra time of one Write+Partial; open-delta-ms
// the extra time of NewStream.
func BenchmarkFirstPartial(b *testing.B) {
	in, iso := pair(b)
	audio := clips(b)
	const step = 1600
	var latIn, latIso, stepIn, stepIso, openIn, openIso time.Duration
	var stepsIn, stepsIso, n int
	var deltas []float64
	run := func(r transcribe.StreamRecognizer, a []int16, lat, steps *time.Duration, count *int, open *time.Duration) time.Duration {
		t0 := time.Now()
		st, err := r.NewStream(context.Background(), transcribe.StreamOptions{SampleRate: 16000})
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		*open += time.Since(t0)
		start := time.Now()
		for i := 0; i < len(a); i += step {
			arrive := start.Add(time.Duration(i/step) * 100 * time.Millisecond)
			time.Sleep(time.Until(arrive))
			s0 := time.Now()
			if err := st.Write(a[i:min(i+step, len(a))]); err != nil {
				b.Fatal(err)
			}
			h, err := st.Partial()
			if err != nil {
				b.Fatal(err)
			}
			*steps += time.Since(s0)
			*count++
			if len(h.Words) > 0 {
				d := time.Since(start)
				*lat += d
				return d
			}
		}
		b.Fatalf("no partial over a whole clip")
		return 0
	}
	k := 0
	for b.Loop() {
		for _, a := range audio {
			var dIn, dIso time.Duration
			if k%2 == 0 {
				dIn = run(in, a, &latIn, &stepIn, &stepsIn, &openIn)
				dIso = run(iso, a, &latIso, &stepIso, &stepsIso, &openIso)
			} else {
				dIso = run(iso, a, &latIso, &stepIso, &stepsIso, &openIso)
				dIn = run(in, a, &latIn, &stepIn, &stepsIn, &openIn)
			}
			deltas = append(deltas, float64(dIso-dIn)/1e6)
			k++
			n++
		}
	}
	ms := func(d time.Duration, n int) float64 { return float64(d) / float64(n) / 1e6 }
	b.ReportMetric(ms(latIn, n), "first-partial-ms-inprocess")
	b.ReportMetric(ms(latIso, n), "first-partial-ms-isolated")
	b.ReportMetric(median(deltas), "delta-ms")
	b.ReportMetric(ms(stepIso, stepsIso)-ms(stepIn, stepsIn), "step-delta-ms")
	b.ReportMetric(ms(openIso, n)-ms(openIn, n), "open-delta-ms")
}

// BenchmarkStreamStep measures the protocol alone: one 100 ms Write and a
// Partial on the "quiet" engine (which does no work), in process and
// through a worker. step-us-isolated minus step-us-inprocess is the cost of
// the two round trips every 100 ms of streamed audio pays.
func BenchmarkStreamStep(b *testing.B) {
	iso := newRec(b, Config{Engine: "quiet", Processes: 1})
	ctx := context.Background()
	var in transcribe.StreamRecognizer = quiet{}
	stIn, _ := in.NewStream(ctx, transcribe.StreamOptions{})
	stIso, err := iso.NewStream(ctx, transcribe.StreamOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer stIso.Close()
	chunk := make([]int16, 1600)
	var dIn, dIso time.Duration
	for b.Loop() {
		t0 := time.Now()
		stIn.Write(chunk)
		stIn.Partial()
		t1 := time.Now()
		if err := stIso.Write(chunk); err != nil {
			b.Fatal(err)
		}
		if _, err := stIso.Partial(); err != nil {
			b.Fatal(err)
		}
		dIn += t1.Sub(t0)
		dIso += time.Since(t1)
	}
	b.ReportMetric(float64(dIn.Microseconds())/float64(b.N), "step-us-inprocess")
	b.ReportMetric(float64(dIso.Microseconds())/float64(b.N), "step-us-isolated")
}
