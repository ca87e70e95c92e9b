package diarize

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
)

const collar = 250 * time.Millisecond

// wordAccuracy is the fraction of words whose speaker matches the truth
// under the best one-to-one mapping of labels to true speakers.
func wordAccuracy(words []transcribe.Word, truth []int) float64 {
	labels := map[string]int{}
	for _, w := range words {
		if w.Speaker != nil {
			if _, ok := labels[*w.Speaker]; !ok {
				labels[*w.Speaker] = len(labels)
			}
		}
	}
	nTrue := 0
	for _, s := range truth {
		nTrue = max(nTrue, s+1)
	}
	co := make([][]float64, len(labels))
	for i := range co {
		co[i] = make([]float64, nTrue)
	}
	for i, w := range words {
		if w.Speaker != nil {
			co[labels[*w.Speaker]][truth[i]]++
		}
	}
	_, matched := bestMapping(co)
	return matched / float64(len(words))
}

type evalCase struct {
	conv   string
	opts   Options
	maxDER float64
}

func TestDiarizationAccuracy(t *testing.T) {
	corpus := conversations(t)
	d, err := NewBIC(BICConfig{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []evalCase{
		{"two", Options{}, 0.10},
		{"two", Options{MinSpeakers: 2, MaxSpeakers: 2}, 0.10},
		{"three", Options{}, 0.15},
		{"three", Options{MinSpeakers: 3, MaxSpeakers: 3}, 0.15},
		{"four", Options{}, 0.20},
		{"four", Options{MinSpeakers: 4, MaxSpeakers: 4}, 0.20},
		{"tight", Options{}, 0.10},
		{"long", Options{}, 0.10},
		{"long", Options{MaxSpeakers: 3}, 0.10},
		{"mono", Options{}, 0.05},
		{"mono", Options{MaxSpeakers: 1}, 0.05},
		{"real", Options{}, 0.10},
		// Longer recordings (the conversations played several times over):
		// clusters grow large and ΔBIC alone would split speakers.
		{"four*4", Options{}, 0.20},
		{"two*8", Options{}, 0.10},
		{"real*8", Options{MinSpeakers: 2}, 0.10},
	}
	for _, tc := range cases {
		c := corpus[tc.conv]
		if c == nil {
			c = repeated(t, corpus, tc.conv)
		}
		start := time.Now()
		segs, err := d.Diarize(context.Background(), c.audio, rate, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		el := time.Since(start)
		res := ScoreDER(c.ref, segs, collar)
		words := append([]transcribe.Word(nil), c.words...)
		idx := make([]int, len(words))
		for i := range idx {
			idx[i] = i
		}
		AssignSpeakers(words, idx, segs, 0, "")
		acc := "n/a"
		if len(words) > 0 {
			a := wordAccuracy(words, c.speaker)
			acc = fmt.Sprintf("%.1f%%", 100*a)
			if a < 0.9 {
				t.Errorf("%s %+v: only %s of words have the right speaker", tc.conv, tc.opts, acc)
			}
		}
		n := len(ids(segs))
		dur := time.Duration(len(c.audio)) * time.Second / rate
		t.Logf("%-5s opts=%+v: %.1fs audio, %d speakers found (true %d), DER %.1f%% (miss %v fa %v conf %v of %v), words right %s, %v",
			tc.conv, tc.opts, dur.Seconds(), n, len(c.voices), 100*res.DER, res.Missed, res.FalseAlarm, res.Confusion, res.Scored, acc, el.Round(time.Millisecond))
		if res.DER > tc.maxDER {
			t.Errorf("%s %+v: DER %.1f%% above target %.0f%%", tc.conv, tc.opts, 100*res.DER, 100*tc.maxDER)
		}
	}
}

// repeated returns the conversation "name*n": name played n times in a row.
func repeated(t testing.TB, corpus map[string]*conversation, spec string) *conversation {
	name, times, ok := strings.Cut(spec, "*")
	n, err := strconv.Atoi(times)
	if !ok || err != nil || corpus[name] == nil {
		t.Fatalf("no conversation %q", spec)
	}
	c := corpus[name]
	out := &conversation{name: spec, voices: c.voices}
	for r := 0; r < n; r++ {
		off := int64(len(out.audio)) * 1000 / rate
		out.audio = append(out.audio, c.audio...)
		for _, s := range c.ref {
			out.ref = append(out.ref, Segment{s.Start + off, s.End + off, s.Speaker})
		}
		for i, w := range c.words {
			w.Start += off
			w.End += off
			out.words = append(out.words, w)
			out.speaker = append(out.speaker, c.speaker[i])
		}
	}
	return out
}
