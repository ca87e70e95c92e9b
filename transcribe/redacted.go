package transcribe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/google/uuid"
)

// RedactedAudio describes a transcript's redacted audio (redact_pii_audio).
type RedactedAudio struct {
	TranscriptID string
	Format       string    // "mp3" or "wav"
	Ready        time.Time // when it was stored
	Expires      time.Time // Ready + RedactedAudioTTL
}

// RedactedAudio returns the project's transcript's redacted audio. Errors:
// ErrNotFound for an unknown transcript, a *NotReadyError when it was not
// requested, is not ready yet, or has expired.
func (s *Service) RedactedAudio(ctx context.Context, projectID, id string) (*RedactedAudio, error) {
	j, err := s.load(ctx, projectID, id)
	if err != nil {
		return nil, err
	}
	return s.redactedAudio(j)
}

func (s *Service) redactedAudio(j *job) (*RedactedAudio, error) {
	t := j.st.T
	if !isTrue(t.RedactPIIAudio) && !t.IsDeleted {
		return nil, notReady("Transcript %s was not submitted with redact_pii_audio", t.ID)
	}
	a, ok := j.st.artifact(ArtifactRedactedAudio)
	if t.IsDeleted || !ok || t.Status != StatusCompleted {
		return nil, notReady("Redacted audio of transcript %s is not ready", t.ID)
	}
	ra := &RedactedAudio{TranscriptID: t.ID, Format: a.Format, Ready: a.Created, Expires: a.Created.Add(s.cfg.RedactedAudioTTL)}
	if !s.now().Before(ra.Expires) {
		return nil, notReady("Redacted audio of transcript %s has expired (it is kept for %s)", t.ID, s.cfg.RedactedAudioTTL)
	}
	return ra, nil
}

// OpenRedactedAudio opens transcript id's redacted audio, of any project:
// the caller has authorized the request in its own way (httpapi checks a
// signed URL). Errors: ErrNotFound for an unknown or deleted transcript,
// a *NotReadyError as for RedactedAudio. Expired audio is deleted.
func (s *Service) OpenRedactedAudio(ctx context.Context, id string) (io.ReadCloser, *RedactedAudio, error) {
	if uuid.Validate(id) != nil {
		return nil, nil, fmt.Errorf("transcript %q: %w", id, ErrNotFound)
	}
	rec, err := s.cfg.Store.Get(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	if rec.Deleted {
		return nil, nil, fmt.Errorf("transcript %q: %w", id, ErrNotFound)
	}
	j, err := s.unseal(rec)
	if err != nil {
		return nil, nil, err
	}
	ra, err := s.redactedAudio(j)
	if err != nil {
		var nr *NotReadyError
		if errors.As(err, &nr) {
			if a, ok := j.st.artifact(ArtifactRedactedAudio); ok && !s.now().Before(a.Created.Add(s.cfg.RedactedAudioTTL)) {
				s.expireRedacted(ctx, j)
			}
		}
		return nil, nil, err
	}
	a, _ := j.st.artifact(ArtifactRedactedAudio)
	rc, err := s.cfg.Blobs.Open(ctx, a.Key)
	if err != nil {
		return nil, nil, err
	}
	return rc, ra, nil
}

// expireRedacted deletes expired redacted audio and forgets it.
func (s *Service) expireRedacted(ctx context.Context, j *job) {
	var keep []Artifact
	for _, a := range j.st.Artifacts {
		if a.Kind == ArtifactRedactedAudio {
			if err := s.cfg.Blobs.Delete(ctx, a.Key); err != nil {
				s.log.Error("deleting expired redacted audio", "id", j.rec.ID, "err", err)
				return
			}
			continue
		}
		keep = append(keep, a)
	}
	j.st.Artifacts = keep
	if err := s.seal(j.rec, &j.st); err == nil {
		j.rec.LeaseOwner = "" // the job is finished: no lease to respect
		if err := s.cfg.Store.Update(ctx, j.rec); err != nil {
			s.log.Warn("recording expired redacted audio", "id", j.rec.ID, "err", err)
		}
	}
}
