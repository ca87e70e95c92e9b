package diarize

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/earshot-dev/earshot/transcribe"
)

// Stages returns the speaker and utterance stages with the default
// diarizer, in the order they must run: speaker assignment, then
// utterances. Put them after text formatting in transcribe.Config.Stages.
func Stages() []transcribe.Stage {
	return []transcribe.Stage{&SpeakerStage{}, UtteranceStage{}}
}

// SpeakerStage labels every word with a speaker when speaker_labels is on.
//
// Mono audio is diarized as a whole; speakers are "A", "B", ... in order of
// first appearance among the words. With multichannel and speaker_labels
// each channel is diarized on its own and labels are "{channel}{letter}"
// ("1A", "1B", "2A"), as the AssemblyAI API does; speakers_expected and
// speaker_options then apply per channel.
//
// speakers_expected fixes the number of speakers; otherwise
// speaker_options.min_speakers_expected / max_speakers_expected bound it.
// SpeakerStage is safe for concurrent use.
type SpeakerStage struct {
	// Diarizer finds the speaker turns. Default: NewBIC(BICConfig{}).
	Diarizer Diarizer

	once sync.Once
	def  Diarizer
}

// Name returns "speaker_labels".
func (s *SpeakerStage) Name() string { return "speaker_labels" }

// Enabled reports whether speaker_labels is true.
func (s *SpeakerStage) Enabled(p *transcribe.TranscriptParams) bool {
	return p.SpeakerLabels != nil && *p.SpeakerLabels
}

func (s *SpeakerStage) diarizer() Diarizer {
	if s.Diarizer != nil {
		return s.Diarizer
	}
	s.once.Do(func() { s.def, _ = NewBIC(BICConfig{}) })
	return s.def
}

// optionsFor derives diarizer options from request parameters:
// speakers_expected sets both bounds; otherwise speaker_options'
// min_speakers_expected and max_speakers_expected do.
func optionsFor(p *transcribe.TranscriptParams) Options {
	var o Options
	if p.SpeakersExpected != nil && *p.SpeakersExpected > 0 {
		n := int(*p.SpeakersExpected)
		return Options{MinSpeakers: n, MaxSpeakers: n}
	}
	if so := p.SpeakerOptions; so != nil {
		if so.MinSpeakersExpected != nil && *so.MinSpeakersExpected > 0 {
			o.MinSpeakers = int(*so.MinSpeakersExpected)
		}
		if so.MaxSpeakersExpected != nil && *so.MaxSpeakersExpected > 0 {
			o.MaxSpeakers = int(*so.MaxSpeakersExpected)
		}
	}
	if o.MaxSpeakers > 0 && o.MinSpeakers > o.MaxSpeakers {
		o.MinSpeakers = o.MaxSpeakers
	}
	return o
}

// Apply diarizes job.Audio and sets Speaker on every word of
// job.Transcript.
func (s *SpeakerStage) Apply(ctx context.Context, job *transcribe.Job) error {
	t := job.Transcript
	if len(t.Words) == 0 {
		return nil
	}
	audio, err := job.LoadAudio()
	if err != nil || len(audio.Channels) == 0 {
		return fmt.Errorf("diarize: speaker labels need the job's audio: %v", err)
	}
	opts := optionsFor(&t.TranscriptParams)
	multi := transcribe.IsTrue(t.Multichannel) || transcribe.IsTrue(t.DualChannel)
	if !multi || len(audio.Channels) == 1 {
		segs, err := s.diarizer().Diarize(ctx, audio.Mono(), audio.SampleRate, opts)
		if err != nil {
			return err
		}
		idx := make([]int, len(t.Words))
		for i := range idx {
			idx[i] = i
		}
		AssignSpeakers(t.Words, idx, segs, job.OffsetMS, "")
		return nil
	}
	byChannel := map[string][]int{}
	for i, w := range t.Words {
		c := "1"
		if w.Channel != nil {
			c = *w.Channel
		}
		byChannel[c] = append(byChannel[c], i)
	}
	for c, idx := range byChannel {
		n, err := strconv.Atoi(c)
		if err != nil || n < 1 || n > len(audio.Channels) {
			return fmt.Errorf("diarize: word channel %q does not name one of the %d audio channels", c, len(audio.Channels))
		}
		segs, err := s.diarizer().Diarize(ctx, audio.Channels[n-1], audio.SampleRate, opts)
		if err != nil {
			return err
		}
		AssignSpeakers(t.Words, idx, segs, job.OffsetMS, c)
	}
	return nil
}

