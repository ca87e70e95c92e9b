package transcribe

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/transcribe/queue"
)

// Attempt rules (README "Jobs and crashes"):
//
//   - A job whose processing crashed the speech engine (an error wrapping
//     ErrEngineCrashed) counts a failure; the first is retried, the
//     second ends the transcript in error and it is never resumed.
//   - A job cut off by something outside it (the process was killed or
//     stopped, its lease ran out) is resumed without counting a failure,
//     up to maxInterruptions claims that produced no outcome: a backstop
//     for jobs that kill a whole process with an in-process engine.
const (
	maxEngineCrashes = 2
	maxInterruptions = 10
)

// newRunner returns the Runner of the Service's workers: Workers workers
// claiming from the Store's job queue, and the janitor beside them.
func (s *Service) newRunner() *queue.Runner[*driver.Record] {
	return queue.NewRunner(queue.Config[*driver.Record]{
		Queue:        s.jobs,
		Handle:       s.runJob,
		ID:           func(r *driver.Record) string { return r.ID },
		Workers:      s.cfg.Workers,
		Owner:        func(i int) string { return fmt.Sprintf("%s/%d", s.cfg.WorkerID, i) },
		Lease:        s.cfg.Lease,
		PollInterval: s.cfg.PollInterval,
		Now:          s.now,
		OnError: func(id string, err error) {
			if id == "" {
				s.log.Error("claiming job", "err", err)
			} else {
				s.log.Warn("extending lease", "id", id, "err", err)
			}
		},
		Background: []func(context.Context){s.janitor, s.outbox},
	})
}

// runJob processes one claimed record and stores its outcome. ctx ends
// when the Service closes, or with cause ErrLeaseLost when the job's
// lease is lost (the Runner extends it meanwhile). It returns false when
// the worker must stop (the engine was closed under it).
func (s *Service) runJob(ctx context.Context, owner string, rec *driver.Record) bool {
	log := s.log.With("id", rec.ID)
	// The claim made queued → processing (or took over a processing job
	// whose worker died, which is no status change) inside the Store.
	if rec.Status != StatusProcessing || rec.LeaseOwner != owner {
		log.Error("the store handed out a job that is not processing under this worker", "status", rec.Status, "owner", rec.LeaseOwner)
		return true
	}
	w := s.watchJob(rec)
	defer w.finish()
	if rec.Claims == 1 && transitionHook != nil {
		transitionHook(StatusQueued, StatusProcessing)
	}
	j, err := s.unseal(rec)
	if err != nil {
		log.Error("unsealing job", "err", err)
		w.claimed(nil)
		w.set(JobFailed)
		s.fail(ctx, owner, rec)
		return true
	}
	t := j.st.T
	w.claimed(j)
	if interrupted := rec.Claims - 1 - rec.Failures; interrupted >= maxInterruptions {
		if s.finish(ctx, owner, j, &MediaError{Reason: fmt.Sprintf("processing was interrupted %d times; giving up", interrupted)}) {
			w.set(JobFailed)
		}
		return true
	}
	start := s.now()
	log.Info("processing", "claim", rec.Claims, "engine_crashes", rec.Failures)
	perr := s.processSafely(ctx, j)
	if cause := context.Cause(ctx); errors.Is(cause, ErrLeaseLost) {
		log.Warn("job lost its lease (deleted or taken over); result discarded")
		w.set(JobLost)
		s.dropArtifacts(context.WithoutCancel(ctx), t.ID, j.st.Artifacts)
		return true
	}
	if closed := errors.Is(perr, ErrClosed); ctx.Err() != nil || closed {
		// Shutting down (or the engine was closed under the job): not the
		// job's fault. Give the job back so any process resumes it at once.
		log.Info("job interrupted by shutdown; it will be resumed")
		s.dropArtifacts(context.WithoutCancel(ctx), t.ID, j.st.Artifacts)
		s.release(context.WithoutCancel(ctx), owner, rec)
		if closed {
			log.Warn("the speech engine is closed; this worker stops", "worker", owner)
		}
		return !closed
	}
	if errors.Is(perr, ErrEngineCrashed) {
		rec.Failures++
		if rec.Failures < maxEngineCrashes {
			log.Warn("the speech engine crashed on this job; retrying once", "err", perr)
			w.set(JobRetried)
			s.dropArtifacts(context.WithoutCancel(ctx), t.ID, j.st.Artifacts)
			s.release(context.WithoutCancel(ctx), owner, rec)
			return true
		}
		perr = &MediaError{Reason: fmt.Sprintf("the speech engine crashed %d times while processing this audio; the transcript will not be retried", rec.Failures)}
	}
	if s.finish(ctx, owner, j, perr) {
		w.set(JobFailed)
		if t.Status == StatusCompleted {
			w.set(JobCompleted)
		}
		log.Info("finished", "status", t.Status, "elapsed", s.now().Sub(start).Round(time.Millisecond).String())
	}
	return true
}

