package engine

import (
	"time"

	"github.com/earshot-dev/earshot/transcribe"
)

// hypothesisSlack is added to MaxSilence when a pause is found by the
// recognizer's hypothesis no longer changing rather than by the detector:
// the hypothesis lags the audio.
const hypothesisSlack = 300 * time.Millisecond

// noisyPauseExtra is added again when the detector still hears sound: a
// hypothesis unchanged for MaxSilence plus hypothesisSlack plus this long
// ends the turn whatever the detector says, so noise that never falls
// silent cannot hold a turn open.
const noisyPauseExtra = time.Second

// minSpeechFrames is the shortest run of speech frames (10 ms each,
// detector hangover included) that counts as speech for endpointing;
// shorter bursts such as clicks count as part of the pause.
const minSpeechFrames = 5

// mark is a point in a chunk where the detector found something: a turn's
// end (cause set) or speech starting.
type mark struct {
	end   int // index in the chunk just after the frame
	cause EndCause
	conf  float64
	at    int64 // SpeechStarted position
}

// Write feeds audio in Options.Encoding at Options.SampleRate (any
// length; a pcm_s16le byte left over waits for the next call) and returns
// what it brought: SpeechStarted, Finals of turns that ended in it, and a
// Partial at most every Config.PartialInterval of audio. A
// *RecognizerError ends the session.
func (s *Session) Write(b []byte) ([]Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	n := s.dec.samplesIn(len(b))
	dur := time.Duration(n) * time.Second / time.Duration(s.opts.SampleRate)
	s.lastWrite = s.cfg.Now()
	s.rsOut = s.rs.Process(s.rsOut, s.dec.decode(b))
	samples := s.rsOut
	s.clientSamples += int64(n)

	// Find the turn ends in this chunk with the detector, then write the
	// chunk in pieces split at them.
	var marks []mark
	frameMs := int64(1000 * s.vad.frame / s.recRate)
	base := s.recSamples
	uttStart := s.uttStartMs
	if !s.uttOpen {
		uttStart = s.ms(base)
	}
	s.vad.frames(samples, func(end int, speech bool) {
		if speech {
			s.speechRun++
		} else {
			s.speechRun = 0
		}
		if s.speechRun >= minSpeechFrames {
			if !s.uttSpeech {
				marks = append(marks, mark{end: end, at: s.ms(base+int64(end)) - minSpeechFrames*frameMs})
			}
			s.uttSpeech = true
			s.silenceMs = 0
			return
		}
		// Non-speech, or a burst too short to be speech (a click, a
		// tap): the pause goes on.
		if !s.uttSpeech {
			return
		}
		s.silenceMs += frameMs
		pause := time.Duration(s.silenceMs) * time.Millisecond
		long := time.Duration(s.ms(base+int64(end))-uttStart)*time.Millisecond >= s.cfg.MaxUtterance
		var m mark
		switch {
		case pause >= s.ep.MaxSilence:
			m = mark{cause: EndSilence, conf: s.turnEnd(pause)}
		case pause >= s.ep.MinSilence && s.ep.Confidence == 0:
			m = mark{cause: EndConfident, conf: s.turnEnd(pause)}
		case pause >= s.ep.MinSilence:
			if c := s.turnEnd(pause); c >= s.ep.Confidence {
				m = mark{cause: EndConfident, conf: c}
			} else if long {
				m = mark{cause: EndMaxLength, conf: c}
			}
		case long:
			m = mark{cause: EndMaxLength, conf: s.turnEnd(pause)}
		}
		if m.cause == "" {
			return
		}
		m.end = end
		marks = append(marks, m)
		uttStart = s.ms(base + int64(end))
		s.uttSpeech = false
		s.silenceMs = 0
	})
	var out []Event
	prev := 0
	lastCut := -1
	for _, m := range marks {
		if err := s.writeLocked(samples[prev:m.end]); err != nil {
			return out, err
		}
		prev = m.end
		if m.cause == "" {
			out = append(out, Event{Kind: SpeechStarted, At: m.at})
			continue
		}
		lastCut = m.end
		ev, err := s.finishTurn(m.cause, m.conf)
		out = append(out, ev...)
		if err != nil {
			return out, err
		}
	}
	if err := s.writeLocked(samples[prev:]); err != nil {
		return out, err
	}
	if lastCut >= 0 && prev == lastCut && prev < len(samples) && !s.uttSpeech {
		// Only silence after the cut: no partial to show yet.
		return out, nil
	}
	s.sincePartial += dur
	if !s.uttOpen || s.sincePartial < s.cfg.PartialInterval {
		return out, nil
	}
	s.sincePartial = 0
	h, err := s.stream.Partial()
	if err != nil {
		return out, s.fail(OpPartial, err)
	}
	words := cleanWords(h.Words)
	text := joinText(words)
	pos := s.ms(s.recSamples)
	if text != s.hypText {
		s.hypText, s.hypChangedMs = text, pos
	}
	s.hypWords = words
	stable := time.Duration(pos-s.hypChangedMs) * time.Millisecond
	limit := s.ep.MaxSilence + hypothesisSlack
	if text != "" && (!s.uttSpeech && stable >= limit || stable >= limit+noisyPauseExtra) {
		// The recognizer has words that stopped changing: the speaker
		// has paused, though the detector heard no speech (too quiet for
		// Config.SpeechRMS) or no pause (steady noise).
		ev, err := s.finishTurn(EndHypothesis, s.turnEnd(stable))
		return append(out, ev...), err
	}
	if p, ok := s.partial(words, h); ok {
		out = append(out, p)
	}
	return out, nil
}

