package pocketsphinx

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

var (
	sharedOnce sync.Once
	shared     *Recognizer
	sharedErr  error
)

// rec returns the Recognizer shared by the package's tests (decoders are
// expensive to create).
func rec(t testing.TB) *Recognizer {
	t.Helper()
	sharedOnce.Do(func() { shared, sharedErr = New(Config{Decoders: 2}) })
	if sharedErr != nil {
		t.Fatalf("New: %v", sharedErr)
	}
	return shared
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared != nil {
		shared.Close()
	}
	os.Exit(code)
}

func wav(t testing.TB, path string) []int16 {
	t.Helper()
	s, rate, err := transcribetest.ReadWAV16(path)
	if err != nil {
		t.Fatal(err)
	}
	if rate != SampleRate {
		t.Fatalf("%s: %d Hz, want %d", path, rate, SampleRate)
	}
	return s
}

func speech(voice string) transcribetest.RecognizerSpeech {
	return func(t testing.TB, text string) []int16 { return wav(t, testaudio.Speech(t, voice, text)) }
}

func TestConformance(t *testing.T) {
	transcribetest.RunRecognizerTests(t, rec(t), speech("slt"))
}

func words(ws []transcribe.Word) string {
	s := make([]string, len(ws))
	for i, w := range ws {
		s[i] = w.Text
	}
	return strings.Join(s, " ")
}

// editDistance counts word substitutions, insertions and deletions.
func editDistance(a, b []string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev = cur
	}
	return prev[len(b)]
}

// TestLibrivoxMatchesCLI compares Recognize with pocketsphinx_continuous on
// Debian's librivox clips (within two word errors per clip) and logs the
// word error rate against the reference transcription.
func TestLibrivoxMatchesCLI(t *testing.T) {
	testaudio.Need(t, "pocketsphinx_continuous")
	r := rec(t)
	clips := testaudio.Librivox(t)
	refs := librivoxRefs(t)
	// The command line runs (each loads its own decoder) go on two at a
	// time beside our decoding.
	m := DefaultModelDir
	type cliOut struct {
		out []byte
		err error
	}
	outs := make([]chan cliOut, len(clips))
	sem := make(chan struct{}, 2)
	for i, clip := range clips {
		outs[i] = make(chan cliOut, 1)
		go func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			out, err := exec.Command("pocketsphinx_continuous", "-infile", clip,
				"-hmm", filepath.Join(m, "en-us"), "-lm", filepath.Join(m, "en-us.lm.bin"),
				"-dict", filepath.Join(m, "cmudict-en-us.dict"), "-logfn", "/dev/null").Output()
			outs[i] <- cliOut{out, err}
		}()
	}
	var errsRef, nRef int
	for i, clip := range clips {
		res, err := r.Recognize(context.Background(), wav(t, clip), transcribe.RecognizeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		o := <-outs[i]
		if o.err != nil {
			t.Fatalf("pocketsphinx_continuous %s: %v", clip, o.err)
		}
		out := o.out
		cli := strings.Fields(strings.ToLower(string(out)))
		got := strings.Fields(words(res.Words))
		id := strings.TrimSuffix(filepath.Base(clip), ".wav")
		if d := editDistance(cli, got); d > 2 {
			t.Errorf("%s: %d word errors against the CLI\n cli: %s\n got: %s", id, d, strings.Join(cli, " "), strings.Join(got, " "))
		}
		if rw, ok := refs[id]; ok {
			e := editDistance(rw, got)
			errsRef += e
			nRef += len(rw)
			t.Logf("%s: WER %.1f%% (%d/%d) against the reference", id, 100*float64(e)/float64(len(rw)), e, len(rw))
		}
	}
	if nRef > 0 {
		t.Logf("overall WER against the reference transcriptions: %.1f%% (%d/%d words)", 100*float64(errsRef)/float64(nRef), errsRef, nRef)
	}
}

func TestUnavailable(t *testing.T) {
	_, err := New(Config{ModelDir: t.TempDir()})
	if !errors.Is(err, transcribe.ErrUnavailable) {
		t.Fatalf("missing model: err = %v, want ErrUnavailable", err)
	}
	if !strings.Contains(err.Error(), "pocketsphinx-en-us") {
		t.Errorf("error %q does not name the Debian package", err)
	}
	_, err = New(Config{LibraryPath: t.TempDir()})
	if !errors.Is(err, transcribe.ErrUnavailable) || !strings.Contains(err.Error(), "libpocketsphinx3") {
		t.Fatalf("missing library: err = %v, want ErrUnavailable naming libpocketsphinx3", err)
	}
	if _, err := New(Config{Decoders: -1}); err == nil {
		t.Errorf("Decoders -1 accepted")
	}
}

