package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/adapters/isolate"
	"github.com/earshot-dev/earshot/transcribe"
)

// scripted is a StreamRecognizer whose streams answer Partial with the
// next of partials (repeating the last) and EndUtterance with final.
type scripted struct {
	mu       sync.Mutex
	partials [][]transcribe.Word
	final    []transcribe.Word
	writeErr error
	open     int
}

func (r *scripted) Recognize(context.Context, []int16, transcribe.RecognizeOptions) (*transcribe.Recognition, error) {
	return nil, errors.New("not supported")
}
func (r *scripted) Features() transcribe.RecognizerFeatures {
	return transcribe.RecognizerFeatures{SampleRate: 16000, Streaming: true}
}
func (r *scripted) Close() error { return nil }
func (r *scripted) NewStream(ctx context.Context, o transcribe.StreamOptions) (transcribe.Stream, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.open++
	return &scriptedStream{r: r}, nil
}

type scriptedStream struct {
	r *scripted
	n int
}

func (s *scriptedStream) Write([]int16) error { return s.r.writeErr }
func (s *scriptedStream) Partial() (transcribe.Hypothesis, error) {
	p := s.r.partials
	if len(p) == 0 {
		return transcribe.Hypothesis{}, nil
	}
	h := p[min(s.n, len(p)-1)]
	s.n++
	return transcribe.Hypothesis{Words: h}, nil
}
func (s *scriptedStream) EndUtterance() (transcribe.Hypothesis, error) {
	s.n = 0
	return transcribe.Hypothesis{Words: s.r.final}, nil
}
func (s *scriptedStream) Close() error {
	s.r.mu.Lock()
	s.r.open--
	s.r.mu.Unlock()
	return nil
}

func words(spec ...any) []transcribe.Word {
	var out []transcribe.Word
	for i := 0; i < len(spec); i += 3 {
		out = append(out, transcribe.Word{Text: spec[i].(string), Start: int64(spec[i+1].(int)), End: int64(spec[i+2].(int)), Confidence: 0.9})
	}
	return out
}

// pcm returns ms of a 440 Hz tone (loud) or digital silence at 16 kHz.
func pcm(ms int, loud bool) []byte {
	n := ms * 16
	b := make([]byte, 2*n)
	for i := 0; i < n; i++ {
		v := 0.0
		if loud {
			v = 8000 * math.Sin(2*math.Pi*440*float64(i)/16000)
		}
		binary.LittleEndian.PutUint16(b[2*i:], uint16(int16(v)))
	}
	return b
}

func newSession(t *testing.T, r *scripted, cfg Config, opts Options) *Session {
	t.Helper()
	cfg.Recognizer = r
	s, err := New(context.Background(), cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Abort() })
	return s
}

// feed writes chunks of 100 ms and returns the events, and the audio
// (ms) written when the first Final came (-1 if none).
func feed(t *testing.T, s *Session, ms int, loud bool) (evs []Event, finalAt int) {
	t.Helper()
	finalAt = -1
	for done := 0; done < ms; done += 100 {
		e, err := s.Write(pcm(100, loud))
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range e {
			if ev.Kind == Final && finalAt < 0 {
				finalAt = done + 100
			}
		}
		evs = append(evs, e...)
	}
	return evs, finalAt
}

// TestWordFinality: words become final by local agreement and, once
// final, appear unchanged in every later Partial of the turn, even when
// the recognizer revises them.
func TestWordFinality(t *testing.T) {
	r := &scripted{partials: [][]transcribe.Word{
		words("a", 0, 100),
		words("a", 0, 100, "b", 100, 200),
		words("a", 0, 100, "b", 100, 200, "c", 200, 300),
		words("a", 0, 100, "x", 100, 200, "c", 200, 300, "d", 300, 400), // b revised
	}, final: words("a", 0, 100, "x", 100, 200, "c", 200, 300, "d", 300, 400)}
	s := newSession(t, r, Config{}, Options{})
	evs, _ := feed(t, s, 400, true)
	var parts []Event
	for _, ev := range evs {
		if ev.Kind == Partial {
			parts = append(parts, ev)
		}
	}
	if len(parts) != 4 {
		t.Fatalf("%d partials: %+v", len(parts), evs)
	}
	final := map[int]Word{}
	for i, p := range parts {
		for j, w := range p.Words {
			if f, ok := final[j]; ok && w != f {
				t.Fatalf("partial %d: final word %d changed from %+v to %+v", i, j, f, w)
			}
			if w.Final {
				final[j] = w
			}
		}
	}
	if got := Text(parts[3].Words); got != "a b c d" {
		t.Errorf("last partial %q, want the committed b kept", got)
	}
	if !parts[2].Words[0].Final || !parts[2].Words[1].Final || parts[2].Words[2].Final || parts[0].Words[0].Final {
		t.Errorf("finality %+v / %+v", parts[0].Words, parts[2].Words)
	}
	out, err := s.ForceEndpoint()
	if err != nil || len(out) != 1 || out[0].Kind != Final || out[0].Cause != EndForced || out[0].EndOfTurnConfidence != 1 {
		t.Fatalf("force: %+v %v", out, err)
	}
	for _, w := range out[0].Words {
		if !w.Final {
			t.Errorf("final word %+v not final", w)
		}
	}
	if got := Text(out[0].Formatted); got != "A x c d." {
		t.Errorf("formatted %q", got)
	}
}

