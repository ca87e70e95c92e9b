//go:build unix

package media

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/testaudio"
)

// BenchmarkDecode measures decoding throughput to 16 kHz mono, in multiples
// of real time (wall clock, and per CPU second), for a 32 s speech clip in
// each format.
func BenchmarkDecode(b *testing.B) {
	testaudio.Need(b, "ffmpeg", "sox")
	one := testaudio.Speech(b, "slt", sentence)
	clip := testaudio.Sox(b, "wav", one, one, one, one, one, one) // 6 x 5.34 s
	stereo := testaudio.Convert(b, clip, "wav", "-af", "pan=stereo|c0=c0|c1=0.5*c0", "-ar", "44100")
	cases := []struct {
		name string
		path string
		d    *Decoder
	}{
		{"wav-16k-mono", clip, pureGo},
		{"wav-44k-stereo", stereo, pureGo},
		{"mp3-16k", testaudio.Convert(b, clip, "mp3", "-c:a", "libmp3lame", "-b:a", "64k"), pureGo},
		{"mp3-44k-stereo", testaudio.Convert(b, stereo, "mp3", "-c:a", "libmp3lame", "-b:a", "128k"), pureGo},
		{"ffmpeg-mp3-44k-stereo", testaudio.Convert(b, stereo, "mp3", "-c:a", "libmp3lame", "-b:a", "128k"), &Decoder{}},
		{"flac-16k", testaudio.Convert(b, clip, "flac"), pureGo},
		{"flac-44k-stereo", testaudio.Convert(b, stereo, "flac"), pureGo},
		{"vorbis-16k", testaudio.Convert(b, clip, "ogg", "-c:a", "libvorbis"), pureGo},
		{"ffmpeg-m4a-44k-stereo", testaudio.Convert(b, stereo, "m4a", "-c:a", "aac"), &Decoder{}},
		{"ffmpeg-webm-opus", testaudio.Convert(b, clip, "webm", "-c:a", "libopus"), &Decoder{}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var secs float64
			cpu0 := cpuTime()
			for b.Loop() {
				pcm, err := c.d.Decode(context.Background(), c.path, 16000, false)
				if err != nil {
					b.Fatal(err)
				}
				secs = pcm.Duration().Seconds()
			}
			b.ReportMetric(secs*float64(b.N)/b.Elapsed().Seconds(), "x_realtime")
			// CPU time (this process and ffmpeg) does not depend on what
			// else the machine is doing.
			b.ReportMetric(secs*float64(b.N)/(cpuTime()-cpu0).Seconds(), "x_realtime_cpu")
		})
	}
}

// cpuTime returns the user+system CPU time of this process and its waited-for
// children.
func cpuTime() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return total
}
