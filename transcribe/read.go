package transcribe

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// Get returns the project's transcript, or an error wrapping ErrNotFound
// (also for another project's transcript).
func (s *Service) Get(ctx context.Context, projectID, id string) (*Transcript, error) {
	j, err := s.load(ctx, projectID, id)
	if err != nil {
		return nil, err
	}
	return j.st.T.Public(), nil
}

// load reads and unseals the project's record id.
func (s *Service) load(ctx context.Context, projectID, id string) (*job, error) {
	if uuid.Validate(id) != nil {
		return nil, fmt.Errorf("transcript %q: %w", id, ErrNotFound)
	}
	rec, err := s.cfg.Store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if rec.ProjectID != projectID {
		return nil, fmt.Errorf("transcript %q: %w", id, ErrNotFound)
	}
	return s.unseal(rec)
}

// GetCompleted returns the project's transcript if it is completed and not
// deleted: an error wrapping ErrNotFound, or a *NotReadyError, otherwise.
// Export endpoints use it.
func (s *Service) GetCompleted(ctx context.Context, projectID, id string) (*Transcript, error) {
	t, err := s.Get(ctx, projectID, id)
	if err != nil {
		return nil, err
	}
	if t.IsDeleted {
		return nil, notReady("Transcript %s was deleted", id)
	}
	if t.Status != StatusCompleted {
		return nil, notReady("Transcript %s is %s; exports need a completed transcript", id, t.Status)
	}
	return t, nil
}

// Delete removes the transcript's content, its upload and its artifacts,
// marks it deleted, and returns the deleted form. A job still running
// finds its lease gone and discards its result; a transcript that had not
// finished ends in error so pollers stop.
func (s *Service) Delete(ctx context.Context, projectID, id string) (*Transcript, error) {
	j, err := s.load(ctx, projectID, id)
	if err != nil {
		return nil, err
	}
	t := j.st.T
	uploadID, artifacts := j.st.UploadID, j.st.Artifacts
	t.ClearContent()
	if !t.Status.Final() {
		if err := transition(j.rec, t, StatusError); err != nil {
			return nil, err
		}
		reason := DeletedText
		t.Error = &reason
		t.Completed = s.utcNow()
		j.rec.Completed = t.Completed
	}
	// The sealed state keeps nothing but the deleted form: no upload, no
	// artifacts (they are removed below).
	j.st = state{T: t}
	if err := s.seal(j.rec, &j.st); err != nil {
		return nil, err
	}
	j.rec.Deleted = true
	j.rec.LeaseOwner, j.rec.LeaseUntil = "", time.Time{}
	if err := s.cfg.Store.Update(ctx, j.rec); err != nil {
		return nil, err
	}
	s.reads.forget(id)
	bg := context.WithoutCancel(ctx)
	if uploadID != "" {
		s.removeUpload(bg, uploadID)
	}
	s.dropArtifacts(bg, id, artifacts)
	s.log.Info("transcript deleted", "id", id, "project", projectID)
	return t.Public(), nil
}

// dropArtifacts deletes the recorded artifacts of transcript id.
func (s *Service) dropArtifacts(ctx context.Context, id string, as []Artifact) {
	for _, a := range as {
		if err := s.cfg.Blobs.Delete(ctx, a.Key); err != nil {
			s.log.Error("deleting artifact", "id", id, "kind", a.Kind, "err", err)
		}
	}
}
