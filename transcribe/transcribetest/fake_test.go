package transcribetest_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

func tone(n int) []int16 {
	a := make([]int16, n)
	for i := range a {
		a[i] = int16(1000 * ((i % 40) - 20))
	}
	return a
}

func TestFakeRecognizerZero(t *testing.T) {
	var f transcribetest.FakeRecognizer
	r, err := f.Recognize(t.Context(), tone(16000), transcribe.RecognizeOptions{})
	if err != nil || r == nil || len(r.Words) != 0 || r.Model != "fake" {
		t.Fatalf("zero FakeRecognizer: %+v, %v", r, err)
	}
	feat := f.Features()
	if feat.SampleRate != 16000 || !slices.Equal(feat.Languages, []string{"en"}) {
		t.Errorf("default Features = %+v", feat)
	}
}

func TestFakeRecognizerWordsCopied(t *testing.T) {
	sp := "A"
	f := &transcribetest.FakeRecognizer{Words: []transcribe.Word{{Text: "hello", Start: 0, End: 400, Confidence: 0.8, Speaker: &sp}}, Model: "m1"}
	r, err := f.Recognize(t.Context(), tone(10), transcribe.RecognizeOptions{LanguageCode: "en", WordBoost: []string{"earshot"}})
	if err != nil || len(r.Words) != 1 || r.Words[0].Text != "hello" || r.Model != "m1" {
		t.Fatalf("Recognize: %+v %v", r, err)
	}
	r.Words[0].Text = "changed"
	*r.Words[0].Speaker = "Z"
	r2, _ := f.Recognize(t.Context(), tone(20), transcribe.RecognizeOptions{})
	if r2.Words[0].Text != "hello" || *r2.Words[0].Speaker != "A" || sp != "A" {
		t.Errorf("results share memory with the script: %+v", r2.Words[0])
	}
	if f.Calls() != 2 || !slices.Equal(f.Samples(), []int{10, 20}) {
		t.Errorf("Calls = %d, Samples = %v", f.Calls(), f.Samples())
	}
	if o := f.Options(); len(o) != 2 || o[0].LanguageCode != "en" || !slices.Equal(o[0].WordBoost, []string{"earshot"}) {
		t.Errorf("Options = %+v", o)
	}
}

func TestFakeRecognizerScript(t *testing.T) {
	f := &transcribetest.FakeRecognizer{
		Script: func(audio []int16, opts transcribe.RecognizeOptions) ([]transcribe.Word, error) {
			if len(audio) == 0 {
				return nil, transcribetest.ErrScripted
			}
			return []transcribe.Word{{Text: opts.LanguageCode, End: int64(len(audio))}}, nil
		},
		Words: []transcribe.Word{{Text: "ignored"}},
	}
	r, err := f.Recognize(t.Context(), tone(5), transcribe.RecognizeOptions{LanguageCode: "de"})
	if err != nil || len(r.Words) != 1 || r.Words[0].Text != "de" || r.Words[0].End != 5 {
		t.Fatalf("Script result: %+v %v", r, err)
	}
	if _, err := f.Recognize(t.Context(), nil, transcribe.RecognizeOptions{}); !errors.Is(err, transcribetest.ErrScripted) {
		t.Errorf("Script error: %v", err)
	}
}

