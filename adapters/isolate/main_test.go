package isolate

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ebitengine/purego"

	"github.com/earshot-dev/earshot/adapters/pocketsphinx"
	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// The test binary is also the workers' binary: the engines are registered
// in init, before TestMain calls Main, exactly as a host's main must.
func init() {
	for name, f := range map[string]Factory{
		// The real embedded engine, configured from JSON.
		"pocketsphinx": JSONFactory(func(c pocketsphinx.Config) (transcribe.Recognizer, error) { return pocketsphinx.New(c) }),
		// pocketsphinx that crashes on magic audio (see crashy).
		"crashy": JSONFactory(newCrashy),
		// pocketsphinx without its streaming extension.
		"batch-only": JSONFactory(func(c pocketsphinx.Config) (transcribe.Recognizer, error) {
			r, err := pocketsphinx.New(c)
			return batchOnly{r}, err
		}),
		// A pure-Go engine that hears nothing, for the protocol fuzzer.
		"quiet": func(json.RawMessage) (transcribe.Recognizer, error) { return quiet{}, nil },
	} {
		if err := Register(name, f); err != nil {
			panic(err)
		}
	}
}

func TestMain(m *testing.M) {
	Main() // in a worker: serves and exits
	if os.Getenv(envTestHost) != "" {
		os.Exit(hostRole())
	}
	os.Exit(m.Run())
}

// envTestHost makes the test binary play a host that starts workers and
// waits to be killed (TestWorkersDieWithHost).
const envTestHost = "ISOLATE_TEST_HOST"

func hostRole() int {
	r, err := New(Config{Engine: "crashy", Processes: 2})
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	if err := r.Warm(context.Background(), 2); err != nil {
		fmt.Println("error:", err)
		return 1
	}
	for _, pid := range r.p.pids() {
		fmt.Println(pid)
	}
	fmt.Println("ready")
	bufio.NewReader(os.Stdin).ReadString('\n') // killed while waiting here
	return 0
}

// Magic audio makes crashy misbehave: the samples magic[0..2] followed by an
// action sample.
var magic = []int16{12345, -12345, 4242}

const (
	actSegfault   = 1 // strlen(NULL) in libc: a real SIGSEGV in native code
	actAbort      = 2 // abort() in libc: SIGABRT
	actExit       = 3 // os.Exit(7)
	actWaitCancel = 4 // block until the context is cancelled
	actHang       = 5 // block forever, ignoring the context
	actPanic      = 6 // a Go panic
	actStdout     = 7 // print to stdout, then recognize as usual
	actSIGKILL    = 8 // kill -9 itself (as the OOM killer would)
	actNothing    = 9 // answer at once with no words (and no decoder)
)

func magicAudio(action int16) []int16 {
	return append(append([]int16{}, magic...), action, 0, 0, 0)
}

// crashy is pocketsphinx with deliberate failures on magic audio. It has
// no Warm method, so Recognizer.Warm starts its workers without building
// decoders (the process tests stay quick).
type crashy struct {
	r *pocketsphinx.Recognizer
}

func (c crashy) Features() transcribe.RecognizerFeatures { return c.r.Features() }
func (c crashy) Close() error                            { return c.r.Close() }

var libc struct {
	once   sync.Once
	err    error
	strlen func(*byte) uintptr
	abort  func()
}