// turnEnd is the turn-end probability of the open turn after pause.
func (s *Session) turnEnd(pause time.Duration) float64 {
	f := s.cfg.TurnEnd
	if f == nil {
		f = pauseTurnEnd(s.ep.MaxSilence)
	}
	p := f(s.hypWords, pause)
	switch {
	case !(p >= 0): // NaN too
		return 0
	case p > 1:
		return 1
	}
	return p
}

func (s *Session) writeLocked(x []int16) error {
	if len(x) == 0 {
		return nil
	}
	if !s.uttOpen {
		s.uttOpen = true
		s.uttStartMs = s.ms(s.recSamples)
	}
	if err := s.stream.Write(x); err != nil {
		return s.fail(OpWrite, err)
	}
	s.recSamples += int64(len(x))
	return nil
}

// endTurnLocked ends the open turn, if any audio was written since the
// last one ended.
func (s *Session) endTurnLocked(cause EndCause) ([]Event, error) {
	s.uttSpeech = false
	s.silenceMs = 0
	if !s.uttOpen || s.stream == nil {
		return nil, nil
	}
	conf := 1.0
	if cause.Endpointed() {
		conf = s.turnEnd(time.Duration(s.cfg.Now().Sub(s.lastWrite)))
	}
	return s.finishTurn(cause, conf)
}

func (s *Session) finishTurn(cause EndCause, conf float64) ([]Event, error) {
	s.uttOpen = false
	s.sincePartial = 0
	s.lastPartial, s.hypText, s.hypChangedMs = "", "", 0
	s.hypWords, s.prevHyp, s.committed = nil, nil, nil
	h, err := s.stream.EndUtterance()
	if err != nil {
		return nil, s.fail(OpEndUtterance, err)
	}
	words := cleanWords(h.Words)
	if len(words) == 0 {
		return nil, nil
	}
	ev := Event{
		Kind: Final, Words: toWords(words, true), EndOfTurnConfidence: conf, Cause: cause,
		Language: h.Language, LanguageConfidence: h.LanguageConfidence,
	}
	if f := cleanWords(s.cfg.Format(words)); len(f) > 0 {
		ev.Formatted = toWords(f, true)
	}
	return []Event{ev}, nil
}