func TestFakeRecognizerText(t *testing.T) {
	f := &transcribetest.FakeRecognizer{Text: "Hello  big World"}
	r, err := f.Recognize(t.Context(), tone(3*16000), transcribe.RecognizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []transcribe.Word{
		{Text: "hello", Start: 0, End: 900, Confidence: 0.9},
		{Text: "big", Start: 1000, End: 1900, Confidence: 0.9},
		{Text: "world", Start: 2000, End: 2900, Confidence: 0.9},
	}
	if !slices.EqualFunc(r.Words, want, func(a, b transcribe.Word) bool {
		return a.Text == b.Text && a.Start == b.Start && a.End == b.End && a.Confidence == b.Confidence
	}) {
		t.Errorf("words = %+v, want %+v", r.Words, want)
	}
	for _, audio := range [][]int16{nil, make([]int16, 16000)} {
		r, err := f.Recognize(t.Context(), audio, transcribe.RecognizeOptions{})
		if err != nil || len(r.Words) != 0 {
			t.Errorf("silence of %d samples: %+v %v", len(audio), r, err)
		}
	}
	// At 8 kHz the same samples last twice as long.
	f8 := &transcribetest.FakeRecognizer{Text: "a b", Capabilities: transcribe.RecognizerFeatures{SampleRate: 8000}}
	r, _ = f8.Recognize(t.Context(), tone(8000), transcribe.RecognizeOptions{})
	if len(r.Words) != 2 || r.Words[1].Start != 500 || r.Words[1].End != 950 {
		t.Errorf("8 kHz words = %+v", r.Words)
	}
	// Very short audio still gives words of positive length in order.
	ws := transcribetest.SpreadWords("one two three four", tone(2), 16000)
	for i, w := range ws {
		if w.End <= w.Start || (i > 0 && w.Start < ws[i-1].Start) {
			t.Errorf("short audio word %d = %+v", i, w)
		}
	}
}

func TestFakeRecognizerErrDelayCancel(t *testing.T) {
	f := &transcribetest.FakeRecognizer{Err: transcribetest.ErrScripted, Delay: 20 * time.Millisecond}
	start := time.Now()
	if _, err := f.Recognize(t.Context(), tone(1), transcribe.RecognizeOptions{}); !errors.Is(err, transcribetest.ErrScripted) {
		t.Errorf("Err: %v", err)
	}
	if d := time.Since(start); d < 20*time.Millisecond {
		t.Errorf("Delay not honoured: returned after %v", d)
	}
	slow := &transcribetest.FakeRecognizer{Delay: time.Hour, Words: []transcribe.Word{{Text: "x"}}}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Millisecond)
	defer cancel()
	start = time.Now()
	if _, err := slow.Recognize(ctx, tone(1), transcribe.RecognizeOptions{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("cancelled during Delay: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cancellation took %v", d)
	}
	done, cancel2 := context.WithCancel(t.Context())
	cancel2()
	if _, err := (&transcribetest.FakeRecognizer{}).Recognize(done, tone(1), transcribe.RecognizeOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("already cancelled ctx: %v", err)
	}
}

func TestFakeRecognizerConcurrentAndClose(t *testing.T) {
	f := &transcribetest.FakeRecognizer{Delay: 30 * time.Millisecond}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if _, err := f.Recognize(context.Background(), tone(1), transcribe.RecognizeOptions{}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if f.Calls() != 4 || f.MaxConcurrent() < 2 {
		t.Errorf("Calls = %d, MaxConcurrent = %d; want 4 and >= 2", f.Calls(), f.MaxConcurrent())
	}
	if err := f.Close(); err != nil || !f.Closed() {
		t.Fatalf("Close: %v", err)
	}
	if _, err := f.Recognize(t.Context(), tone(1), transcribe.RecognizeOptions{}); !errors.Is(err, transcribe.ErrUnavailable) {
		t.Errorf("Recognize after Close: %v, want ErrUnavailable", err)
	}
}

func ExampleFakeRecognizer() {
	rec := &transcribetest.FakeRecognizer{Text: "hello world"}
	audio := make([]int16, 16000) // one second at 16 kHz
	audio[100] = 500              // not silent
	r, _ := rec.Recognize(context.Background(), audio, transcribe.RecognizeOptions{})
	for _, w := range r.Words {
		fmt.Println(w.Text, w.Start, w.End)
	}
	fmt.Println(rec.Calls(), "call")
	// Output:
	// hello 0 450
	// world 500 950
	// 1 call
}
