package transcribe

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/earshot-dev/earshot/transcribe/driver"
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
func summaryAAD(id string) string { return id + summaryAADSuffix }

const summaryAADSuffix = "\x00summary"

// job is an unsealed record: the Store's metadata plus the sealed state.
type job struct {
	rec *driver.Record
	st  state
}

// seal writes st (and its list summary) into rec.
func (s *Service) seal(rec *driver.Record, st *state) error {
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
	sum := summary{AudioURL: st.T.AudioURL, Error: st.T.Error}.encode()
	rec.Data = s.cipher.Seal(rec.ID, plain)
	rec.Summary = s.cipher.Seal(summaryAAD(rec.ID), sum)
	return nil
}

// open decrypts rec.Data into its private part and public JSON (nil for
// a version 1 record, whose whole state is in priv as JSON).
func (s *Service) open(rec *driver.Record) (priv, pub []byte, err error) {
	b, err := s.cipher.Open(rec.ID, rec.Data)
	if err != nil {
		return nil, nil, err
	}
	if priv, pub, ok := splitV2(b); ok {
		if pub == nil {
			return nil, nil, fmt.Errorf("transcribe: corrupt record %s", rec.ID)
		}
		return priv, pub, nil
	}
	return b, nil, nil
}

// splitV2 splits the plaintext of a version 2 record into its private
// part and public JSON; ok is false for another version, pub nil for a
// corrupt version 2 record.
func splitV2(b []byte) (priv, pub []byte, ok bool) {
	if len(b) == 0 || b[0] != sealV2 {
		return nil, nil, false
	}
	n, k := binary.Uvarint(b[1:])
	if k <= 0 || n > uint64(len(b)-1-k) {
		return nil, nil, true
	}
	start := 1 + k
	return b[start : start+int(n)], b[start+int(n):], true
}

// unseal opens rec.Data and overlays the Store's metadata (status,
// deletion, times, webhook status), which is authoritative: the Store
// changes some of it (a claim sets processing) without resealing.
func (s *Service) unseal(rec *driver.Record) (*job, error) {
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

// summaryBufs are the buffers a list page opens its summaries with,
// reused from one entry to the next.
type summaryBufs struct{ plain, aad []byte }

// unsealSummaryTo opens rec.Summary with bufs. The summary's strings do
// not share them.
func (s *Service) unsealSummaryTo(bufs *summaryBufs, rec *driver.Record) (summary, error) {
	var sum summary
	bufs.aad = append(append(bufs.aad[:0], rec.ID...), summaryAADSuffix...)
	b, err := s.cipher.openAAD(bufs.plain[:0], rec.ID, bufs.aad, rec.Summary)
	if err != nil {
		return sum, err
	}
	bufs.plain = b
	if err := sum.decode(b); err != nil {
		return sum, fmt.Errorf("transcribe: corrupt list entry %s: %v", rec.ID, err)
	}
	return sum, nil
}

// summaryV1 marks the binary form of a summary: the byte, the uvarint
// length of audio_url and its bytes, then 0 (no error) or 1 followed by
// the uvarint length of error and its bytes. A list page decodes one per
// entry, so it is read without a JSON parser; summaries written before it
// are JSON objects (starting with '{') and still read.
const summaryV1 = 0x01

func (m summary) encode() []byte {
	b := make([]byte, 0, 4+len(m.AudioURL)+binary.MaxVarintLen64)
	b = append(b, summaryV1)
	b = binary.AppendUvarint(b, uint64(len(m.AudioURL)))
	b = append(b, m.AudioURL...)
	if m.Error == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	b = binary.AppendUvarint(b, uint64(len(*m.Error)))
	return append(b, *m.Error...)
}

func (m *summary) decode(b []byte) error {
	if len(b) > 0 && b[0] == '{' {
		return json.Unmarshal(b, m)
	}
	if len(b) == 0 || b[0] != summaryV1 {
		return errors.New("unknown summary version")
	}
	b = b[1:]
	str := func() (string, bool) {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return "", false
		}
		v := string(b[k : k+int(n)])
		b = b[k+int(n):]
		return v, true
	}
	u, ok := str()
	if !ok || len(b) == 0 {
		return errors.New("truncated summary")
	}
	m.AudioURL = u
	switch b[0] {
	case 0:
		m.Error = nil
		b = b[1:]
	case 1:
		b = b[1:]
		e, ok := str()
		if !ok {
			return errors.New("truncated summary")
		}
		m.Error = &e
	default:
		return errors.New("corrupt summary")
	}
	if len(b) != 0 {
		return errors.New("trailing bytes in summary")
	}
	return nil
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