// partial returns the Partial of words (already cleaned) unless it is
// empty or its text repeats the last one. Words become final by local
// agreement: the longest prefix two hypotheses in a row agree on (text
// and start), short of the last word, is committed; committed words stay
// as they were even if the recognizer later revises them, and the
// hypothesis's words after them follow.
func (s *Session) partial(words []transcribe.Word, h transcribe.Hypothesis) (Event, bool) {
	if len(words) == 0 {
		return Event{}, false
	}
	agree := 0
	for agree < len(words)-1 && agree < len(s.prevHyp) &&
		words[agree].Text == s.prevHyp[agree].Text && words[agree].Start == s.prevHyp[agree].Start {
		agree++
	}
	s.prevHyp = append(s.prevHyp[:0], words...)
	// The hypothesis's words after the committed ones.
	rest := words
	if n := len(s.committed); n > 0 {
		if prefixAgrees(s.committed, words) {
			rest = words[n:]
		} else {
			end := s.committed[n-1].End
			i := 0
			for i < len(words) && words[i].Start < end {
				i++
			}
			rest = words[i:]
			agree = 0 // the hypothesis moved: commit nothing new from it
		}
	}
	for i := len(s.committed); i < agree && len(rest) > 1; i++ {
		w := toWords(rest[:1], true)[0]
		s.committed = append(s.committed, w)
		rest = rest[1:]
	}
	ws := make([]Word, 0, len(s.committed)+len(rest))
	ws = append(ws, s.committed...)
	ws = append(ws, toWords(rest, false)...)
	text := Text(ws)
	if text == s.lastPartial {
		return Event{}, false
	}
	s.lastPartial = text
	return Event{
		Kind: Partial, Words: ws, EndOfTurnConfidence: s.turnEnd(time.Duration(s.silenceMs) * time.Millisecond),
		Language: h.Language, LanguageConfidence: h.LanguageConfidence,
	}, true
}

func prefixAgrees(committed []Word, words []transcribe.Word) bool {
	if len(words) < len(committed) {
		return false
	}
	for i, c := range committed {
		if words[i].Text != c.Text || words[i].Start != c.Start {
			return false
		}
	}
	return true
}

func joinText(words []transcribe.Word) string {
	n := 0
	for _, w := range words {
		n += len(w.Text) + 1
	}
	b := make([]byte, 0, n)
	for i, w := range words {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, w.Text...)
	}
	return string(b)
}

// offsetStream shifts the word times of a stream opened in the middle of
// a session by the audio that came before it, so they count from the
// session's start.
type offsetStream struct {
	transcribe.Stream
	ms int64
}

func (o *offsetStream) shift(h transcribe.Hypothesis, err error) (transcribe.Hypothesis, error) {
	if len(h.Words) > 0 {
		ws := make([]transcribe.Word, len(h.Words))
		copy(ws, h.Words)
		for i := range ws {
			ws[i].Start += o.ms
			ws[i].End += o.ms
		}
		h.Words = ws
	}
	return h, err
}

func (o *offsetStream) Partial() (transcribe.Hypothesis, error) { return o.shift(o.Stream.Partial()) }

func (o *offsetStream) EndUtterance() (transcribe.Hypothesis, error) {
	return o.shift(o.Stream.EndUtterance())
}

// SpeechFrames returns the speech detector's decision for each 10 ms
// frame of pcm (pcm_s16le at sampleRate), with Config.SpeechRMS
// speechRMS (0: the default): what the engine's endpointing sees, for
// tests and benchmarks of transports.
func SpeechFrames(pcm []byte, sampleRate int, speechRMS float64) []bool {
	if speechRMS == 0 {
		speechRMS = 300
	}
	v := newVAD(sampleRate, speechRMS)
	d := decoder{enc: EncodingPCMS16LE}
	var flags []bool
	v.frames(d.decode(pcm), func(_ int, sp bool) { flags = append(flags, sp) })
	return flags
}