// TestEndpointing: a pause of MinSilence ends the turn when the turn-end
// hook is confident, else MaxSilence does; SetEndpointing changes it
// mid-session; SpeechStarted comes first.
func TestEndpointing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		conf  float64
		cause EndCause
		lo    int
		hi    int
	}{
		{"confident", 0.9, EndConfident, 200, 400},
		{"unsure", 0.1, EndSilence, 1000, 1200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &scripted{partials: [][]transcribe.Word{words("hi", 0, 300)}, final: words("hi", 0, 300)}
			var calls int
			cfg := Config{TurnEnd: func(ws []transcribe.Word, pause time.Duration) float64 {
				calls++
				if len(ws) != 1 || ws[0].Text != "hi" {
					t.Errorf("hook got %+v", ws)
				}
				return tc.conf
			}}
			ep := Endpointing{MinSilence: 200 * time.Millisecond, MaxSilence: time.Second, Confidence: 0.5}
			s := newSession(t, r, cfg, Options{Endpointing: &ep})
			evs, _ := feed(t, s, 500, true)
			if len(evs) == 0 || evs[0].Kind != SpeechStarted || evs[0].At > 100 {
				t.Fatalf("first event %+v", evs)
			}
			evs, at := feed(t, s, 1500, false)
			if at < tc.lo || at > tc.hi {
				t.Fatalf("final after %d ms of pause, want %d..%d: %+v", at, tc.lo, tc.hi, evs)
			}
			var f Event
			for _, ev := range evs {
				if ev.Kind == Final {
					f = ev
				}
			}
			if f.Cause != tc.cause || f.EndOfTurnConfidence != tc.conf || calls == 0 {
				t.Fatalf("final %+v, %d calls", f, calls)
			}
		})
	}
	t.Run("SetEndpointing", func(t *testing.T) {
		r := &scripted{partials: [][]transcribe.Word{words("hi", 0, 300)}, final: words("hi", 0, 300)}
		s := newSession(t, r, Config{}, Options{})
		if s.Endpointing() != DefaultEndpointing() {
			t.Fatalf("endpointing %+v", s.Endpointing())
		}
		feed(t, s, 500, true)
		if err := s.SetEndpointing(SilenceEndpointing(300 * time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		if _, at := feed(t, s, 1000, false); at < 300 || at > 500 {
			t.Fatalf("final after %d ms of pause with a 300 ms threshold", at)
		}
		if err := s.SetEndpointing(Endpointing{MinSilence: time.Second, MaxSilence: time.Millisecond}); err == nil {
			t.Fatal("MinSilence above MaxSilence accepted")
		}
	})
}

// TestTickEndsTurnWhenAudioStops: no audio for MaxSilence + 500 ms after
// speech ends the turn (EndNoAudio); Touch restarts that clock.
func TestTickEndsTurnWhenAudioStops(t *testing.T) {
	now := time.Unix(1000, 0)
	r := &scripted{partials: [][]transcribe.Word{words("hi", 0, 300)}, final: words("hi", 0, 300)}
	s := newSession(t, r, Config{Now: func() time.Time { return now }}, Options{})
	feed(t, s, 300, true)
	now = now.Add(1100 * time.Millisecond)
	s.Touch()
	now = now.Add(1100 * time.Millisecond)
	if evs, err := s.Tick(); err != nil || len(evs) != 0 {
		t.Fatalf("tick 1.1 s after Touch: %+v %v", evs, err)
	}
	now = now.Add(200 * time.Millisecond)
	evs, err := s.Tick()
	if err != nil || len(evs) != 1 || evs[0].Cause != EndNoAudio {
		t.Fatalf("tick: %+v %v", evs, err)
	}
}

// TestErrors: options are *transcribe.ParamError naming the field; a
// crash is a *RecognizerError that ends the session, found by type.
func TestErrors(t *testing.T) {
	r := &scripted{}
	for _, tc := range []struct {
		o     Options
		field string
	}{{Options{SampleRate: 100}, "sample_rate"}, {Options{Encoding: "opus"}, "encoding"}} {
		_, err := New(context.Background(), Config{Recognizer: r}, tc.o)
		var pe *transcribe.ParamError
		if !errors.As(err, &pe) || pe.Field != tc.field {
			t.Errorf("%+v: %v", tc.o, err)
		}
	}
	r.writeErr = fmt.Errorf("worker: %w", &isolate.CrashError{Signal: "SIGABRT", ExitCode: -1})
	s := newSession(t, r, Config{}, Options{})
	_, err := s.Write(pcm(100, true))
	var re *RecognizerError
	if !errors.As(err, &re) || re.Op != OpWrite || !re.Crashed() {
		t.Fatalf("err %v", err)
	}
	if reason, ok := CrashReason(err); !ok || reason != "the speech engine crashed (signal SIGABRT) while processing this audio" {
		t.Fatalf("reason %q %v", reason, ok)
	}
	if _, ok := CrashReason(errors.New("the speech engine crashed")); ok {
		t.Fatal("a crash recognised by its text")
	}
	if _, err := s.Write(pcm(100, true)); !errors.Is(err, ErrClosed) || r.open != 0 {
		t.Fatalf("after failure: %v, %d open", err, r.open)
	}
}

// TestOffset: a session continued from Offset counts its audio and word
// times from the session's start.
func TestOffset(t *testing.T) {
	r := &scripted{final: words("hi", 0, 300)}
	s := newSession(t, r, Config{}, Options{Offset: 16000})
	feed(t, s, 300, true)
	if d := s.AudioDuration(); d != 1300*time.Millisecond {
		t.Fatalf("audio %v", d)
	}
	evs, err := s.Close()
	if err != nil || len(evs) != 1 || evs[0].Words[0].Start != 1000 || evs[0].Cause != EndClosed {
		t.Fatalf("%+v %v", evs, err)
	}
	if _, err := s.Tick(); !errors.Is(err, ErrClosed) {
		t.Fatalf("tick after close: %v", err)
	}
}
