package pocketsphinx

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/testaudio"
)

// librivoxRefs returns the reference transcription of each librivox clip
// by clip id.
func librivoxRefs(t testing.TB) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testaudio.LibrivoxDir, "transcription"))
	if err != nil {
		t.Fatal(err)
	}
	refs := map[string][]string{}
	for _, line := range strings.Split(string(b), "\n") {
		// "words words (clip-id)"
		i := strings.LastIndex(line, "(")
		if i < 0 {
			continue
		}
		id := strings.TrimSuffix(strings.TrimSpace(line[i+1:]), ")")
		refs[id] = strings.Fields(strings.ToLower(line[:i]))
	}
	return refs
}

// threadCPU is the calling OS thread's CPU time (Linux RUSAGE_THREAD).
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// streamRun is what streaming the librivox clips through one decoder
// gave: word errors against the references, the time spent in the calls
// that ended an utterance, and the thread's CPU for the whole run.
type streamRun struct {
	errs, words, utts int
	end, cpu          time.Duration
}

// streamLibrivox streams each clip in 100 ms writes, as a realtime session
// does, and ends the stream.
func streamLibrivox(t testing.TB, d *decoder, refs map[string][]string) streamRun {
	t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var r streamRun
	cpu := threadCPU()
	for _, clip := range testaudio.Librivox(t) {
		audio := wav(t, clip)
		s, err := newSession(d)
		if err != nil {
			t.Fatal(err)
		}
		const step = SampleRate / 10
		for i := 0; i < len(audio); i += step {
			open, at := s.open, time.Now()
			if err := s.feed(audio[i:min(i+step, len(audio))]); err != nil {
				t.Fatal(err)
			}
			if open && !s.open { // the voice detector ended an utterance
				r.end += time.Since(at)
				r.utts++
			}
		}
		at := time.Now()
		ws, err := s.finish()
		if err != nil {
			t.Fatal(err)
		}
		r.end += time.Since(at)
		r.utts++
		var got []string
		for _, w := range ws {
			got = append(got, strings.ToLower(w.Text))
		}
		ref := refs[strings.TrimSuffix(filepath.Base(clip), ".wav")]
		r.errs += editDistance(ref, got)
		r.words += len(ref)
	}
	r.cpu = threadCPU() - cpu
	return r
}

// singlePassRuns streams the clips through a decoder with both searches
// (the default) and one with the first alone (Config.SinglePass).
func singlePassRuns(t testing.TB) (both, single streamRun) {
	t.Helper()
	r := rec(t)
	r.dictOnce.Do(r.pickDictionary)
	refs := librivoxRefs(t)
	for _, sp := range []bool{false, true} {
		d, err := newDecoder(r.l, r.files, (&Recognizer{cfg: Config{SinglePass: sp}}).decoderArgs())
		if err != nil {
			t.Fatal(err)
		}
		run := streamLibrivox(t, d, refs)
		d.free()
		if sp {
			single = run
		} else {
			both = run
		}
	}
	return both, single
}

// TestSinglePass: without the second search, streamed librivox clips keep
// their words within a few errors of the default (the error rates of both
// are logged; the time each takes is BenchmarkSinglePass's).
func TestSinglePass(t *testing.T) {
	both, single := singlePassRuns(t)
	wer := func(r streamRun) float64 { return 100 * float64(r.errs) / float64(max(r.words, 1)) }
	t.Logf("streamed librivox clips, word error rate: both searches %.1f%% (%d/%d), first search alone %.1f%% (%d/%d)",
		wer(both), both.errs, both.words, wer(single), single.errs, single.words)
	if single.words == 0 || wer(single) > wer(both)+10 {
		t.Errorf("single pass word error rate %.1f%%, both searches %.1f%%: more than 10 points apart", wer(single), wer(both))
	}
}

// BenchmarkSinglePass: the time the calls that end an utterance take and
// the CPU of the whole stream, first search alone over both searches, same
// run (end-ratio and cpu-ratio; lower is faster).
//
//	go test -run '^$' -bench SinglePass -benchtime 3x ./adapters/pocketsphinx
func BenchmarkSinglePass(b *testing.B) {
	var both, single streamRun
	for b.Loop() {
		x, y := singlePassRuns(b)
		both.end, both.cpu = both.end+x.end, both.cpu+x.cpu
		single.end, single.cpu = single.end+y.end, single.cpu+y.cpu
		both.utts, single.utts = both.utts+x.utts, single.utts+y.utts
	}
	b.ReportMetric(float64(both.end.Milliseconds())/float64(max(both.utts, 1)), "both-end-ms")
	b.ReportMetric(float64(single.end.Milliseconds())/float64(max(single.utts, 1)), "single-end-ms")
	b.ReportMetric(single.end.Seconds()/both.end.Seconds(), "end-ratio")
	b.ReportMetric(single.cpu.Seconds()/both.cpu.Seconds(), "cpu-ratio")
	b.ReportMetric(0, "ns/op")
}
