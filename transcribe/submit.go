package transcribe

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/earshot-dev/earshot/transcribe/driver"
)

// SubmitRequest is what Submit takes: the request parameters and where the
// media comes from.
type SubmitRequest struct {
	// Params are the request's parameters (POST /v2/transcript).
	Params TranscriptParams
	// UploadID names an upload of the project (from Upload) as the media.
	// Params.AudioURL is then not fetched, only echoed (it may be empty).
	// Empty: Params.AudioURL is required and fetched.
	UploadID string
	// ID, when set, is the new transcript's id (a UUID the caller reserved,
	// as httpapi does for an Idempotency-Key); a transcript with that id
	// already existing is an error wrapping ErrExists, and nothing is
	// changed. Empty: a new random id.
	ID string
}

// Submit validates req, creates a queued transcript for project and wakes a
// worker. Errors: *ParamError for a broken rule (including an upload that
// does not exist or that another transcript already uses), ErrForbidden
// when the upload is another project's.
func (s *Service) Submit(ctx context.Context, projectID string, req SubmitRequest) (*Transcript, error) {
	p := req.Params
	if req.UploadID == "" {
		if err := p.Validate(); err != nil {
			return nil, err
		}
		if s.cfg.CheckURL != nil {
			if err := s.cfg.CheckURL(p.AudioURL); err != nil {
				return nil, &ParamError{Field: "audio_url", Reason: err.Error()}
			}
		}
	} else if err := p.validateOptions(); err != nil {
		return nil, err
	}
	if p.WebhookURL != nil && s.cfg.CheckURL != nil {
		if err := s.cfg.CheckURL(*p.WebhookURL); err != nil {
			return nil, &ParamError{Field: "webhook_url", Reason: err.Error()}
		}
	}
	p.Normalize()
	eng, err := s.engines.choose(&p)
	if err != nil {
		return nil, err
	}
	if p.SpeechModel == nil {
		// Echo the effective model in the API's own names (the engine
		// that runs is speech_model_used).
		name := s.engines.echoModel(&p, eng)
		p.SpeechModel = &name
	}
	t := &Transcript{
		ID:               cmp.Or(req.ID, uuid.NewString()),
		Status:           StatusQueued,
		TranscriptParams: p,
		ProjectID:        projectID,
		LanguageModel:    "assemblyai_default",
		AcousticModel:    "assemblyai_default",
		Created:          s.utcNow(),
	}
	t.WebhookAuth = p.WebhookAuthHeaderName != nil
	if ws := p.Warnings(); len(ws) > 0 {
		t.Metadata = &Metadata{Warnings: ws}
	}
	for _, st := range s.cfg.Stages {
		if ps, ok := st.(PendingStage); ok && st.Enabled(&t.TranscriptParams) {
			ps.Pending(t)
		}
	}
	j := &job{rec: &driver.Record{ID: t.ID, ProjectID: projectID, Status: StatusQueued, Created: t.Created}, st: state{T: t, Engine: eng.Name}}
	if req.UploadID != "" {
		if err := s.attachUpload(ctx, projectID, req.UploadID, t.ID); err != nil {
			return nil, err
		}
		j.st.UploadID = req.UploadID
	}
	if err := s.seal(j.rec, &j.st); err != nil {
		return nil, err
	}
	if err := s.cfg.Store.Create(ctx, j.rec); err != nil {
		if req.UploadID != "" && !errors.Is(err, ErrExists) {
			// Unused again: let it expire normally. (ErrExists: the
			// transcript of a reserved id exists and keeps the upload.)
			if derr := s.cfg.Uploads.AttachUpload(context.WithoutCancel(ctx), req.UploadID, ""); derr != nil && !errors.Is(derr, ErrNotFound) {
				s.log.ErrorContext(ctx, "detaching upload", "upload_id", req.UploadID, "err", derr)
			}
		}
		return nil, fmt.Errorf("transcribe: creating transcript: %w", err)
	}
	// InfoContext: a logging handler may add what ctx carries (the
	// request id of the HTTP request that submitted the job).
	s.log.InfoContext(ctx, "transcript queued", "id", t.ID, "project", projectID, "engine", eng.Name)
	if s.cfg.OnJob != nil {
		s.cfg.OnJob(JobEvent{Kind: JobSubmitted, ID: t.ID, Engine: eng.Name})
	}
	s.signal()
	return t.Public(), nil
}

// attachUpload checks that upload id exists and belongs to project, and
// marks it as used by transcript before the transcript exists, so the
// janitor never expires the media of a queued job.
func (s *Service) attachUpload(ctx context.Context, projectID, uploadID, transcriptID string) error {
	gone := &ParamError{Field: "audio_url", Reason: "the uploaded file does not exist, has expired, or was already transcribed and deleted; upload it again"}
	if uuid.Validate(uploadID) != nil {
		return gone
	}
	u, err := s.cfg.Uploads.GetUpload(ctx, uploadID)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return gone
		}
		return fmt.Errorf("transcribe: reading upload: %w", err)
	}
	if u.ProjectID != projectID {
		return ErrForbidden
	}
	if err := s.cfg.Uploads.AttachUpload(ctx, uploadID, transcriptID); err != nil {
		switch {
		case errors.Is(err, ErrNotFound):
			return gone
		case errors.Is(err, ErrExists):
			return &ParamError{Field: "audio_url", Reason: "this upload_url is already used by another transcript; an uploaded file is transcribed once and then deleted, so upload it again"}
		}
		return fmt.Errorf("transcribe: attaching upload: %w", err)
	}
	return nil
}
