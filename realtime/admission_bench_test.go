package realtime

import (
	"context"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/adapters/isolate"
	"github.com/earshot-dev/earshot/adapters/pocketsphinx"
)

// Benchmarks of admission control and memory. They take wall-clock time
// (a minute), so run them one at a time:
//
//	go test -run '^$' -bench 'Admission|WorkerMemory' -benchtime 1x ./realtime
//
// BenchmarkAdmission runs the scenario of TestAdmissionRealSpeech (isolated
// pocketsphinx, the default LoadAdmission, sessions opened one by one
// until one is refused, the workers' idle timeout 2 s) and reports every
// figure against its baseline from the same run:
//
//   - kept/target: sessions admitted (all keeping real time) over
//     0.9 x cores / (CPU-seconds per audio second of a lone session,
//     this process and its workers); kept/measured-target uses the cost
//     the admission measured instead (the sessions' own CPU in and for
//     their recognizer calls: the worker processes', without this
//     process's WebSocket and JSON work, which it counts as other work);
//   - cost-full/alone: the sessions' own cost per audio second as the
//     admission measured it at the refusal, with every admitted session
//     streaming, over the lone session's (1 where a session costs the
//     same however many share the cores); kept/full-cost-target is
//     sessions admitted over 0.9 x cores / that cost: what the cores
//     carry at the cost sessions really have once they share them;
//   - refusal/1s: the refused session's time from dial to close frame;
//   - final/300ms and final/lone: the admitted sessions' median final
//     latency while all run, over the 300 ms target and over the lone
//     session's median in the same run;
//   - after-idle-MB and (after-idle)/50MB: resident memory of this process
//     and its workers once the sessions ended and the workers' idle
//     timeout passed, minus the same before the first session.
//
// BenchmarkWorkerMemory starts one isolated worker with a warm decoder
// loading the whole dictionary and one loading the split dictionary (the
// default; adapters/pocketsphinx doc.go, "Memory") and reports their
// resident memory and the ratio.
func BenchmarkAdmission(b *testing.B) {
	for i := 0; i < b.N; i++ {
		r := runAdmissionScenario(b, scenarioConfig{
			MaxSessions: 32, Step: 2500 * time.Millisecond, Alone: 8 * time.Second,
			Hold: 10 * time.Second, IdleTimeout: 2 * time.Second,
		})
		r.log(b)
		target := 0.9 * float64(r.Cores) / r.CPUCost
		med := quantile(r.AllFinals, 0.5)
		b.ReportMetric(r.Load, "load-avg")
		b.ReportMetric(r.CPUCost, "cpu-s/audio-s")
		b.ReportMetric(float64(r.Admitted), "sessions-kept")
		b.ReportMetric(float64(r.Admitted)/target, "kept/target")
		b.ReportMetric(float64(r.Admitted)/(0.9*float64(r.Cores)/r.AloneCost), "kept/measured-target")
		if r.Stats.Measured && r.Stats.Cost > 0 && r.AloneCost > 0 {
			b.ReportMetric(r.Stats.Cost/r.AloneCost, "cost-full/alone")
			b.ReportMetric(float64(r.Admitted)/(0.9*float64(r.Cores)/r.Stats.Cost), "kept/full-cost-target")
		}
		b.ReportMetric(r.RefusedIn.Seconds(), "refusal/1s")
		b.ReportMetric(float64(med.Milliseconds()), "final-ms-p50")
		b.ReportMetric(med.Seconds()/0.3, "final/300ms")
		b.ReportMetric(med.Seconds()/r.AloneFinal.Seconds(), "final/lone")
		b.ReportMetric(float64(r.AfterRSS-r.IdleRSS)/(1<<20), "after-idle-MB")
		b.ReportMetric(float64(r.AfterRSS-r.IdleRSS)/(50<<20), "(after-idle)/50MB")
		b.ReportMetric(0, "ns/op")
	}
}

func BenchmarkWorkerMemory(b *testing.B) {
	rss := func(full bool) int64 {
		r, err := isolate.New(isolate.Config{
			Engine: "pocketsphinx", EngineConfig: pocketsphinx.Config{Decoders: 1, FullDictionary: full},
			Processes: 1, IdleTimeout: -1,
		})
		if err != nil {
			b.Fatal(err)
		}
		defer r.Close()
		if err := r.Warm(context.Background(), 1); err != nil {
			b.Fatal(err)
		}
		before := statusRSS("/proc/self/status")
		return readTree().RSS - before
	}
	for i := 0; i < b.N; i++ {
		full, split := rss(true), rss(false)
		b.Logf("isolated worker with a warm decoder: %d MB with the whole dictionary, %d MB with the split one (ratio %.2f)",
			full>>20, split>>20, float64(split)/float64(full))
		b.ReportMetric(float64(full)/(1<<20), "full-dict-MB")
		b.ReportMetric(float64(split)/(1<<20), "split-dict-MB")
		b.ReportMetric(float64(split)/float64(full), "split/full")
		b.ReportMetric(0, "ns/op")
	}
}
