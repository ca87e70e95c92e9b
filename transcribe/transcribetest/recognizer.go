package transcribetest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/earshot-dev/earshot/transcribe"
)

// RecognizerSpeech returns speech of text as mono samples at the
// recognizer's Features().SampleRate (for example a flite voice read with
// ReadWAV16).
type RecognizerSpeech func(t testing.TB, text string) []int16

// recognizerSentence is read in the suite's speech checks; flite voices say
// it clearly enough for any working English recognizer.
const recognizerSentence = "the quick brown fox jumps over the lazy dog"

// RunRecognizerTests checks r against the transcribe.Recognizer contract,
// driven by r.Features():
//
//   - silence and empty audio give zero words and a nil error;
//   - speech gives most of its words, lowercase, unpunctuated, in time
//     order with 0 <= start <= end <= audio length;
//   - times are relative to the given audio (leading silence shifts them);
//   - confidences lie in 0..1 (and vary, with WordConfidence);
//   - a cancelled context gives an error wrapping context.Canceled;
//   - concurrent calls give the same words as one call;
//   - with WordBoost, boosted requests still work and keep the words;
//   - with Streaming, r is a transcribe.StreamRecognizer whose streams
//     return the words at EndUtterance, continue times across utterances,
//     accept other sample rates and fail after Close.
//
// r is shared by the subtests (it is expensive to build) and is not closed.
func RunRecognizerTests(t *testing.T, r transcribe.Recognizer, speech RecognizerSpeech) {
	f := r.Features()
	if f.SampleRate <= 0 {
		t.Fatalf("Features().SampleRate = %d, want > 0", f.SampleRate)
	}
	if len(f.Languages) == 0 {
		t.Fatalf("Features().Languages is empty")
	}
	rate := f.SampleRate
	ctx := context.Background()
	sentence := speech(t, recognizerSentence)
	pad := make([]int16, 2*rate)
	padded := concat(pad, sentence, pad)

	t.Run("Silence", func(t *testing.T) {
		for name, audio := range map[string][]int16{"zeros": make([]int16, 3*rate), "empty": nil, "short": make([]int16, 10)} {
			rec, err := r.Recognize(ctx, audio, transcribe.RecognizeOptions{})
			if err != nil {
				t.Fatalf("%s: Recognize: %v", name, err)
			}
			if rec == nil {
				t.Fatalf("%s: nil Recognition", name)
			}
			if len(rec.Words) != 0 {
				t.Errorf("%s: got words %v, want none", name, text(rec.Words))
			}
		}
	})

	var single []transcribe.Word
	t.Run("Speech", func(t *testing.T) {
		rec, err := r.Recognize(ctx, sentence, transcribe.RecognizeOptions{LanguageCode: "en"})
		if err != nil {
			t.Fatalf("Recognize: %v", err)
		}
		single = rec.Words
		checkWords(t, rec.Words, len(sentence)*1000/rate, f)
		if got := overlap(recognizerSentence, rec.Words); got < 0.6 {
			t.Errorf("recognized %q, only %.0f%% of %q", text(rec.Words), got*100, recognizerSentence)
		}
	})

	t.Run("TimesRelativeToAudio", func(t *testing.T) {
		if !f.WordTimestamps {
			t.Skip("no word timestamps")
		}
		rec, err := r.Recognize(ctx, padded, transcribe.RecognizeOptions{})
		if err != nil {
			t.Fatalf("Recognize: %v", err)
		}
		checkWords(t, rec.Words, len(padded)*1000/rate, f)
		if len(rec.Words) == 0 {
			t.Fatal("no words")
		}
		if first := rec.Words[0].Start; first < 1500 {
			t.Errorf("first word starts at %d ms, but the audio has 2000 ms of silence first", first)
		}
		if last := rec.Words[len(rec.Words)-1].End; last > int64(len(padded)*1000/rate)-1500 {
			t.Errorf("last word ends at %d ms, within the trailing 2000 ms of silence", last)
		}
	})

	t.Run("Cancelled", func(t *testing.T) {
		c, cancel := context.WithCancel(ctx)
		cancel()
		_, err := r.Recognize(c, sentence, transcribe.RecognizeOptions{})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Recognize with cancelled context: err = %v, want context.Canceled", err)
		}
	})

	t.Run("Concurrent", func(t *testing.T) {
		const n = 3
		var wg sync.WaitGroup
		got := make([]string, n)
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rec, err := r.Recognize(ctx, sentence, transcribe.RecognizeOptions{})
				if err != nil {
					errs[i] = err
					return
				}
				got[i] = text(rec.Words)
			}()
		}
		wg.Wait()
		for i := range n {
			if errs[i] != nil {
				t.Fatalf("call %d: %v", i, errs[i])
			}
			if single != nil && got[i] != text(single) {
				t.Errorf("concurrent call %d gave %q, a single call gave %q", i, got[i], text(single))
			}
		}
	})

	t.Run("WordBoost", func(t *testing.T) {
		if !f.WordBoost {
			t.Skip("no word boost")
		}
		for _, p := range []string{"low", "default", "high"} {
			rec, err := r.Recognize(ctx, sentence, transcribe.RecognizeOptions{WordBoost: []string{"lazy dog", "fox"}, BoostParam: p})
			if err != nil {
				t.Fatalf("boost_param %s: %v", p, err)
			}
			checkWords(t, rec.Words, len(sentence)*1000/rate, f)
			if got := overlap(recognizerSentence, rec.Words); got < 0.6 {
				t.Errorf("boost_param %s: recognized %q", p, text(rec.Words))
			}
		}
		// A boosted request leaves no trace on later plain ones.
		rec, err := r.Recognize(ctx, sentence, transcribe.RecognizeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if single != nil && text(rec.Words) != text(single) {
			t.Errorf("after boosted calls a plain call gives %q, before %q", text(rec.Words), text(single))
		}
	})

	t.Run("Stream", func(t *testing.T) {
		if !f.Streaming {
			if _, ok := r.(transcribe.StreamRecognizer); ok {
				t.Errorf("implements StreamRecognizer but Features().Streaming is false")
			}
			t.Skip("no streaming")
		}
		sr, ok := r.(transcribe.StreamRecognizer)
		if !ok {
			t.Fatal("Features().Streaming but not a transcribe.StreamRecognizer")
		}
		testStream(t, sr, rate, sentence, padded, f)
	})
}

