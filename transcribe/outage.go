package transcribe

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// Outages (README "Limits, attempts and cleanup"): a speech engine that is
// unreachable or answers that it cannot work now (ErrEngineUnavailable),
// or a blob store that is unreachable or failing (ErrStorageUnavailable),
// interrupts a job; it is not the job's fault. The job waits inside its
// claim, the lease held by the Runner's heartbeats, and retries the call
// with a backoff (1 s doubling to outageMaxBackoff), logging each retry at
// warn with the engine's or store's name and the reason. Claims and
// Failures do not move, so an outage is never counted as an attempt. Only
// when the outage lasts past Config.OutageWindow does the job end in error,
// naming what was down. A shutdown meanwhile releases the job like any
// other, and another process resumes it.

// DefaultOutageWindow is Config.OutageWindow's default.
const DefaultOutageWindow = 10 * time.Minute

// outageMaxBackoff caps the wait between two retries during an outage, so
// a job notices within seconds that its engine is back.
const outageMaxBackoff = 5 * time.Second

// waitOut calls fn until it returns something other than an outage of
// kind (ErrEngineUnavailable or ErrStorageUnavailable), waiting between
// calls, for at most Config.OutageWindow from the first outage. what names
// the engine or store for the log and the error. When the window runs
// out, it returns a *MediaError naming what was down; when ctx ends, ctx's
// error.
func (s *Service) waitOut(ctx context.Context, log *slog.Logger, kind error, what string, fn func() error) error {
	err := fn()
	if err == nil || !errors.Is(err, kind) {
		return err
	}
	start := s.now()
	wait := time.Second
	for retry := 1; ; retry++ {
		down := s.now().Sub(start)
		if down >= s.cfg.OutageWindow {
			log.Error("giving up: still unavailable after the outage window", "what", what, "window", s.cfg.OutageWindow, "reason", err.Error())
			return &MediaError{Reason: fmt.Sprintf("%s was unavailable for %s (the outage window); the transcript was not processed", what, s.cfg.OutageWindow)}
		}
		wait = min(wait, s.cfg.OutageWindow-down)
		log.Warn("waiting for an outage to end", "what", what, "reason", err.Error(), "retry", retry,
			"retry_in", wait.String(), "down_for", down.Round(time.Millisecond).String())
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, outageMaxBackoff)
		if err = fn(); err == nil || !errors.Is(err, kind) {
			if err == nil {
				log.Info("outage over; the job goes on", "what", what, "retries", retry, "down_for", s.now().Sub(start).Round(time.Millisecond).String())
			}
			return err
		}
	}
}

// engineWhat names engine for waitOut.
func engineWhat(engine string) string { return fmt.Sprintf("the speech engine %q", engine) }

// storageWhat names the blob store for waitOut.
const storageWhat = "the media store"

// patientRecognizer is a Recognizer whose Recognize waits out its engine's
// outages (the pieces of a long job each wait on their own).
type patientRecognizer struct {
	Recognizer
	s      *Service
	log    *slog.Logger
	engine string
}

func (p patientRecognizer) Recognize(ctx context.Context, audio []int16, opts RecognizeOptions) (*Recognition, error) {
	var r *Recognition
	err := p.s.waitOut(ctx, p.log, ErrEngineUnavailable, engineWhat(p.engine), func() error {
		var err error
		r, err = p.Recognizer.Recognize(ctx, audio, opts)
		return err
	})
	return r, err
}