// AssignSpeakers sets Speaker on words[i] for every i in idx (indices in
// time order) from diarization segments whose times are offsetMS before
// the words' times. Each word takes the speaker it overlaps most, or the
// nearest segment's when it overlaps none. Speakers are named prefix+"A",
// prefix+"B", ... in order of first appearance among these words; with no
// segments at all every word gets prefix+"A".
func AssignSpeakers(words []transcribe.Word, idx []int, segs []Segment, offsetMS int64, prefix string) {
	names := map[int]string{}
	for _, i := range idx {
		w := &words[i]
		sp := speakerOf(w.Start-offsetMS, w.End-offsetMS, segs)
		name, ok := names[sp]
		if !ok {
			name = prefix + Letter(len(names))
			names[sp] = name
		}
		v := name
		w.Speaker = &v
	}
}

// speakerOf returns the speaker of segs overlapping [start, end) most, the
// nearest one if none overlaps, or -1 when segs is empty.
func speakerOf(start, end int64, segs []Segment) int {
	if end <= start {
		end = start + 1
	}
	overlap := map[int]int64{}
	best, bestOv := -1, int64(0)
	nearest, nearDist := -1, int64(-1)
	for _, s := range segs {
		ov := min(end, s.End) - max(start, s.Start)
		if ov > 0 {
			overlap[s.Speaker] += ov
			if v := overlap[s.Speaker]; v > bestOv || (v == bestOv && s.Speaker < best) {
				best, bestOv = s.Speaker, v
			}
			continue
		}
		dist := max(s.Start-end, start-s.End)
		if nearDist < 0 || dist < nearDist {
			nearest, nearDist = s.Speaker, dist
		}
	}
	if best >= 0 {
		return best
	}
	return nearest
}

// Letter names the i-th speaker (0-based): "A".."Z", then "AA", "AB", ...
func Letter(i int) string {
	if i < 0 {
		return ""
	}
	s := ""
	for {
		s = string(rune('A'+i%26)) + s
		i = i/26 - 1
		if i < 0 {
			return s
		}
	}
}

// UtteranceStage builds Transcript.Utterances when speaker_labels,
// dual_channel or multichannel is on: words are grouped turn by turn and a
// new utterance starts whenever the word's speaker or channel changes.
// Each utterance has the words' text joined by spaces, the first word's
// start, the last word's end, the mean word confidence, the speaker, the
// channel and a copy of its words.
//
// With dual_channel or multichannel and no speaker labels, a channel is a
// speaker: words and utterances get Speaker equal to their channel ("1",
// "2", ...), which is what the AssemblyAI API returns (its examples print
// "Channel {utterance.speaker}"). With multichannel and speaker labels the
// speaker is the per-channel label "1A", "2B" set by SpeakerStage.
//
// UtteranceStage is stateless and safe for concurrent use.
type UtteranceStage struct{}

// Name returns "utterances".
func (UtteranceStage) Name() string { return "utterances" }

// Enabled reports whether speaker_labels, dual_channel or multichannel is
// true.
func (UtteranceStage) Enabled(p *transcribe.TranscriptParams) bool {
	return transcribe.IsTrue(p.SpeakerLabels) || transcribe.IsTrue(p.DualChannel) || transcribe.IsTrue(p.Multichannel)
}

// Apply sets job.Transcript.Utterances (an empty list when there are no
// words).
func (UtteranceStage) Apply(_ context.Context, job *transcribe.Job) error {
	t := job.Transcript
	if !transcribe.IsTrue(t.SpeakerLabels) {
		for i := range t.Words {
			if c := t.Words[i].Channel; c != nil {
				v := *c
				t.Words[i].Speaker = &v
			}
		}
	}
	t.Utterances = BuildUtterances(t.Words)
	return nil
}

// BuildUtterances groups words (in time order) into turns: a new utterance
// starts when the speaker or the channel changes. A word without a speaker
// takes its channel as speaker, or "A" without one. The result is never nil.
func BuildUtterances(words []transcribe.Word) []transcribe.Utterance {
	out := []transcribe.Utterance{}
	key := func(w transcribe.Word) (speaker, channel string) {
		if w.Channel != nil {
			channel = *w.Channel
		}
		switch {
		case w.Speaker != nil:
			speaker = *w.Speaker
		case channel != "":
			speaker = channel
		default:
			speaker = "A"
		}
		return
	}
	start := 0
	for i := 1; i <= len(words); i++ {
		if i < len(words) {
			s0, c0 := key(words[start])
			s1, c1 := key(words[i])
			if s0 == s1 && c0 == c1 {
				continue
			}
		}
		if i == start {
			continue
		}
		ws := append([]transcribe.Word(nil), words[start:i]...)
		sp, ch := key(ws[0])
		u := transcribe.Utterance{
			Text:    transcribe.JoinWords(ws),
			Start:   ws[0].Start,
			End:     ws[len(ws)-1].End,
			Speaker: sp,
			Words:   ws,
		}
		for _, w := range ws {
			u.Confidence += w.Confidence
			u.End = max(u.End, w.End)
		}
		u.Confidence /= float64(len(ws))
		if ch != "" {
			c := ch
			u.Channel = &c
		}
		out = append(out, u)
		start = i
	}
	return out
}
