package transcribe

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
)

// state is the unsealed form of Record.Data: the transcript and what only
// the Service needs to know about it.
type state struct {
	T         *Transcript
	UploadID  string
	Artifacts []Artifact
	// Engine is the name of the engine chosen at submit.
	Engine string
}

// Record.Data is sealed as a whole with the content key, bound to the
// record id. Its plaintext (version 2) is
//
//	0x02 | uvarint(len(private)) | private JSON | public JSON
//
// where the public JSON is the transcript's wire form (Transcript.Public),
// rendered once when the transcript changes, so that a GET is one read,
// one decryption and one write of those bytes with the few fields the
// Store changes without resealing (status, webhook_status_code) spliced
// in (Service.GetJSON). The private part holds the request's secrets and
// the Service's bookkeeping. Version 1 (plain JSON of the whole state,
// starting with '{') is still read.
const sealV2 = 0x02

// private is what the sealed state keeps besides the public JSON.
type private struct {
	UploadID  string     `json:"u,omitempty"`
	Artifacts []Artifact `json:"f,omitempty"`
	Engine    string     `json:"e,omitempty"`
	// The request-only parameters that the wire form leaves out.
	HookValue     *string `json:"h,omitempty"`
	SafetyMinConf *int64  `json:"c,omitempty"`
}

// stateV1 is the sealed form written before version 2.
type stateV1 struct {
	T         *Transcript `json:"t"`
	UploadID  string      `json:"u,omitempty"`
	Artifacts []Artifact  `json:"f,omitempty"`
	Engine    string      `json:"e,omitempty"`
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
	pub, err := json.Marshal(st.T.Public())
	if err != nil {
		return fmt.Errorf("transcribe: encoding transcript %s: %w", rec.ID, err)
	}
	priv, err := json.Marshal(private{UploadID: st.UploadID, Artifacts: st.Artifacts, Engine: st.Engine,
		HookValue: st.T.WebhookAuthHeaderValue, SafetyMinConf: st.T.ContentSafetyConfidence})
	if err != nil {
		return fmt.Errorf("transcribe: encoding transcript %s: %w", rec.ID, err)
	}
	plain := make([]byte, 0, 1+binary.MaxVarintLen64+len(priv)+len(pub))
	plain = append(plain, sealV2)
	plain = binary.AppendUvarint(plain, uint64(len(priv)))
	plain = append(append(plain, priv...), pub...)
	sum, err := json.Marshal(summary{AudioURL: st.T.AudioURL, Error: st.T.Error})
	if err != nil {
		return fmt.Errorf("transcribe: encoding transcript %s: %w", rec.ID, err)
	}
	rec.Data = s.cipher.Seal(rec.ID, plain)
	rec.Summary = s.cipher.Seal(summaryAAD(rec.ID), sum)
	return nil
}

// open decrypts rec.Data into its private part and public JSON (nil for
// a version 1 record, whose whole state is in priv as JSON).
func (s *Service) open(rec *Record) (priv, pub []byte, err error) {
	b, err := s.cipher.Open(rec.ID, rec.Data)
	if err != nil {
		return nil, nil, err
	}
	if len(b) > 0 && b[0] == sealV2 {
		n, k := binary.Uvarint(b[1:])
		if k <= 0 || n > uint64(len(b)-1-k) {
			return nil, nil, fmt.Errorf("transcribe: corrupt record %s", rec.ID)
		}
		start := 1 + k
		return b[start : start+int(n)], b[start+int(n):], nil
	}
	return b, nil, nil
}

// unseal opens rec.Data and overlays the Store's metadata (status,
// deletion, times, webhook status), which is authoritative: the Store
// changes some of it (a claim sets processing) without resealing.
func (s *Service) unseal(rec *Record) (*job, error) {
	privJSON, pub, err := s.open(rec)
	if err != nil {
		return nil, err
	}
	var st state
	if pub == nil {
		var v1 stateV1
		if err := json.Unmarshal(privJSON, &v1); err != nil || v1.T == nil {
			return nil, fmt.Errorf("transcribe: corrupt record %s: %v", rec.ID, err)
		}
		st = state{T: v1.T, UploadID: v1.UploadID, Artifacts: v1.Artifacts, Engine: v1.Engine}
	} else {
		var p private
		t := new(Transcript)
		if err := json.Unmarshal(privJSON, &p); err != nil {
			return nil, fmt.Errorf("transcribe: corrupt record %s: %v", rec.ID, err)
		}
		if err := json.Unmarshal(pub, t); err != nil {
			return nil, fmt.Errorf("transcribe: corrupt record %s: %v", rec.ID, err)
		}
		t.WebhookAuthHeaderValue, t.ContentSafetyConfidence = p.HookValue, p.SafetyMinConf
		st = state{T: t, UploadID: p.UploadID, Artifacts: p.Artifacts, Engine: p.Engine}
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

// GetJSON returns the project's transcript in its wire form (what Get
// returns, marshalled), or an error wrapping ErrNotFound. It costs one
// Store read, one decryption and a copy of the bytes rendered when the
// transcript last changed, with the status and webhook_status_code the
// Store holds now spliced in: nothing is decoded or re-encoded.
func (s *Service) GetJSON(ctx context.Context, projectID, id string) ([]byte, error) {
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
	_, pub, err := s.open(rec)
	if err != nil {
		return nil, err
	}
	if pub != nil {
		if out, ok := splice(pub, rec); ok {
			return out, nil
		}
	}
	j, err := s.unseal(rec) // a version 1 record
	if err != nil {
		return nil, err
	}
	return json.Marshal(j.st.T.Public())
}

// splice returns pub with the status and webhook_status_code of rec. The
// wire form starts {"id":"<id>","status":"<status>", and the key
// "webhook_status_code" occurs once, at the top level (inside strings a
// quote is escaped, so the raw key cannot appear there).
func splice(pub []byte, rec *Record) ([]byte, bool) {
	const statusKey = `,"status":"`
	const hookKey = `,"webhook_status_code":`
	i := bytes.Index(pub, []byte(statusKey))
	if i < 0 || i > 64 {
		return nil, false
	}
	sv := i + len(statusKey)
	se := bytes.IndexByte(pub[sv:], '"')
	h := bytes.Index(pub, []byte(hookKey))
	if se < 0 || h < sv {
		return nil, false
	}
	se += sv
	hv := h + len(hookKey)
	he := hv
	for he < len(pub) && pub[he] != ',' && pub[he] != '}' {
		he++
	}
	code := "null"
	if rec.WebhookStatus != 0 && !rec.Deleted {
		code = strconv.Itoa(rec.WebhookStatus)
	}
	out := make([]byte, 0, len(pub)+16)
	out = append(out, pub[:sv]...)
	out = append(out, rec.Status...)
	out = append(out, pub[se:hv]...)
	out = append(out, code...)
	out = append(out, pub[he:]...)
	return out, true
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
