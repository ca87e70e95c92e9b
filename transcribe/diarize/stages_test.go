package diarize

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
)

func sp(s string) *string { return &s }
func bp(b bool) *bool     { return &b }
func ip(i int64) *int64   { return &i }

func TestLetter(t *testing.T) {
	for i, want := range map[int]string{0: "A", 1: "B", 25: "Z", 26: "AA", 27: "AB", 51: "AZ", 52: "BA", 701: "ZZ", 702: "AAA", -1: ""} {
		if got := Letter(i); got != want {
			t.Errorf("Letter(%d) = %q, want %q", i, got, want)
		}
	}
}

func TestOptionsFor(t *testing.T) {
	cases := []struct {
		p    transcribe.TranscriptParams
		want Options
	}{
		{transcribe.TranscriptParams{}, Options{}},
		{transcribe.TranscriptParams{SpeakersExpected: ip(3)}, Options{3, 3}},
		{transcribe.TranscriptParams{SpeakersExpected: ip(2), SpeakerOptions: &transcribe.SpeakerOptions{MinSpeakersExpected: ip(4)}}, Options{2, 2}},
		{transcribe.TranscriptParams{SpeakerOptions: &transcribe.SpeakerOptions{MinSpeakersExpected: ip(2), MaxSpeakersExpected: ip(5)}}, Options{2, 5}},
		{transcribe.TranscriptParams{SpeakerOptions: &transcribe.SpeakerOptions{MaxSpeakersExpected: ip(4)}}, Options{0, 4}},
		{transcribe.TranscriptParams{SpeakerOptions: &transcribe.SpeakerOptions{MinSpeakersExpected: ip(6), MaxSpeakersExpected: ip(4)}}, Options{4, 4}},
	}
	for i, c := range cases {
		if got := optionsFor(&c.p); got != c.want {
			t.Errorf("case %d: optionsFor = %+v, want %+v", i, got, c.want)
		}
	}
}