// release gives a claimed job back: still processing, claimable by the
// next ClaimJob of any process at once. The record is written as it is
// (Failures counts an engine crash).
func (s *Service) release(ctx context.Context, owner string, rec *driver.Record) {
	if err := s.jobs.RetryAt(ctx, rec, owner, s.now()); err != nil {
		s.log.Warn("releasing job", "id", rec.ID, "err", err)
	}
}

// fail ends a job that cannot even be read (its record is corrupt or
// sealed under another key) in status error.
func (s *Service) fail(ctx context.Context, owner string, rec *driver.Record) {
	ctx = context.WithoutCancel(ctx)
	if err := transition(rec, nil, StatusError); err != nil {
		s.log.Error("failing unreadable job", "id", rec.ID, "err", err)
		return
	}
	rec.Completed = s.utcNow()
	if err := s.jobs.Complete(ctx, rec, owner); err != nil {
		s.log.Error("storing failed job", "id", rec.ID, "err", err)
	}
}

// reasonFor turns a processing error into the transcript's error field:
// the error's own text for errors made for the client (*MediaError,
// *ParamError), a fixed sentence otherwise (the details are logged).
func (s *Service) reasonFor(id string, perr error) string {
	var me *MediaError
	var pe *ParamError
	switch {
	case errors.As(perr, &me):
		return me.Reason
	case errors.As(perr, &pe):
		return pe.Error()
	case errors.Is(perr, ErrUnavailable):
		s.log.Error("speech engine unavailable", "id", id, "err", perr)
		return "the speech engine is unavailable; try again later"
	}
	s.log.Error("processing failed", "id", id, "err", perr)
	return "internal error while processing the media"
}

// finish stores the final state and sends notifications, and reports
// whether the outcome was stored. It runs to the end even when the worker
// is being stopped, so a stored result always gets its upload removed and
// its webhook queued.
func (s *Service) finish(ctx context.Context, owner string, j *job, perr error) bool {
	stop := ctx.Done() // shutdown ends the retries below, not the writes
	ctx = context.WithoutCancel(ctx)
	t, rec := j.st.T, j.rec
	to := StatusCompleted
	if perr != nil {
		to = StatusError
		reason := s.reasonFor(t.ID, perr)
		t.Error = &reason
		t.Text, t.Words, t.Utterances, t.Confidence = nil, nil, nil, nil
		s.dropArtifacts(ctx, t.ID, j.st.Artifacts)
		j.st.Artifacts = nil
	}
	if err := transition(rec, t, to); err != nil {
		s.log.Error("finishing job", "id", t.ID, "err", err)
		return false
	}
	t.Completed = s.utcNow()
	rec.Completed = t.Completed
	uploadID := j.st.UploadID
	j.st.UploadID = "" // deleted below
	// The outbox: the webhooks to send are promised in the same write as
	// the result, so no crash or outage between the two loses them.
	notes := s.notifications(j)
	rec.NotifyPending = len(notes) > 0
	if err := s.seal(rec, &j.st); err != nil {
		s.log.Error("sealing result", "id", t.ID, "err", err)
		return false
	}
	if err := s.storeFinal(ctx, stop, owner, rec); err != nil {
		if errors.Is(err, ErrLeaseLost) {
			s.log.Warn("job lost its lease before storing; result discarded", "id", t.ID)
		} else {
			s.log.Error("storing result; the job will be resumed", "id", t.ID, "err", err)
		}
		s.dropArtifacts(ctx, t.ID, j.st.Artifacts)
		return false
	}
	if uploadID != "" {
		s.removeUpload(ctx, uploadID)
	}
	s.notify(ctx, stop, t.ID, notes)
	return true
}

// retryWindow bounds how long finish retries queueing a webhook or
// clearing the outbox flag before it leaves them to the outbox sweep: a
// short outage of the database (seconds) must not lose a webhook, a long
// one must not hold a worker.
const retryWindow = 20 * time.Second