func testStream(t *testing.T, sr transcribe.StreamRecognizer, rate int, sentence, padded []int16, f transcribe.RecognizerFeatures) {
	ctx := context.Background()
	st, err := sr.NewStream(ctx, transcribe.StreamOptions{SampleRate: rate})
	if err != nil {
		t.Fatalf("NewStream: %v", err)
	}
	step := rate / 10
	var partialSeen bool
	for i := 0; i < len(padded); i += step {
		if err := st.Write(padded[i:min(i+step, len(padded))]); err != nil {
			t.Fatalf("Write: %v", err)
		}
		h, err := st.Partial()
		if err != nil {
			t.Fatalf("Partial: %v", err)
		}
		if len(h.Words) > 0 {
			partialSeen = true
			written := int64(min(i+step, len(padded)) * 1000 / rate)
			for k, w := range h.Words {
				if w.Text == "" || w.Text != strings.ToLower(w.Text) {
					t.Errorf("partial word %q: want non-empty lowercase text", w.Text)
				}
				if f.WordTimestamps && (w.Start > w.End || w.End > written+50 || (k > 0 && w.Start < h.Words[k-1].Start)) {
					t.Errorf("partial after %d ms written: word %d %q at %d..%d ms (out of order or beyond the audio)", written, k, w.Text, w.Start, w.End)
				}
			}
		}
	}
	if !partialSeen {
		t.Errorf("Partial never returned words while speech was written")
	}
	h1, err := st.EndUtterance()
	if err != nil {
		t.Fatalf("EndUtterance: %v", err)
	}
	dur := int64(len(padded) * 1000 / rate)
	checkWords(t, h1.Words, int(dur), f)
	if got := overlap(recognizerSentence, h1.Words); got < 0.6 {
		t.Errorf("stream utterance 1: %q", text(h1.Words))
	}
	// Second utterance: times continue from the stream's start.
	if err := st.Write(padded); err != nil {
		t.Fatalf("Write: %v", err)
	}
	h2, err := st.EndUtterance()
	if err != nil {
		t.Fatalf("EndUtterance: %v", err)
	}
	if got := overlap(recognizerSentence, h2.Words); got < 0.6 {
		t.Errorf("stream utterance 2: %q", text(h2.Words))
	}
	if f.WordTimestamps && len(h2.Words) > 0 && h2.Words[0].Start < dur {
		t.Errorf("utterance 2 starts at %d ms, before the end of utterance 1 (%d ms): times must count from the stream's start", h2.Words[0].Start, dur)
	}
	// Nothing written: an empty utterance.
	h3, err := st.EndUtterance()
	if err != nil || len(h3.Words) != 0 {
		t.Errorf("EndUtterance with nothing written = %v, %v; want no words", text(h3.Words), err)
	}
	if err := st.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := st.Write(sentence); err == nil {
		t.Errorf("Write after Close succeeded")
	}
	_ = st.Close()

	t.Run("OtherSampleRate", func(t *testing.T) {
		up := upsample2(sentence)
		st, err := sr.NewStream(ctx, transcribe.StreamOptions{SampleRate: 2 * rate})
		if err != nil {
			t.Fatalf("NewStream at %d Hz: %v", 2*rate, err)
		}
		defer st.Close()
		if err := st.Write(up); err != nil {
			t.Fatal(err)
		}
		h, err := st.EndUtterance()
		if err != nil {
			t.Fatal(err)
		}
		if got := overlap(recognizerSentence, h.Words); got < 0.6 {
			t.Errorf("at %d Hz: %q", 2*rate, text(h.Words))
		}
		if f.WordTimestamps && len(h.Words) > 0 {
			if end := h.Words[len(h.Words)-1].End; end > int64(len(sentence)*1000/rate)+100 {
				t.Errorf("at %d Hz the last word ends at %d ms, after the audio (%d ms)", 2*rate, end, len(sentence)*1000/rate)
			}
		}
	})

	t.Run("Cancelled", func(t *testing.T) {
		c, cancel := context.WithCancel(ctx)
		cancel()
		if st, err := sr.NewStream(c, transcribe.StreamOptions{SampleRate: rate}); err == nil {
			st.Close()
			t.Errorf("NewStream with a cancelled context succeeded")
		}
	})
}