func TestDiarizeBadInput(t *testing.T) {
	d, err := NewBIC(BICConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	x := make([]int16, rate)
	for _, c := range []struct {
		rate int
		o    Options
	}{{0, Options{}}, {-16000, Options{}}, {4000, Options{}}, {rate, Options{MinSpeakers: 3, MaxSpeakers: 2}}, {rate, Options{MinSpeakers: -1}}} {
		if _, err := d.Diarize(ctx, x, c.rate, c.o); !errors.Is(err, ErrBadInput) {
			t.Errorf("rate %d opts %+v: err %v, want ErrBadInput", c.rate, c.o, err)
		}
	}
	for _, cfg := range []BICConfig{{Coefficients: -1}, {Coefficients: 41}, {Coefficients: 20, Bands: 15}, {SpeechRangeDB: -3}, {ClusterLambda: -1}, {SwitchPenalty: -1}} {
		if _, err := NewBIC(cfg); err == nil {
			t.Errorf("NewBIC(%+v) accepted a bad config", cfg)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := d.Diarize(cctx, x, rate, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err %v", err)
	}
}

func TestDiarizeSilenceAndTiny(t *testing.T) {
	d, _ := NewBIC(BICConfig{})
	ctx := context.Background()
	for name, x := range map[string][]int16{"empty": nil, "zeros": make([]int16, 3*rate), "one sample": {1000}, "dc": constant(2*rate, 500)} {
		segs, err := d.Diarize(ctx, x, rate, Options{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if len(segs) != 0 {
			t.Errorf("%s: %d segments from no speech: %v", name, len(segs), segs)
		}
	}
	// 200 ms of tone: too short to model, still one speaker.
	tone := make([]int16, rate/5)
	for i := range tone {
		tone[i] = int16(8000 * math.Sin(float64(i)*0.1))
	}
	x := append(append(make([]int16, rate/2), tone...), make([]int16, rate/2)...)
	segs, err := d.Diarize(ctx, x, rate, Options{MinSpeakers: 2})
	if err != nil || len(segs) != 1 || segs[0].Speaker != 0 {
		t.Fatalf("tone: %v %v", segs, err)
	}
	if segs[0].Start < 400 || segs[0].End > 800 {
		t.Errorf("tone segment %v, want about 500..700 ms", segs[0])
	}
}

func constant(n int, v int16) []int16 {
	x := make([]int16, n)
	for i := range x {
		x[i] = v
	}
	return x
}

func TestSpeakerBoundsHonoured(t *testing.T) {
	c := conversations(t)["four"]
	d, _ := NewBIC(BICConfig{})
	for _, o := range []Options{{MaxSpeakers: 1}, {MaxSpeakers: 2}, {MinSpeakers: 5}, {MinSpeakers: 2, MaxSpeakers: 3}, {MinSpeakers: 6, MaxSpeakers: 6}} {
		segs, err := d.Diarize(context.Background(), c.audio, rate, o)
		if err != nil {
			t.Fatal(err)
		}
		n := len(ids(segs))
		lo, hi, _ := o.bounds()
		t.Logf("%+v: %d speakers", o, n)
		if n > hi {
			t.Errorf("%+v: %d speakers found", o, n)
		}
		// resegmentation may drop a speaker that got no frames, but with
		// 16 turns a minimum of up to 6 is reachable
		if n < lo {
			t.Errorf("%+v: only %d speakers found", o, n)
		}
		if segs[0].Speaker != 0 {
			t.Errorf("first segment has speaker %d", segs[0].Speaker)
		}
		for i := 1; i < len(segs); i++ {
			if segs[i].Start < segs[i-1].End || segs[i].End <= segs[i].Start {
				t.Fatalf("segments overlap or are empty: %v %v", segs[i-1], segs[i])
			}
		}
	}
}

func TestScoreDER(t *testing.T) {
	ref := []Segment{{0, 1000, 0}, {1500, 3000, 1}, {3000, 4000, 0}}
	res := ScoreDER(ref, ref, 0)
	if res.DER != 0 || res.Scored != 3500*time.Millisecond {
		t.Errorf("self: %+v", res)
	}
	// labels permuted: still perfect, mapping found
	perm := []Segment{{0, 1000, 7}, {1500, 3000, 3}, {3000, 4000, 7}}
	res = ScoreDER(ref, perm, 0)
	if res.DER != 0 || res.Mapping[7] != 0 || res.Mapping[3] != 1 {
		t.Errorf("permuted: %+v", res)
	}
	// everything one speaker: 1.5 s of 3.5 s confused, 0.5 s false alarm
	res = ScoreDER(ref, []Segment{{0, 4000, 0}}, 0)
	if res.Confusion != 1500*time.Millisecond || res.FalseAlarm != 500*time.Millisecond || math.Abs(res.DER-2.0/3.5) > 1e-9 {
		t.Errorf("one speaker: %+v", res)
	}
	// nothing found: all missed
	res = ScoreDER(ref, nil, 0)
	if res.Missed != 3500*time.Millisecond || res.DER != 1 {
		t.Errorf("empty hyp: %+v", res)
	}
	// collar forgives boundary errors of up to the collar
	shifted := []Segment{{0, 1200, 0}, {1700, 2800, 1}, {2800, 4000, 0}}
	if res := ScoreDER(ref, shifted, 250*time.Millisecond); res.DER != 0 {
		t.Errorf("shifted within collar: %+v", res)
	}
	if res := ScoreDER(ref, shifted, 0); res.DER == 0 {
		t.Errorf("shifted without collar scored perfect")
	}
	// overlapping reference speech: two speakers at once, one found
	over := []Segment{{0, 2000, 0}, {1000, 2000, 1}}
	res = ScoreDER(over, []Segment{{0, 2000, 0}}, 0)
	if res.Scored != 3000*time.Millisecond || res.Missed != 1000*time.Millisecond {
		t.Errorf("overlap: %+v", res)
	}
	if res := ScoreDER(nil, nil, collar); res.DER != 0 || res.Scored != 0 {
		t.Errorf("empty: %+v", res)
	}
}

func TestBestMappingGreedyFallback(t *testing.T) {
	// 17 columns use the greedy path; a diagonal is still found.
	w := make([][]float64, 17)
	for i := range w {
		w[i] = make([]float64, 17)
		w[i][(i+3)%17] = 10
		w[i][i] = 1
	}
	a, sum := bestMapping(w)
	if sum != 170 {
		t.Fatalf("sum %v", sum)
	}
	for i, j := range a {
		if j != (i+3)%17 {
			t.Fatalf("row %d -> %d", i, j)
		}
	}
}

func TestAssignSpeakers(t *testing.T) {
	segs := []Segment{{0, 1000, 0}, {1000, 2000, 1}, {3000, 4000, 0}, {5000, 6000, 2}}
	words := []transcribe.Word{
		{Text: "a", Start: 100, End: 400},     // inside 0
		{Text: "b", Start: 900, End: 1300},    // mostly 1
		{Text: "c", Start: 2200, End: 2400},   // in a gap: nearest is 1 (200 ms) over 0 (600 ms)
		{Text: "d", Start: 2600, End: 2900},   // in a gap: nearest is 0
		{Text: "e", Start: 5500, End: 5500},   // zero length inside 2
		{Text: "f", Start: 10000, End: 10100}, // after everything: nearest is 2
	}
	idx := []int{0, 1, 2, 3, 4, 5}
	// times are offset by 500 ms: segments are relative to the trimmed audio
	shifted := append([]transcribe.Word(nil), words...)
	for i := range shifted {
		shifted[i].Start += 500
		shifted[i].End += 500
	}
	AssignSpeakers(shifted, idx, segs, 500, "")
	var got []string
	for _, w := range shifted {
		got = append(got, *w.Speaker)
	}
	if s := strings.Join(got, ""); s != "ABBAC"+"C" {
		t.Errorf("speakers %q, want ABBACC", s)
	}
	// names follow first appearance among the words, with a prefix
	AssignSpeakers(words, []int{1, 3}, segs, 0, "2")
	if *words[1].Speaker != "2A" || *words[3].Speaker != "2B" || words[0].Speaker != nil {
		t.Errorf("prefixed: %v %v %v", *words[1].Speaker, *words[3].Speaker, words[0].Speaker)
	}
	// no segments: one speaker
	AssignSpeakers(words, idx, nil, 0, "")
	for _, w := range words {
		if *w.Speaker != "A" {
			t.Errorf("no segments: %q", *w.Speaker)
		}
	}
	// pointers are not shared between words
	*words[0].Speaker = "Z"
	if *words[1].Speaker != "A" {
		t.Error("words share a speaker pointer")
	}
}

func TestBuildUtterances(t *testing.T) {
	if u := BuildUtterances(nil); u == nil || len(u) != 0 {
		t.Fatalf("no words: %#v", u)
	}
	w := func(text string, start, end int64, conf float64, speaker, channel *string) transcribe.Word {
		return transcribe.Word{Text: text, Start: start, End: end, Confidence: conf, Speaker: speaker, Channel: channel}
	}
	words := []transcribe.Word{
		w("Hello,", 0, 300, 0.9, sp("A"), nil),
		w("there.", 350, 700, 0.7, sp("A"), nil),
		w("Hi!", 900, 1100, 0.5, sp("B"), nil),
		w("So,", 1300, 1500, 1, sp("A"), nil),
	}
	us := BuildUtterances(words)
	if len(us) != 3 {
		t.Fatalf("%d utterances", len(us))
	}
	u := us[0]
	if u.Text != "Hello, there." || u.Start != 0 || u.End != 700 || u.Speaker != "A" || u.Channel != nil || len(u.Words) != 2 || math.Abs(u.Confidence-0.8) > 1e-12 {
		t.Errorf("first utterance %+v", u)
	}
	if us[1].Text != "Hi!" || us[1].Speaker != "B" || us[2].Text != "So," || us[2].Speaker != "A" {
		t.Errorf("turns: %+v", us)
	}
	// the utterance's words are a copy
	us[0].Words[0].Text = "changed"
	if words[0].Text != "Hello," {
		t.Error("utterance words alias the transcript words")
	}
	// channel changes split turns even with the same speaker
	ch := []transcribe.Word{
		w("one", 0, 100, 1, sp("A"), sp("1")),
		w("two", 200, 300, 1, sp("A"), sp("2")),
		w("three", 400, 500, 1, nil, sp("2")),
		w("four", 600, 700, 1, nil, nil),
	}
	us = BuildUtterances(ch)
	var got []string
	for _, u := range us {
		c := "-"
		if u.Channel != nil {
			c = *u.Channel
		}
		got = append(got, fmt.Sprintf("%s/%s/%s", u.Text, u.Speaker, c))
	}
	if s := strings.Join(got, " | "); s != "one/A/1 | two/A/2 | three/2/2 | four/A/-" {
		t.Errorf("got %s", s)
	}
}

func TestStagesEnabled(t *testing.T) {
	st := Stages()
	if len(st) != 2 || st[0].Name() != "speaker_labels" || st[1].Name() != "utterances" {
		t.Fatalf("Stages() = %v", st)
	}
	for _, c := range []struct {
		p                    transcribe.TranscriptParams
		speakers, utterances bool
	}{
		{transcribe.TranscriptParams{}, false, false},
		{transcribe.TranscriptParams{SpeakerLabels: bp(false), DualChannel: bp(false), Multichannel: bp(false)}, false, false},
		{transcribe.TranscriptParams{SpeakerLabels: bp(true)}, true, true},
		{transcribe.TranscriptParams{DualChannel: bp(true)}, false, true},
		{transcribe.TranscriptParams{Multichannel: bp(true)}, false, true},
		{transcribe.TranscriptParams{Multichannel: bp(true), SpeakerLabels: bp(true)}, true, true},
	} {
		if st[0].Enabled(&c.p) != c.speakers || st[1].Enabled(&c.p) != c.utterances {
			t.Errorf("%+v: enabled %v %v", c.p, st[0].Enabled(&c.p), st[1].Enabled(&c.p))
		}
	}
}

// fakeDiarizer returns fixed segments and records its calls.
type fakeDiarizer struct {
	segs  []Segment
	calls []Options
	err   error
}

func (f *fakeDiarizer) Diarize(_ context.Context, audio []int16, rate int, o Options) ([]Segment, error) {
	f.calls = append(f.calls, o)
	return f.segs, f.err
}

func TestSpeakerStageApply(t *testing.T) {
	words := func() []transcribe.Word {
		return []transcribe.Word{{Text: "a", Start: 1100, End: 1200}, {Text: "b", Start: 2100, End: 2200}, {Text: "c", Start: 3100, End: 3200}}
	}
	f := &fakeDiarizer{segs: []Segment{{0, 1500, 1}, {1500, 2500, 0}, {2500, 4000, 1}}}
	s := &SpeakerStage{Diarizer: f}
	job := &transcribe.Job{
		Transcript: &transcribe.Transcript{Words: words()},
		Audio:      &transcribe.PCM{SampleRate: rate, Channels: [][]int16{make([]int16, rate)}},
		OffsetMS:   1000,
	}
	job.Transcript.SpeakerLabels = bp(true)
	job.Transcript.SpeakersExpected = ip(2)
	if err := s.Apply(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	// a and b (100 and 1100 ms into the audio) are diarizer speaker 1,
	// named "A" as it comes first; c (2100 ms) is speaker 0, "B".
	var got string
	for _, w := range job.Transcript.Words {
		got += *w.Speaker
	}
	if got != "AAB" {
		t.Errorf("speakers %q, want AAB", got)
	}
	if len(f.calls) != 1 || f.calls[0] != (Options{2, 2}) {
		t.Errorf("diarizer calls %+v", f.calls)
	}
	// errors pass through
	f.err = errors.New("boom")
	if err := s.Apply(context.Background(), job); err == nil {
		t.Error("diarizer error swallowed")
	}
	// no words: nothing to do, even without audio
	empty := &transcribe.Job{Transcript: &transcribe.Transcript{Words: []transcribe.Word{}}}
	if err := s.Apply(context.Background(), empty); err != nil {
		t.Error(err)
	}
	// words but no audio: a clear error, no panic
	noAudio := &transcribe.Job{Transcript: &transcribe.Transcript{Words: words()}}
	if err := s.Apply(context.Background(), noAudio); err == nil {
		t.Error("no audio accepted")
	}
}

func TestSpeakerStageMultichannel(t *testing.T) {
	f := &fakeDiarizer{segs: []Segment{{0, 500, 0}, {500, 1000, 1}}}
	s := &SpeakerStage{Diarizer: f}
	ws := []transcribe.Word{
		{Text: "a", Start: 100, End: 200, Channel: sp("1")},
		{Text: "b", Start: 150, End: 250, Channel: sp("2")},
		{Text: "c", Start: 600, End: 700, Channel: sp("2")},
		{Text: "d", Start: 650, End: 750, Channel: sp("1")},
	}
	job := &transcribe.Job{
		Transcript: &transcribe.Transcript{Words: ws},
		Audio:      &transcribe.PCM{SampleRate: rate, Channels: [][]int16{make([]int16, rate), make([]int16, rate)}},
	}
	job.Transcript.SpeakerLabels = bp(true)
	job.Transcript.Multichannel = bp(true)
	if err := s.Apply(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range job.Transcript.Words {
		got = append(got, *w.Speaker)
	}
	if s := strings.Join(got, ","); s != "1A,2A,2B,1B" {
		t.Errorf("speakers %s, want 1A,2A,2B,1B", s)
	}
	if len(f.calls) != 2 {
		t.Errorf("%d diarizer calls, want one per channel", len(f.calls))
	}
	// a word naming a channel the audio does not have
	job.Transcript.Words[0].Channel = sp("3")
	if err := s.Apply(context.Background(), job); err == nil {
		t.Error("channel 3 of 2 accepted")
	}
}

// TestDualChannelUtterances runs the utterance stage on the stereo
// version of the two-speaker conversation, one speaker per channel, with
// words carrying the channel they came from as the Service sets it.
func TestDualChannelUtterances(t *testing.T) {
	c := conversations(t)["two"]
	words := append([]transcribe.Word(nil), c.words...)
	for i := range words {
		words[i].Channel = sp(fmt.Sprint(c.speaker[i]%2 + 1))
	}
	job := &transcribe.Job{
		Transcript: &transcribe.Transcript{Words: words},
		Audio:      &transcribe.PCM{SampleRate: rate, Channels: [][]int16{c.stereo[0], c.stereo[1]}},
	}
	job.Transcript.DualChannel = bp(true)
	job.Transcript.Multichannel = bp(false)
	for _, st := range Stages() {
		if st.Enabled(&job.Transcript.TranscriptParams) {
			if err := st.Apply(context.Background(), job); err != nil {
				t.Fatal(err)
			}
		}
	}
	us := job.Transcript.Utterances
	if len(us) != len(c.ref) {
		t.Fatalf("%d utterances for %d turns", len(us), len(c.ref))
	}
	right, total := 0, 0
	for i, u := range us {
		want := fmt.Sprint(c.ref[i].Speaker%2 + 1)
		if u.Channel == nil || *u.Channel != want || u.Speaker != want {
			t.Errorf("utterance %d: channel %v speaker %q, want %s", i, u.Channel, u.Speaker, want)
		}
		for _, w := range u.Words {
			total++
			if *w.Channel == want && w.Speaker != nil && *w.Speaker == want {
				right++
			}
		}
		// the channel's audio is loud during the utterance, the other is silent
		mid := (u.Start + u.End) / 2 * rate / 1000
		ch := c.ref[i].Speaker % 2
		if rms(c.stereo[ch][mid-800:mid+800]) < 10*rms(c.stereo[1-ch][mid-800:mid+800])+1 {
			t.Errorf("utterance %d: channel %d is not the one speaking", i, ch+1)
		}
	}
	t.Logf("dual channel: %d utterances, %d/%d words on the right channel", len(us), right, total)
	if right != len(words) || total != len(words) {
		t.Errorf("%d of %d words right", right, len(words))
	}
}

func rms(x []int16) float64 {
	var s float64
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s / float64(max(1, len(x))))
}

// TestMultichannelSpeakerLabels diarizes each channel of a stereo file
// whose channels each hold a two-speaker conversation.
func TestMultichannelSpeakerLabels(t *testing.T) {
	corpus := conversations(t)
	a, b := corpus["two"], corpus["tight"]
	n := max(len(a.audio), len(b.audio))
	left := append(append([]int16(nil), a.audio...), make([]int16, n-len(a.audio))...)
	right := append(append([]int16(nil), b.audio...), make([]int16, n-len(b.audio))...)
	var words []transcribe.Word
	var truth []string
	for i, w := range a.words {
		w.Channel = sp("1")
		words = append(words, w)
		truth = append(truth, fmt.Sprint("1", a.speaker[i]))
	}
	for i, w := range b.words {
		w.Channel = sp("2")
		words = append(words, w)
		truth = append(truth, fmt.Sprint("2", b.speaker[i]))
	}
	// time order, as the Service merges channels
	order := make([]int, len(words))
	for i := range order {
		order[i] = i
	}
	sortByStart(words, order)
	job := &transcribe.Job{
		Transcript: &transcribe.Transcript{Words: words},
		Audio:      &transcribe.PCM{SampleRate: rate, Channels: [][]int16{left, right}},
	}
	job.Transcript.SpeakerLabels = bp(true)
	job.Transcript.Multichannel = bp(true)
	for _, st := range Stages() {
		if err := st.Apply(context.Background(), job); err != nil {
			t.Fatal(err)
		}
	}
	// per channel, labels map one-to-one to the true speakers
	pairs := map[string]string{}
	wrong := 0
	for k, w := range job.Transcript.Words {
		tr := truth[order[k]]
		if !strings.HasPrefix(*w.Speaker, *w.Channel) || len(*w.Speaker) != 2 {
			t.Fatalf("word %d: speaker %q on channel %s", k, *w.Speaker, *w.Channel)
		}
		if p, ok := pairs[*w.Speaker]; ok && p != tr {
			wrong++
		}
		pairs[*w.Speaker] = tr
	}
	if len(pairs) != 4 || wrong > 0 {
		t.Errorf("labels %v, %d words inconsistent", pairs, wrong)
	}
	for _, u := range job.Transcript.Utterances {
		if u.Channel == nil || !strings.HasPrefix(u.Speaker, *u.Channel) {
			t.Fatalf("utterance speaker %q channel %v", u.Speaker, u.Channel)
		}
	}
}

func sortByStart(ws []transcribe.Word, order []int) {
	for i := 1; i < len(ws); i++ {
		for j := i; j > 0 && ws[j].Start < ws[j-1].Start; j-- {
			ws[j], ws[j-1] = ws[j-1], ws[j]
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
}

func TestPremerge(t *testing.T) {
	// 300 one-second segments alternating between two "speakers" with
	// different means, in runs of three.
	mk := func(mean float64, seed int) cluster {
		st := newGstats(2)
		for f := 0; f < 100; f++ {
			x := math.Sin(float64(f*7+seed)) * 0.5
			y := math.Cos(float64(f*3+seed)) * 0.5
			st.addFrame([]float64{mean + x, -mean + y})
		}
		return cluster{stats: st}
	}
	var cs []cluster
	for i := 0; i < 300; i++ {
		cs = append(cs, mk(float64((i/3)%2)*4, i))
	}
	out := premerge(append([]cluster(nil), cs...), 120, 4)
	if len(out) > 120 || len(out) < 100 {
		t.Fatalf("premerge to 120 left %d clusters", len(out))
	}
	total := 0.0
	for _, c := range out {
		total += c.stats.n
		// no cluster mixes the two speakers: its x mean is near 0 or 4
		if m := c.stats.sum[0] / c.stats.n; math.Abs(m) > 0.5 && math.Abs(m-4) > 0.5 {
			t.Fatalf("cluster mixes speakers: mean %.2f", m)
		}
	}
	if total != 300*100 {
		t.Fatalf("frames lost: %v", total)
	}
	// under the limit: untouched
	if got := premerge(cs[:50], 120, 4); len(got) != 50 {
		t.Fatalf("%d", len(got))
	}
	// a hard limit below the number of runs still converges
	if got := premerge(append([]cluster(nil), cs...), 10, 4); len(got) > 10 {
		t.Fatalf("limit 10: %d", len(got))
	}
}

// TestDiarize8kHz runs the two-speaker conversation at telephone rate.
func TestDiarize8kHz(t *testing.T) {
	c := conversations(t)["two"]
	x := make([]int16, len(c.audio)/2)
	for i := range x {
		x[i] = int16((int(c.audio[2*i]) + int(c.audio[2*i+1])) / 2)
	}
	d, _ := NewBIC(BICConfig{})
	segs, err := d.Diarize(context.Background(), x, 8000, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := ScoreDER(c.ref, segs, collar)
	t.Logf("8 kHz: %d speakers, DER %.1f%%", len(ids(segs)), 100*res.DER)
	if res.DER > 0.10 {
		t.Errorf("8 kHz DER %.1f%%", 100*res.DER)
	}
}
