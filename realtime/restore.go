package realtime

import (
	"context"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
)

// restoreSession opens a fresh recognizer stream for a session that
// another process held (or this one held before it lost the stream) and
// returns it in the state rec describes: same id, options, start and
// expiry, threshold and audio position, so times continue where the
// record left them. Audio of an utterance the move cut is lost with the
// old stream: the next utterance starts at the recorded position.
func restoreSession(ctx context.Context, cfg Config, rec SessionRecord) (*Session, error) {
	c := cfg
	c.NewID = func() string { return rec.ID }
	opts := rec.Options
	opts.ProjectID = rec.Project
	s, err := NewSession(ctx, c, opts)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cfg.NewID = cfg.NewID
	s.started, s.expiresAt = rec.Started, rec.ExpiresAt
	if rec.SilenceThreshold > 0 {
		s.threshold = rec.SilenceThreshold
	}
	if rec.State == StateStreaming {
		s.state = StateStreaming
	}
	s.clientSamples = rec.AudioSamples
	s.recSamples = rec.AudioSamples * int64(s.recRate) / int64(s.opts.SampleRate)
	if off := s.ms(s.recSamples); off > 0 {
		s.stream = &offsetStream{Stream: s.stream, ms: off}
	}
	return s, nil
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

// snapshot returns what a session record keeps of the session's live
// state.
func (s *Session) snapshot() (state State, samples int64, threshold time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state, s.clientSamples, s.threshold
}

// touch restarts the idle clock of a resumed session.
func (s *Session) touch(now time.Time) {
	s.mu.Lock()
	s.lastAudio = now
	s.mu.Unlock()
}
