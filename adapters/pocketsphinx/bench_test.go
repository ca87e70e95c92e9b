package pocketsphinx

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe"
)

// cpuTime is the CPU time used by the process so far. On a shared machine
// it measures the decoder's cost better than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// report adds rtf (audio seconds per wall second, higher is faster) and
// cpu-rtf (audio seconds per CPU second).
func report(b *testing.B, samples int, wall time.Time, cpu time.Duration) {
	sec := float64(samples) / SampleRate * float64(b.N)
	b.ReportMetric(sec/time.Since(wall).Seconds(), "rtf")
	if c := cpuTime() - cpu; c > 0 {
		b.ReportMetric(sec/c.Seconds(), "cpu-rtf")
	}
}

// BenchmarkRecognize decodes one librivox clip.
func BenchmarkRecognize(b *testing.B) {
	r := rec(b)
	audio := wav(b, testaudio.Librivox(b)[0])
	ctx := context.Background()
	if _, err := r.Recognize(ctx, audio, transcribe.RecognizeOptions{}); err != nil { // warm a decoder
		b.Fatal(err)
	}
	b.ResetTimer()
	start, cpu := time.Now(), cpuTime()
	for b.Loop() {
		if _, err := r.Recognize(ctx, audio, transcribe.RecognizeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	report(b, len(audio), start, cpu)
	b.ReportMetric(float64(len(audio))/SampleRate, "audio-s/op")
}

// BenchmarkRecognizeBoost is BenchmarkRecognize with two in-vocabulary
// boosted terms (a temporary interpolated search per request).
func BenchmarkRecognizeBoost(b *testing.B) {
	r := rec(b)
	audio := wav(b, testaudio.Librivox(b)[0])
	ctx := context.Background()
	opts := transcribe.RecognizeOptions{WordBoost: []string{"leisure", "power"}, BoostParam: "default"}
	if _, err := r.Recognize(ctx, audio, opts); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start, cpu := time.Now(), cpuTime()
	for b.Loop() {
		if _, err := r.Recognize(ctx, audio, opts); err != nil {
			b.Fatal(err)
		}
	}
	report(b, len(audio), start, cpu)
}

// BenchmarkRecognizeBoostNewWords is BenchmarkRecognizeBoost with terms
// missing from the dictionary ("k8s", "mp4", "11"): the words are added
// with ps_add_word and the extended decoder is replaced by a new one after
// every request, so its creation is part of the cost (cpu-s/op).
func BenchmarkRecognizeBoostNewWords(b *testing.B) {
	r := rec(b)
	audio := wav(b, testaudio.Librivox(b)[0])
	ctx := context.Background()
	opts := transcribe.RecognizeOptions{WordBoost: []string{"windows 11", "mp4", "k8s"}, BoostParam: "default"}
	if _, err := r.Recognize(ctx, audio, opts); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start, cpu := time.Now(), cpuTime()
	for b.Loop() {
		if _, err := r.Recognize(ctx, audio, opts); err != nil {
			b.Fatal(err)
		}
	}
	report(b, len(audio), start, cpu)
	b.ReportMetric((cpuTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkDecoderInit creates and frees one decoder (acoustic model,
// dictionary, language model).
func BenchmarkDecoderInit(b *testing.B) {
	r := rec(b)
	cpu := cpuTime()
	defer func() { b.ReportMetric((cpuTime()-cpu).Seconds()/float64(b.N), "cpu-s/op") }()
	for b.Loop() {
		d, err := newDecoder(r.l, r.files, nil)
		if err != nil {
			b.Fatal(err)
		}
		d.free()
	}
}

// BenchmarkStream feeds a librivox clip in 100 ms writes with a Partial
// after each, then ends the utterance; rtf as in BenchmarkRecognize.
func BenchmarkStream(b *testing.B) {
	r := rec(b)
	audio := wav(b, testaudio.Librivox(b)[0])
	ctx := context.Background()
	const step = SampleRate / 10
	if _, err := r.Recognize(ctx, audio[:SampleRate], transcribe.RecognizeOptions{}); err != nil { // warm a decoder
		b.Fatal(err)
	}
	b.ResetTimer()
	start, cpu := time.Now(), cpuTime()
	for b.Loop() {
		st, err := r.NewStream(ctx, transcribe.StreamOptions{SampleRate: SampleRate})
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < len(audio); i += step {
			if err := st.Write(audio[i:min(i+step, len(audio))]); err != nil {
				b.Fatal(err)
			}
			if _, err := st.Partial(); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := st.EndUtterance(); err != nil {
			b.Fatal(err)
		}
		st.Close()
	}
	report(b, len(audio), start, cpu)
}
