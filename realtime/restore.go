package realtime

import (
	"context"
	"time"

	"github.com/earshot-dev/earshot/realtime/engine"
)

// restoreSession opens a fresh recognizer stream for a session that
// another process held (or this one held before it lost the stream) and
// returns it in the state rec describes: same id, options, start and
// expiry, threshold and audio position, so times continue where the
// record left them (engine.Options.Offset). Audio of an utterance the
// move cut is lost with the old stream: the next utterance starts at the
// recorded position.
func restoreSession(ctx context.Context, cfg Config, rec SessionRecord) (*Session, error) {
	opts := rec.Options
	opts.ProjectID = rec.Project
	s, err := newSession(ctx, cfg, opts, rec.ID, rec.AudioSamples)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.started, s.expiresAt = rec.Started, rec.ExpiresAt
	if rec.SilenceThreshold > 0 {
		_ = s.eng.SetEndpointing(engine.SilenceEndpointing(rec.SilenceThreshold))
	}
	if rec.State == StateStreaming {
		s.state = StateStreaming
	}
	return s, nil
}

// snapshot returns what a session record keeps of the session's live
// state.
func (s *Session) snapshot() (state State, samples int64, threshold time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state, s.eng.Samples(), s.eng.Endpointing().MaxSilence
}

// touch restarts the idle clock of a resumed session (and the engine's
// no-audio endpoint).
func (s *Session) touch(now time.Time) {
	s.mu.Lock()
	s.lastAudio = now
	s.mu.Unlock()
	s.eng.Touch()
}
