package transcribe

import (
	"encoding/json"
	"fmt"
	"time"
)

// state is the plaintext of Record.Data: the transcript and what only the
// Service needs to know about it. It is sealed as a whole with the content
// key, bound to the record id.
type state struct {
	T         *Transcript `json:"t"`
	UploadID  string      `json:"u,omitempty"`
	Artifacts []Artifact  `json:"f,omitempty"`
	// Engine is the name of the engine chosen at submit.
	Engine string `json:"e,omitempty"`
}

// summary is the plaintext of Record.Summary: the list fields, kept apart
// from the transcript so that a list page never unseals whole transcripts.
// Its size is bounded: audio_url is capped at submit (MaxURLBytes) and
// error reasons are the Service's own short sentences.
type summary struct {
	AudioURL string  `json:"a"`
	Error    *string `json:"e,omitempty"`
}

// summaryAAD binds a summary to its record id and keeps it apart from the
// record's Data (so neither can be swapped for the other).
func summaryAAD(id string) string { return id + "\x00summary" }

// job is an unsealed record: the Store's metadata plus the sealed state.
type job struct {
	rec *Record
	st  state
}

// seal writes st (and its list summary) into rec.
func (s *Service) seal(rec *Record, st *state) error {
	b, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("transcribe: encoding transcript %s: %w", rec.ID, err)
	}
	sum, err := json.Marshal(summary{AudioURL: st.T.AudioURL, Error: st.T.Error})
	if err != nil {
		return fmt.Errorf("transcribe: encoding transcript %s: %w", rec.ID, err)
	}
	rec.Data = s.cipher.Seal(rec.ID, b)
	rec.Summary = s.cipher.Seal(summaryAAD(rec.ID), sum)
	return nil
}

// unseal opens rec.Data and overlays the Store's metadata (status,
// deletion, times, webhook status), which is authoritative: the Store
// changes some of it (a claim sets processing) without resealing.
func (s *Service) unseal(rec *Record) (*job, error) {
	b, err := s.cipher.Open(rec.ID, rec.Data)
	if err != nil {
		return nil, err
	}
	var st state
	if err := json.Unmarshal(b, &st); err != nil || st.T == nil {
		return nil, fmt.Errorf("transcribe: corrupt record %s: %v", rec.ID, err)
	}
	t := st.T
	t.ID, t.Status, t.ProjectID, t.IsDeleted = rec.ID, rec.Status, rec.ProjectID, rec.Deleted
	t.Created, t.Completed = rec.Created, rec.Completed
	t.WebhookStatusCode = nil
	if rec.WebhookStatus != 0 && !rec.Deleted {
		c := int64(rec.WebhookStatus)
		t.WebhookStatusCode = &c
	}
	return &job{rec: rec, st: st}, nil
}

// unsealSummary opens rec.Summary.
func (s *Service) unsealSummary(rec *Record) (summary, error) {
	var sum summary
	b, err := s.cipher.Open(summaryAAD(rec.ID), rec.Summary)
	if err != nil {
		return sum, err
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		return sum, fmt.Errorf("transcribe: corrupt list entry %s: %v", rec.ID, err)
	}
	return sum, nil
}

// artifact returns the recorded artifact of a kind, if any.
func (st *state) artifact(kind string) (Artifact, bool) {
	for _, a := range st.Artifacts {
		if a.Kind == kind {
			return a, true
		}
	}
	return Artifact{}, false
}

// utcNow is the Service's clock in UTC, as stored.
func (s *Service) utcNow() time.Time { return s.now().UTC() }
