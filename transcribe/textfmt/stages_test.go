package textfmt

import (
	"context"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
)

func TestFormatPipeline(t *testing.T) {
	on, off := transcribe.Ptr(true), transcribe.Ptr(false)
	cases := []struct {
		name string
		in   string
		p    func(p *transcribe.TranscriptParams)
		want string
	}{
		{"issue target", "my name is sarah and i paid twenty five dollars at three thirty p m", nil,
			"My name is Sarah and I paid $25 at 3:30 PM."},
		{"fillers and sentences", "um so what time is it // uh it is ten a m in new york", nil,
			"So what time is it? It is 10 AM in New York."},
		{"keep fillers", "um i paid ten percent", func(p *transcribe.TranscriptParams) { p.Disfluencies = on },
			"Um I paid 10%."},
		{"no formatting", "i paid twenty five dollars", func(p *transcribe.TranscriptParams) { p.FormatText = off },
			"i paid twenty five dollars."},
		{"no punctuation", "i paid twenty five dollars // thanks", func(p *transcribe.TranscriptParams) { p.Punctuate = off },
			"I paid $25 thanks"},
		{"neither", "um i paid twenty five dollars", func(p *transcribe.TranscriptParams) { p.Punctuate, p.FormatText = off, off },
			"i paid twenty five dollars"},
		{"spelling after formatting", "call sarah at five five five one two three four", func(p *transcribe.TranscriptParams) {
			p.CustomSpelling = []transcribe.CustomSpelling{{From: []string{"sarah"}, To: "Sara"}}
		}, "Call Sara at 555-1234."},
		{"profanity", "this is shit", func(p *transcribe.TranscriptParams) { p.FilterProfanity = on },
			"This is s***."},
		{"email", "write to john at example dot com", nil, "Write to john@example.com."},
		{"date", "we met on january fifth twenty twenty four", nil, "We met on January 5th, 2024."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := text(Format(words(c.in), params(c.p)))
			if got != c.want {
				t.Errorf("Format(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
		})
	}
}

func TestStagesOrderAndNames(t *testing.T) {
	want := []string{"format_text", "punctuate", "disfluencies", "casing", "custom_spelling", "filter_profanity"}
	st := Stages()
	if len(st) != len(want) {
		t.Fatalf("%d stages", len(st))
	}
	for i, s := range st {
		if s.Name() != want[i] {
			t.Errorf("stage %d is %s, want %s", i, s.Name(), want[i])
		}
	}
}

func TestStagesApplyOnJob(t *testing.T) {
	p := params(func(p *transcribe.TranscriptParams) { p.FilterProfanity = transcribe.Ptr(true) })
	tr := &transcribe.Transcript{TranscriptParams: *p, Words: words("um i paid twenty five dollars")}
	job := &transcribe.Job{Transcript: tr}
	for _, s := range Stages() {
		if !s.Enabled(&tr.TranscriptParams) {
			continue
		}
		if err := s.Apply(context.Background(), job); err != nil {
			t.Fatalf("%s: %v", s.Name(), err)
		}
	}
	tr.Fill()
	if *tr.Text != "I paid $25." {
		t.Errorf("text %q", *tr.Text)
	}
	// Nil jobs and transcripts are ignored; a cancelled context is reported.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, s := range Stages() {
		if err := s.Apply(context.Background(), &transcribe.Job{}); err != nil {
			t.Errorf("%s on empty job: %v", s.Name(), err)
		}
		if err := s.Apply(ctx, &transcribe.Job{Transcript: &transcribe.Transcript{Words: words("a b")}}); err == nil {
			t.Errorf("%s ignored a cancelled context", s.Name())
		}
	}
	if err := (Punctuator{CommaPause: -1}).Apply(context.Background(), job); err == nil {
		t.Error("invalid Punctuator applied")
	}
}

// With dual_channel the Service interleaves both channels' words by time;
// each channel must be formatted on its own.
func TestFormatInterleavedChannels(t *testing.T) {
	one, two := "1", "2"
	a := words("i paid twenty five dollars")
	b := words("okay what time is it")
	var ws []transcribe.Word
	for i := range a {
		a[i].Channel = &one
		b[i].Channel = &two
		b[i].Start += 100
		b[i].End += 100
		ws = append(ws, a[i], b[i])
	}
	out := Format(ws, params(nil))
	var got [2][]transcribe.Word
	for i, w := range out {
		if i > 0 && w.Start < out[i-1].Start {
			t.Fatalf("output not in time order at %d", i)
		}
		if *w.Channel == "1" {
			got[0] = append(got[0], w)
		} else {
			got[1] = append(got[1], w)
		}
	}
	if s := text(got[0]); s != "I paid $25." {
		t.Errorf("channel 1: %q", s)
	}
	if s := text(got[1]); s != "Okay, what time is it?" {
		t.Errorf("channel 2: %q", s)
	}
}
