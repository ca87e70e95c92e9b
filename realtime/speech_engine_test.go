package realtime

import (
	"context"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/realtime/realtimetest/streamtest"
)

// runSpeech feeds pcm (at rate, already encoded) to a new session in 100
// ms chunks as fast as the engine takes them and returns the finals and
// the partials.
func runSpeech(t *testing.T, pcm []byte, rate int, enc Encoding) ([]FinalTranscript, []PartialTranscript) {
	t.Helper()
	rec, _ := speechRecognizer(t)
	s, err := NewSession(context.Background(), Config{Recognizer: rec}, SessionOptions{SampleRate: rate, Encoding: enc})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Abort(StateTerminated)
	var finals []FinalTranscript
	var partials []PartialTranscript
	size := 100 * rate / 1000 * enc.BytesPerSample()
	for off := 0; off < len(pcm); off += size {
		msgs, err := s.Audio(pcm[off:min(off+size, len(pcm))])
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			switch m := m.(type) {
			case FinalTranscript:
				finals = append(finals, m)
			case PartialTranscript:
				partials = append(partials, m)
			}
		}
	}
	return finals, partials
}

// TestSessionRealSpeech44k runs the engine (no WebSocket, no pacing) with
// the real recognizer on 44.1 kHz audio, which the session resamples: two
// sentences separated by a pause become two accurate finals.
func TestSessionRealSpeech44k(t *testing.T) {
	first, second := "the quick brown fox jumps over the lazy dog", "we need more money"
	wa := testaudio.Sox(t, "wav", testaudio.Speech(t, "slt", first), "-r", "44100")
	wb := testaudio.Sox(t, "wav", testaudio.Speech(t, "slt", second), "-r", "44100")
	pcm := streamtest.Cat(streamtest.Silence(200, 44100), streamtest.WAVPCM(t, wa), streamtest.Silence(1000, 44100), streamtest.WAVPCM(t, wb), streamtest.Silence(800, 44100))
	finals, partials := runSpeech(t, pcm, 44100, EncodingPCMS16LE)
	if len(finals) != 2 {
		t.Fatalf("%d finals: %+v", len(finals), finals)
	}
	for i, want := range []string{first, second} {
		if ov := streamtest.WordOverlap(want, finals[i].Text); ov < 0.7 {
			t.Errorf("final %d %q: %.0f%% of %q", i, finals[i].Text, ov*100, want)
		}
		if !strings.HasSuffix(finals[i].Text, ".") {
			t.Errorf("final %q not punctuated", finals[i].Text)
		}
	}
	// Times are in the session's audio clock: the second sentence starts
	// after the first plus the pause.
	if finals[1].AudioStart < finals[0].AudioEnd+900 {
		t.Errorf("second final starts at %d, first ends at %d", finals[1].AudioStart, finals[0].AudioEnd)
	}
	if len(partials) < 4 {
		t.Errorf("%d partials", len(partials))
	}
	t.Logf("%q | %q, %d partials", finals[0].Text, finals[1].Text, len(partials))
}

// TestSessionRealSpeechMulaw8k streams 8 kHz mu-law telephone audio. The
// wideband en-us model recognizes narrowband speech poorly (sox-resampled
// 8 kHz audio fares the same), so this checks the plumbing and timing,
// not the words.
func TestSessionRealSpeechMulaw8k(t *testing.T) {
	w := testaudio.Sox(t, "wav", testaudio.Speech(t, "slt", "we need more money"), "-r", "8000")
	speech := streamtest.WAVPCM(t, w)
	pcm := streamtest.Cat(streamtest.Silence(200, 8000), speech, streamtest.Silence(800, 8000))
	finals, _ := runSpeech(t, mulawEncode(int16s(pcm)), 8000, EncodingPCMMulaw)
	if len(finals) != 1 || len(finals[0].Words) < 2 {
		t.Fatalf("finals %+v", finals)
	}
	f := finals[0]
	speechEnd := int64(200 + len(speech)/16)
	if f.AudioStart < 150 || f.AudioEnd > speechEnd+100 || f.AudioEnd < speechEnd-600 || !strings.HasSuffix(f.Text, ".") {
		t.Errorf("final %+v; speech is 200-%d ms", f, speechEnd)
	}
	t.Logf("%q", f.Text)
}

func int16s(b []byte) []int16 {
	out := make([]int16, len(b)/2)
	for i := range out {
		out[i] = int16(uint16(b[2*i]) | uint16(b[2*i+1])<<8)
	}
	return out
}

// TestSessionRealRecordings streams two librivox read-speech recordings
// (real microphones, real background noise) with a noisy pause between
// them:
// the VAD must split them into two finals close to the reference text.
func TestSessionRealRecordings(t *testing.T) {
	testaudio.Librivox(t)
	clip := func(id string) []byte {
		return streamtest.WAVPCM(t, testaudio.LibrivoxDir+"/sense_and_sensibility_01_austen_64kb-"+id+".wav")
	}
	// The pauses are the room noise before the first word (RMS about
	// 180), looped, not digital silence.
	a, b := clip("0880"), clip("0930")
	noise := a[:2*16000*150/1000]
	var pause []byte
	for len(pause) < 2*16000 {
		pause = append(pause, noise...)
	}
	pcm := streamtest.Cat(a, pause, b, pause)
	finals, partials := runSpeech(t, pcm, 16000, EncodingPCMS16LE)
	if len(finals) != 2 {
		t.Fatalf("%d finals: %+v", len(finals), finals)
	}
	for i, want := range []string{"he was not an ill disposed young man", "he might even have been made amiable himself"} {
		if ov := streamtest.WordOverlap(want, finals[i].Text); ov < 0.6 {
			t.Errorf("final %d %q: %.0f%% of %q", i, finals[i].Text, ov*100, want)
		}
	}
	// Partials carry the recognizer's confidence, on the 0..1 scale of
	// the finals' (issue 25.4: they were 0), for the utterance and every
	// word.
	var sum, n float64
	for _, p := range partials {
		if !(p.Confidence > 0 && p.Confidence <= 1) {
			t.Errorf("partial %q has confidence %v", p.Text, p.Confidence)
		}
		for _, w := range p.Words {
			if !(w.Confidence > 0 && w.Confidence <= 1) {
				t.Errorf("partial %q: word %q has confidence %v", p.Text, w.Text, w.Confidence)
			}
			sum += w.Confidence
			n++
		}
	}
	var fsum, fn float64
	for _, f := range finals {
		for _, w := range f.Words {
			fsum += w.Confidence
			fn++
		}
	}
	t.Logf("%q | %q, %d partials; mean word confidence %.2f in partials, %.2f in finals", finals[0].Text, finals[1].Text, len(partials), sum/n, fsum/fn)
}