// retry calls fn until it succeeds, with a backoff from 50 ms doubling to
// 2 s, for at most retryWindow or until stop is closed; it returns fn's
// last error.
func retry(stop <-chan struct{}, fn func() error) error {
	wait, deadline := 50*time.Millisecond, time.Now().Add(retryWindow)
	for {
		err := fn()
		if err == nil || time.Now().Add(wait).After(deadline) {
			return err
		}
		select {
		case <-stop:
			return err
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// storeFinal writes the final record rec, with its lease cleared, and
// rides out a failed write. A write that fails may still have committed
// (its reply was lost), and then nothing would resume the job, completed
// with its lease cleared, nor queue its webhook; or it may not have
// (the database was down or restarting), and giving up then would leave
// the job to be claimed and processed again once its lease runs out, its
// work thrown away. So storeFinal reads the record back: it holds this
// write (the final status, the completion time and owner's cleared
// lease): stored; still under owner's lease: written again. A database
// that answers neither is an outage, waited out like the blob store's
// (backoff from 50 ms to finalMaxBackoff, for Config.OutageWindow, the
// lease held by the Runner's heartbeats meanwhile), so that a database
// restart costs a job no second claim. It gives up (returning the last
// error; the job is resumed after its lease) when stop closes, when
// OutageWindow has passed, or after finalRewrites writes that failed
// while the database answered reads (a write refused for good). It
// returns ErrLeaseLost when another worker holds the job, ErrNotFound
// when it is gone.
func (s *Service) storeFinal(ctx context.Context, stop <-chan struct{}, owner string, rec *driver.Record) error {
	err := s.jobs.Complete(ctx, rec, owner)
	if err == nil || errors.Is(err, ErrLeaseLost) {
		return err
	}
	log := s.log.With("id", rec.ID)
	log.Warn("storing result failed; reading it back", "err", err)
	start, wait, rewrites := s.now(), 50*time.Millisecond, 0
	for {
		got, gerr := s.cfg.Store.Get(ctx, rec.ID)
		switch {
		case errors.Is(gerr, ErrNotFound):
			return gerr
		case gerr != nil:
			err = gerr // unreadable too: an outage, waited out
		case got.Status == rec.Status && got.LeaseOwner == owner && got.LeaseUntil.IsZero() &&
			got.Completed.Sub(rec.Completed).Abs() < time.Microsecond:
			log.Info("the result was stored; its reply was lost")
			return nil
		case got.LeaseOwner != owner:
			return fmt.Errorf("transcribe: job %s is now under %q: %w", rec.ID, got.LeaseOwner, ErrLeaseLost)
		default: // not stored, still ours: write it again
			if err = s.jobs.Complete(ctx, rec, owner); err == nil {
				log.Info("the result was stored on a later try", "tries", rewrites+2, "down_for", s.now().Sub(start).Round(time.Millisecond).String())
				return nil
			}
			if errors.Is(err, ErrLeaseLost) {
				return err
			}
			if rewrites++; rewrites >= finalRewrites {
				return err
			}
		}
		if s.now().Sub(start)+wait > s.cfg.OutageWindow {
			return err
		}
		log.Warn("waiting for the database to store the result", "reason", err.Error(), "retry_in", wait.String(),
			"down_for", s.now().Sub(start).Round(time.Millisecond).String())
		select {
		case <-stop:
			return err
		case <-time.After(wait):
		}
		wait = min(2*wait, finalMaxBackoff)
	}
}

// finalMaxBackoff caps the wait between two tries of storeFinal: short, so
// that the result is stored within moments of the database's return,
// before the job's lease (not extended while the database was down) runs
// out and another worker claims the job again.
const finalMaxBackoff = time.Second

// finalRewrites is how many writes of a final record storeFinal tries
// while the database answers reads before it gives up.
const finalRewrites = 5

// notifications are the webhooks of finished job j: its transcript event
// and, for a completed transcript with redacted audio, that event too;
// none without a webhook_url or a Notifier. Each has a Key, so queueing it
// again (from the outbox) queues it once.
func (s *Service) notifications(j *job) []Notification {
	t := j.st.T
	if t.WebhookURL == nil || s.cfg.Notifier == nil || !t.Status.Final() {
		return nil
	}
	n := Notification{Event: EventTranscript, TranscriptID: t.ID, ProjectID: t.ProjectID, Status: t.Status, URL: *t.WebhookURL}
	if t.WebhookAuthHeaderName != nil && t.WebhookAuthHeaderValue != nil {
		n.HeaderName, n.HeaderValue = *t.WebhookAuthHeaderName, *t.WebhookAuthHeaderValue
	}
	n.Key = t.ID + "/" + string(n.Event)
	out := []Notification{n}
	if _, ok := j.st.artifact(ArtifactRedactedAudio); ok && t.Status == StatusCompleted {
		n.Event, n.Status = EventRedactedAudio, ""
		n.Key = t.ID + "/" + string(n.Event)
		out = append(out, n)
	}
	return out
}

// notify queues the webhooks of a finished transcript whose result (with
// its outbox flag) is stored, each retried for retryWindow, and then
// clears the flag. What fails is left to the outbox sweep, which re-sends
// it later (Notify is idempotent by Key).
func (s *Service) notify(ctx context.Context, stop <-chan struct{}, id string, notes []Notification) {
	if len(notes) == 0 {
		return
	}
	for _, n := range notes {
		if err := retry(stop, func() error { return s.queueNote(ctx, n) }); err != nil {
			s.log.Warn("queueing webhook failed; the outbox sweep will queue it", "id", id, "event", n.Event, "err", err)
			return
		}
	}
	if err := retry(stop, func() error { return s.cfg.Store.ClearNotifyPending(ctx, id) }); err != nil && !errors.Is(err, ErrNotFound) {
		s.log.Warn("clearing the outbox flag failed; the outbox sweep will clear it", "id", id, "err", err)
	}
}

// queueNote hands n to the Notifier; a notification it refuses for good
// is logged and counts as handled.
func (s *Service) queueNote(ctx context.Context, n Notification) error {
	err := s.cfg.Notifier.Notify(ctx, n)
	if errors.Is(err, ErrNotificationRefused) {
		s.log.Error("webhook refused by the notifier; it will not be sent", "id", n.TranscriptID, "event", n.Event, "err", err)
		return nil
	}
	return err
}

// outboxBatch is how many pending results one sweep reads at a time.
const outboxBatch = 100

// outbox re-sends, every Lease, the notifications of results whose outbox
// flag is still set a Lease after they were stored: their worker's process
// was killed between the result and its webhooks, or the store or the
// Notifier failed past its retries.
func (s *Service) outbox(ctx context.Context) {
	queue.Every(ctx, s.cfg.Lease, func(ctx context.Context) { s.sweepOutbox(ctx) })
}

// sweepOutbox queues the notifications of the pending results completed
// over a Lease ago and clears their flag; it returns how many results it
// cleared.
func (s *Service) sweepOutbox(ctx context.Context) int {
	done := 0
	for ctx.Err() == nil {
		recs, err := s.cfg.Store.ListNotifyPending(ctx, s.now().Add(-s.cfg.Lease), outboxBatch)
		if err != nil {
			if ctx.Err() == nil {
				s.log.Warn("listing results with pending webhooks", "err", err)
			}
			return done
		}
		cleared := 0
		for _, rec := range recs {
			if ctx.Err() != nil {
				return done
			}
			var notes []Notification
			if !rec.Deleted {
				j, err := s.unseal(rec)
				if err != nil {
					// Left pending: a process with the right key sends them.
					s.log.Error("reading a result with pending webhooks", "id", rec.ID, "err", err)
					continue
				}
				notes = s.notifications(j)
			}
			failed := false
			for _, n := range notes {
				if err := s.queueNote(ctx, n); err != nil {
					s.log.Warn("queueing a pending webhook", "id", rec.ID, "event", n.Event, "err", err)
					failed = true
					break
				}
			}
			if failed {
				continue
			}
			if err := s.cfg.Store.ClearNotifyPending(ctx, rec.ID); err != nil && !errors.Is(err, ErrNotFound) {
				s.log.Warn("clearing the outbox flag", "id", rec.ID, "err", err)
				continue
			}
			if len(notes) > 0 {
				s.log.Info("pending webhooks queued by the outbox sweep", "id", rec.ID, "count", len(notes))
			}
			cleared++
			done++
		}
		if len(recs) < outboxBatch || cleared == 0 {
			return done
		}
	}
	return done
}

// processSafely runs process and turns a panic in any stage or adapter
// into an error, so one bad job cannot take the process down.
func (s *Service) processSafely(ctx context.Context, j *job) (err error) {
	defer func() {
		if v := recover(); v != nil {
			s.log.Error("panic while processing", "id", j.rec.ID, "panic", v, "stack", string(debug.Stack()))
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	return s.process(ctx, j)
}
