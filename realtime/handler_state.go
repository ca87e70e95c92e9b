package realtime

import (
	"context"
	"errors"
	"time"
)

// stateTimeout bounds each call to Config.State.
const stateTimeout = 10 * time.Second

// errMoved: the record of a session this process holds says that another
// process owns it now, or that it ended there.
var errMoved = errors.New("realtime: session moved to another process")

// detachedSince returns when rec's session lost its connection: when its
// connection dropped, or, for a record still attached to a process that
// stopped renewing its lease (it died), when the lease ran out.
func detachedSince(rec SessionRecord) time.Time {
	if rec.Attached {
		return rec.LeaseUntil
	}
	return rec.DetachedAt
}

// syncSession writes what this process knows of s into its record:
// attached (renewing the lease), detached, or ended; and the audio
// position and silence threshold. A session this process no longer holds
// is not written. When the record says that another process owns the
// session now, or that it ended elsewhere, s is dropped here.
func (h *Handler) syncSession(s *Session) {
	ctx, cancel := context.WithTimeout(context.Background(), stateTimeout)
	defer cancel()
	err := h.writeRecord(ctx, s, func(r *SessionRecord) {
		// Read at every attempt: a write that lost a race to another
		// writer of this process (the connection detaching while the
		// janitor renews the lease) is redone with what is true now.
		state, samples, threshold := s.snapshot()
		now := h.cfg.Now()
		h.mu.Lock()
		attached, detachAt := s.attached, s.detachAt
		h.mu.Unlock()
		r.AudioSamples, r.SilenceThreshold = samples, threshold
		switch {
		case state.Ended():
			r.State, r.EndedAt = state, now
			r.Attached = false
			r.PurgeAfter = now.Add(max(endedRetention, h.cfg.ResumeGrace))
		case attached:
			r.State, r.Attached = state, true
			r.LeaseUntil = now.Add(h.cfg.SessionLease)
		default:
			r.State, r.Attached = state, false
			r.DetachedAt = detachAt
		}
	})
	switch {
	case errors.Is(err, errMoved):
		h.drop(s)
	case err != nil:
		s.log.Error("realtime: writing the session's state to the session store", "err", err)
	}
}

// writeRecord applies change to the record of s and stores it,
// re-reading and retrying when another writer got there first. It writes
// nothing for a session this process does not hold (any more), or after
// Close; errMoved when the record belongs to another process or ended.
func (h *Handler) writeRecord(ctx context.Context, s *Session, change func(*SessionRecord)) error {
	for attempt := 0; attempt < 5; attempt++ {
		h.mu.Lock()
		rec, ok := h.recs[s.id]
		if h.sessions[s.id] != s || !ok || h.frozen {
			h.mu.Unlock()
			return nil
		}
		h.mu.Unlock()
		if rec.State.Ended() && s.State().Ended() {
			return nil // recorded already
		}
		if rec.Owner != h.me || rec.State.Ended() {
			return errMoved
		}
		next := rec
		change(&next)
		out, err := h.st.UpdateSession(ctx, next)
		if err == nil {
			h.setRecord(s, out)
			return nil
		}
		if errors.Is(err, ErrStateNotFound) {
			return errMoved
		}
		if !errors.Is(err, ErrStateConflict) {
			return err
		}
		cur, err := h.st.GetSession(ctx, s.id)
		if errors.Is(err, ErrStateNotFound) {
			return errMoved
		}
		if err != nil {
			return err
		}
		h.setRecord(s, cur)
	}
	return ErrStateConflict
}

// setRecord remembers rec as the record of s, if this process still
// holds s.
func (h *Handler) setRecord(s *Session, rec SessionRecord) {
	h.mu.Lock()
	if h.sessions[s.id] == s {
		h.recs[s.id] = rec
	}
	h.mu.Unlock()
}

// drop forgets s without writing its record (another process owns it,
// or it ended there) and releases its stream.
func (h *Handler) drop(s *Session) {
	h.mu.Lock()
	if h.sessions[s.id] == s {
		delete(h.sessions, s.id)
		delete(h.recs, s.id)
	}
	h.mu.Unlock()
	s.log.Info("realtime: session continues on another process or ended there; releasing its stream here")
	s.Abort(StateTerminated)
}

// endLocal ends the local copy of session id, if this process holds one,
// without writing (its record says it ended already).
func (h *Handler) endLocal(id string, state State) {
	if s := h.Session(id); s != nil {
		s.Abort(state)
	}
}

// endRecord ends session rec (a resume found it expired, or out of
// resumes): its record first, then the local copy if this process holds
// one. A write that loses a race is left to whoever won it.
func (h *Handler) endRecord(ctx context.Context, rec SessionRecord, state State) {
	now := h.cfg.Now()
	next := rec
	next.State, next.EndedAt, next.Attached = state, now, false
	next.PurgeAfter = now.Add(max(endedRetention, h.cfg.ResumeGrace))
	out, err := h.st.UpdateSession(ctx, next)
	if err != nil && !errors.Is(err, ErrStateConflict) {
		h.log.Error("realtime: recording a session's end in the session store", "session", rec.ID, "err", err)
	}
	s := h.Session(rec.ID)
	if s == nil {
		return
	}
	if err == nil {
		h.setRecord(s, out)
	}
	s.Abort(state)
}

// syncState is the janitor's periodic work with Config.State: renew the
// leases of attached sessions, check that detached ones still belong to
// this process (a resume elsewhere moves them), and retry the records of
// ended sessions that could not be written.
func (h *Handler) syncState() {
	type item struct {
		s   *Session
		rec SessionRecord
	}
	var items []item
	h.mu.Lock()
	for id, s := range h.sessions {
		items = append(items, item{s, h.recs[id]})
	}
	h.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), stateTimeout)
	defer cancel()
	for _, it := range items {
		h.mu.Lock()
		attached := it.s.attached
		h.mu.Unlock()
		ended := it.s.State().Ended()
		switch {
		case ended && it.rec.State.Ended(), ended && it.rec.Owner != h.me:
			// Recorded already, or not ours.
		case ended, attached:
			h.syncSession(it.s)
		default:
			cur, err := h.st.GetSession(ctx, it.s.id)
			if errors.Is(err, ErrStateNotFound) || err == nil && (cur.Owner != h.me || cur.State.Ended()) {
				h.drop(it.s)
			} else if err == nil {
				h.setRecord(it.s, cur)
			}
		}
	}
}

// purge deletes expired tokens and forgotten sessions from State.
func (h *Handler) purge() {
	ctx, cancel := context.WithTimeout(context.Background(), stateTimeout)
	defer cancel()
	if err := h.st.Purge(ctx, h.cfg.Now()); err != nil {
		h.log.Error("realtime: purging the session store", "err", err)
	}
}