func newCrashy(c pocketsphinx.Config) (transcribe.Recognizer, error) {
	libc.once.Do(func() {
		h, err := purego.Dlopen("libc.so.6", purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err != nil {
			libc.err = err
			return
		}
		purego.RegisterLibFunc(&libc.strlen, h, "strlen")
		purego.RegisterLibFunc(&libc.abort, h, "abort")
	})
	if libc.err != nil {
		return nil, libc.err
	}
	r, err := pocketsphinx.New(c)
	if err != nil {
		return nil, err
	}
	return crashy{r}, nil
}

// misbehave acts on magic audio and reports whether it did.
func misbehave(ctx context.Context, audio []int16) (bool, error) {
	if len(audio) < 4 || audio[0] != magic[0] || audio[1] != magic[1] || audio[2] != magic[2] {
		return false, nil
	}
	switch audio[3] {
	case actSegfault:
		libc.strlen(nil)
	case actAbort:
		libc.abort()
	case actExit:
		os.Exit(7)
	case actWaitCancel:
		<-ctx.Done()
		return true, ctx.Err()
	case actHang:
		select {}
	case actPanic:
		panic("crashy: deliberate panic")
	case actStdout:
		fmt.Println("native library chatter on stdout")
		return true, nil
	case actNothing:
		return true, nil
	case actSIGKILL:
		p, _ := os.FindProcess(os.Getpid())
		p.Kill()
		time.Sleep(time.Minute)
	}
	return true, fmt.Errorf("crashy: unknown action %d", audio[3])
}

func (c crashy) Recognize(ctx context.Context, audio []int16, opts transcribe.RecognizeOptions) (*transcribe.Recognition, error) {
	if did, err := misbehave(ctx, audio); did {
		if err != nil {
			return nil, err
		}
		return &transcribe.Recognition{Words: []transcribe.Word{}, Model: "crashy"}, nil
	}
	return c.r.Recognize(ctx, audio, opts)
}

func (c crashy) NewStream(ctx context.Context, opts transcribe.StreamOptions) (transcribe.Stream, error) {
	st, err := c.r.NewStream(ctx, opts)
	if err != nil {
		return nil, err
	}
	return crashyStream{st}, nil
}

type crashyStream struct{ transcribe.Stream }

func (s crashyStream) Write(samples []int16) error {
	if did, err := misbehave(context.Background(), samples); did {
		return err
	}
	return s.Stream.Write(samples)
}

// batchOnly hides pocketsphinx's streaming.
type batchOnly struct{ r *pocketsphinx.Recognizer }

func (b batchOnly) Recognize(ctx context.Context, audio []int16, opts transcribe.RecognizeOptions) (*transcribe.Recognition, error) {
	return b.r.Recognize(ctx, audio, opts)
}

func (b batchOnly) Features() transcribe.RecognizerFeatures {
	f := b.r.Features()
	f.Streaming = false
	return f
}

func (b batchOnly) Close() error { return b.r.Close() }

// quiet hears nothing; its streams count what they were fed.
type quiet struct{}

func (quiet) Recognize(ctx context.Context, audio []int16, _ transcribe.RecognizeOptions) (*transcribe.Recognition, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &transcribe.Recognition{Words: []transcribe.Word{}, Model: "quiet-" + strconv.Itoa(len(audio))}, nil
}

func (quiet) Features() transcribe.RecognizerFeatures {
	return transcribe.RecognizerFeatures{SampleRate: 16000, Streaming: true, Languages: []string{"en"}}
}

func (quiet) Close() error { return nil }

func (quiet) NewStream(ctx context.Context, _ transcribe.StreamOptions) (transcribe.Stream, error) {
	return &quietStream{}, ctx.Err()
}

type quietStream struct{ n int64 }

// quietRefuse: a write of exactly this many samples fails.
const quietRefuse = 999

func (s *quietStream) Write(x []int16) error {
	if len(x) == quietRefuse {
		return fmt.Errorf("quiet: refusing %d samples", len(x))
	}
	s.n += int64(len(x))
	return nil
}
func (s *quietStream) Partial() (transcribe.Hypothesis, error) {
	return transcribe.Hypothesis{Language: "en", LanguageConfidence: float64(s.n)}, nil
}
func (s *quietStream) EndUtterance() (transcribe.Hypothesis, error) {
	h, _ := s.Partial()
	s.n = 0
	return h, nil
}
func (s *quietStream) Close() error { return nil }

// Helpers shared by the tests.

func wav(t testing.TB, path string) []int16 {
	t.Helper()
	s, rate, err := transcribetest.ReadWAV16(path)
	if err != nil {
		t.Fatal(err)
	}
	if rate != 16000 {
		t.Fatalf("%s: %d Hz, want 16000", path, rate)
	}
	return s
}

func speech(t testing.TB, text string) []int16 {
	return wav(t, testaudio.Speech(t, "slt", text))
}

// newRec builds a Recognizer closed at the end of the test.
func newRec(t testing.TB, cfg Config) *Recognizer {
	t.Helper()
	r, err := New(cfg)
	if err != nil {
		t.Fatalf("New(%+v): %v", cfg, err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// alive reports whether a process exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) S ...: the state follows the last ')'.
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == ')' {
			return i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X'
		}
	}
	return true
}

// eventually polls cond until it holds or 10 s pass.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// "broken" fails in its Factory: with a panic, or by exiting.
func init() {
	if err := Register("broken", JSONFactory(func(c struct{ Panic bool }) (transcribe.Recognizer, error) {
		if c.Panic {
			panic("broken: cannot build the engine")
		}
		os.Exit(5)
		return nil, nil
	})); err != nil {
		panic(err)
	}
}
