package realtime

import "time"

// SessionEventKind says which moment of a session a SessionEvent reports.
type SessionEventKind string

// Session event kinds.
const (
	// SessionBegan: NewSession opened the session's recognizer stream.
	SessionBegan SessionEventKind = "began"
	// SessionEnded: the session reached StateTerminated or StateExpired
	// (once per session, whatever ended it).
	SessionEnded SessionEventKind = "ended"
)

// SessionEvent is what Config.OnSession receives. Every SessionBegan is
// followed by exactly one SessionEnded, so began minus ended counts the
// sessions that hold a recognizer stream (streaming, or waiting for a
// resume).
type SessionEvent struct {
	Kind    SessionEventKind
	Session string
	Project string
	// State (SessionEnded): StateTerminated or StateExpired.
	State State
	// Audio (SessionEnded): the audio the session received.
	Audio time.Duration
}

// TranscriptEvent is what Config.OnTranscript receives: how long after
// its audio a transcript was ready. Latency runs, on Config.Now, from
// when the session received the audio message holding the end of the
// transcript's last word to when the transcript was ready to send (the
// time spent waiting for a core before the session saw the message, and
// sending, are not in it).
//
//   - A PartialTranscript is reported when it shows a word that no earlier
//     partial reached (its last word ends later than theirs): the time
//     from a word's audio to its first partial.
//   - A FinalTranscript is reported when the server's endpointing ended
//     the utterance (a pause of end_utterance_silence_threshold, a
//     hypothesis that stopped changing, or audio that stopped coming): the
//     time from the end of speech to the final, the pause included.
//     Finals the client forced (force_end_utterance, terminate_session)
//     or that expiry and idleness flushed are not reported: their timing
//     is the client's.
type TranscriptEvent struct {
	Session string
	// Final: a FinalTranscript; false for a PartialTranscript.
	Final   bool
	Latency time.Duration
}

// maxArrivals bounds the audio messages a session remembers for
// TranscriptEvent latencies (one utterance's worth: 20 s of 100 ms
// messages is 200).
const maxArrivals = 4096

// arrival is when an audio message was received, and the stream position
// (milliseconds) its audio reaches.
type arrival struct {
	endMs int64
	at    time.Time
}

func (s *Session) onSession(kind SessionEventKind, state State) {
	if s.cfg.OnSession == nil {
		return
	}
	e := SessionEvent{Kind: kind, Session: s.id, Project: s.opts.ProjectID}
	if kind == SessionEnded {
		e.State, e.Audio = state, s.eng.AudioDuration()
	}
	s.cfg.OnSession(e)
}

// arrived records that an audio message reaching stream position endMs
// was received at.
func (s *Session) arrived(endMs int64, at time.Time) {
	if s.cfg.OnTranscript == nil {
		return
	}
	if len(s.arrivals) >= maxArrivals {
		s.arrivals = append(s.arrivals[:0], s.arrivals[len(s.arrivals)-maxArrivals/2:]...)
	}
	s.arrivals = append(s.arrivals, arrival{endMs: endMs, at: at})
}

// latency is the time since the message holding stream position ms
// arrived.
func (s *Session) latency(ms int64) (time.Duration, bool) {
	if len(s.arrivals) == 0 {
		return 0, false
	}
	a := s.arrivals[len(s.arrivals)-1]
	for _, x := range s.arrivals {
		if x.endMs >= ms {
			a = x
			break
		}
	}
	return s.cfg.Now().Sub(a.at), true
}

// forgetArrivals drops the messages that hold only audio before the
// current stream position (an utterance just ended there).
func (s *Session) forgetArrivals() {
	pos := s.eng.AudioDuration().Milliseconds()
	i := 0
	for i < len(s.arrivals) && s.arrivals[i].endMs < pos {
		i++
	}
	s.arrivals = append(s.arrivals[:0], s.arrivals[i:]...)
}

// observePartial reports p when it shows a word no earlier partial
// reached.
func (s *Session) observePartial(p PartialTranscript) {
	if s.cfg.OnTranscript == nil || len(p.Words) == 0 {
		return
	}
	end := p.Words[len(p.Words)-1].End
	if end <= s.partialEndMs {
		return
	}
	s.partialEndMs = end
	if d, ok := s.latency(end); ok {
		s.cfg.OnTranscript(TranscriptEvent{Session: s.id, Latency: d})
	}
}

// observeFinal reports f, which the engine's endpointing produced, and
// forgets the audio messages before it.
func (s *Session) observeFinal(f FinalTranscript) {
	if s.cfg.OnTranscript == nil {
		return
	}
	if d, ok := s.latency(f.Words[len(f.Words)-1].End); ok {
		s.cfg.OnTranscript(TranscriptEvent{Session: s.id, Final: true, Latency: d})
	}
	s.forgetArrivals()
}