func TestLanguage(t *testing.T) {
	r := rec(t)
	if _, err := r.Recognize(context.Background(), make([]int16, 1600), transcribe.RecognizeOptions{LanguageCode: "fr"}); err == nil {
		t.Errorf("language fr accepted")
	}
	if _, err := r.Recognize(context.Background(), make([]int16, 1600), transcribe.RecognizeOptions{LanguageCode: "en_us"}); err != nil {
		t.Errorf("language en_us: %v", err)
	}
}

// TestLongAudio decodes half a minute of speech and pauses: it is split
// into utterances and the word times follow the audio.
func TestLongAudio(t *testing.T) {
	r := rec(t)
	sent := wav(t, testaudio.Speech(t, "rms", "please call stella"))
	gap := make([]int16, 4*SampleRate)
	var audio []int16
	var starts []int64
	for len(audio) < 30*SampleRate {
		audio = append(audio, gap...)
		starts = append(starts, int64(len(audio)*1000/SampleRate))
		audio = append(audio, sent...)
	}
	res, err := r.Recognize(context.Background(), audio, transcribe.RecognizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Every repetition begins with "please" near its start.
	var pl []int64
	for _, w := range res.Words {
		if w.Text == "please" {
			pl = append(pl, w.Start)
		}
	}
	if len(pl) < len(starts)-1 {
		t.Fatalf("found %d of %d repetitions: %s", len(pl), len(starts), words(res.Words))
	}
	for _, s := range pl {
		best := int64(1 << 62)
		for _, want := range starts {
			best = min(best, max(s-want, want-s))
		}
		if best > 400 {
			t.Errorf("\"please\" at %d ms is %d ms from any sentence start %v", s, best, starts)
		}
	}
}

func TestCancelMidway(t *testing.T) {
	r := rec(t)
	audio := wav(t, testaudio.Speech(t, "slt", "the quick brown fox jumps over the lazy dog"))
	for len(audio) < 30*SampleRate {
		audio = append(audio, audio...)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Recognize(ctx, audio, transcribe.RecognizeOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	// The decoder is still usable.
	res, err := r.Recognize(context.Background(), audio[:3*SampleRate], transcribe.RecognizeOptions{})
	if err != nil || len(res.Words) == 0 {
		t.Fatalf("after cancel: %v %v", res, err)
	}
}

func TestCleanWord(t *testing.T) {
	for in, want := range map[string]string{"<s>": "", "</s>": "", "<sil>": "", "[NOISE]": "", "+NSN+": "", "read(2)": "read", "Hello": "hello", "don't": "don't"} {
		if got := cleanWord(in); got != want {
			t.Errorf("cleanWord(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestForcedSplit: speech longer than the utterance limit is split and the
// times continue across the split.
func TestForcedSplit(t *testing.T) {
	r := rec(t)
	audio := wav(t, testaudio.Speech(t, "slt", "the quick brown fox jumps over the lazy dog"))
	ctx := context.Background()
	d, err := r.acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.release(d)
	s, err := newSession(d)
	if err != nil {
		t.Fatal(err)
	}
	s.maxUttSamples = SampleRate // 1 s
	if err := s.feed(audio); err != nil {
		t.Fatal(err)
	}
	ws, err := s.finish()
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) < 5 {
		t.Fatalf("got %q", words(ws))
	}
	for i := 1; i < len(ws); i++ {
		if ws[i].Start < ws[i-1].Start {
			t.Errorf("times out of order across forced splits: %+v", ws)
		}
	}
	if end := ws[len(ws)-1].End; end < int64(len(audio)*1000/SampleRate)-1000 {
		t.Errorf("last word ends at %d ms of %d ms: times restart at splits? %q", end, len(audio)*1000/SampleRate, words(ws))
	}
	t.Logf("split every second: %q", words(ws))
}

func TestWarmAndClose(t *testing.T) {
	r, err := New(Config{Decoders: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Warm(context.Background(), 5); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	live, idle := r.live, len(r.idle)
	r.mu.Unlock()
	if live != 1 || idle != 1 {
		t.Errorf("after Warm: %d live, %d idle decoders; want 1 and 1 (Decoders caps it)", live, idle)
	}
	st, err := r.NewStream(context.Background(), transcribe.StreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The only decoder is taken: a second stream waits until ctx ends.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := r.NewStream(ctx, transcribe.StreamOptions{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("second stream with the pool exhausted: %v", err)
	}
	r.Close()
	if _, err := r.Recognize(context.Background(), nil, transcribe.RecognizeOptions{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Recognize after Close: %v", err)
	}
	st.Close() // frees the decoder of a closed recognizer
	r.mu.Lock()
	live = r.live
	r.mu.Unlock()
	if live != 0 {
		t.Errorf("%d decoders alive after Close and the stream's Close", live)
	}
	if _, err := r.NewStream(context.Background(), transcribe.StreamOptions{SampleRate: 100}); err == nil {
		t.Errorf("sample rate 100 accepted")
	}
}