func checkWords(t *testing.T, ws []transcribe.Word, durMS int, f transcribe.RecognizerFeatures) {
	t.Helper()
	var prev int64
	confs := map[float64]bool{}
	for i, w := range ws {
		if w.Text == "" || w.Text != strings.ToLower(w.Text) {
			t.Errorf("word %d %q: want non-empty lowercase text", i, w.Text)
		}
		if strings.IndexFunc(w.Text, func(r rune) bool { return unicode.IsPunct(r) && r != '\'' }) >= 0 {
			t.Errorf("word %d %q has punctuation", i, w.Text)
		}
		if w.Confidence < 0 || w.Confidence > 1 {
			t.Errorf("word %d %q: confidence %v outside 0..1", i, w.Text, w.Confidence)
		}
		confs[w.Confidence] = true
		if !f.WordTimestamps {
			continue
		}
		if w.Start < 0 || w.Start > w.End {
			t.Errorf("word %d %q: start %d end %d", i, w.Text, w.Start, w.End)
		}
		if w.Start < prev {
			t.Errorf("word %d %q starts at %d, before the previous word (%d)", i, w.Text, w.Start, prev)
		}
		if w.End > int64(durMS)+50 {
			t.Errorf("word %d %q ends at %d ms, after the audio (%d ms)", i, w.Text, w.End, durMS)
		}
		prev = w.Start
	}
	if f.WordConfidence && len(ws) >= 5 && len(confs) == 1 {
		t.Errorf("all %d words have confidence %v; WordConfidence promises real ones", len(ws), ws[0].Confidence)
	}
}

// overlap is the fraction of want's words found in order in got.
func overlap(want string, got []transcribe.Word) float64 {
	ws := strings.Fields(want)
	j, n := 0, 0
	for _, w := range ws {
		for k := j; k < len(got); k++ {
			if got[k].Text == w {
				n++
				j = k + 1
				break
			}
		}
	}
	return float64(n) / float64(len(ws))
}

func text(ws []transcribe.Word) string {
	s := make([]string, len(ws))
	for i, w := range ws {
		s[i] = w.Text
	}
	return strings.Join(s, " ")
}

func concat(parts ...[]int16) []int16 {
	var out []int16
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// upsample2 doubles the sample rate by linear interpolation.
func upsample2(in []int16) []int16 {
	out := make([]int16, 0, 2*len(in))
	for i, s := range in {
		next := s
		if i+1 < len(in) {
			next = in[i+1]
		}
		out = append(out, s, int16((int(s)+int(next))/2))
	}
	return out
}

// ReadWAV16 reads a 16-bit PCM WAV file, averaging channels to mono, and
// returns the samples and the sample rate.
func ReadWAV16(path string) ([]int16, int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return nil, 0, fmt.Errorf("%s: not a RIFF/WAVE file", path)
	}
	var rate, channels, bits int
	for i := 12; i+8 <= len(b); {
		id, n := string(b[i:i+4]), int(binary.LittleEndian.Uint32(b[i+4:]))
		body := b[i+8:]
		if n > len(body) {
			n = len(body)
		}
		body = body[:n]
		switch id {
		case "fmt ":
			if n < 16 {
				return nil, 0, fmt.Errorf("%s: short fmt chunk", path)
			}
			if f := binary.LittleEndian.Uint16(body); f != 1 && f != 0xFFFE {
				return nil, 0, fmt.Errorf("%s: format %d is not PCM", path, f)
			}
			channels = int(binary.LittleEndian.Uint16(body[2:]))
			rate = int(binary.LittleEndian.Uint32(body[4:]))
			bits = int(binary.LittleEndian.Uint16(body[14:]))
		case "data":
			if bits != 16 || channels < 1 {
				return nil, 0, fmt.Errorf("%s: want 16-bit PCM, got %d bits, %d channels", path, bits, channels)
			}
			frames := len(body) / (2 * channels)
			out := make([]int16, frames)
			for k := range out {
				s := 0
				for c := range channels {
					s += int(int16(binary.LittleEndian.Uint16(body[2*(k*channels+c):])))
				}
				out[k] = int16(s / channels)
			}
			return out, rate, nil
		}
		i += 8 + n + n%2
	}
	return nil, 0, fmt.Errorf("%s: no data chunk", path)
}
