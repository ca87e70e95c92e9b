package transcribe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/google/uuid"

	"github.com/earshot-dev/earshot/transcribe/driver"
)

// GetJSON returns the project's transcript in its wire form (what Get
// returns, marshalled), or an error wrapping ErrNotFound: ReadJSON's
// bytes, copied.
func (s *Service) GetJSON(ctx context.Context, projectID, id string) ([]byte, error) {
	var out []byte
	err := s.ReadJSON(ctx, projectID, id, func(b []byte) { out = bytes.Clone(b) })
	return out, err
}

// ReadJSON calls write with the project's transcript in its wire form
// (what Get returns, marshalled), or returns an error wrapping
// ErrNotFound. The bytes are valid during the call alone and must not be
// modified.
//
// Every call reads the record from the Store and checks the project on
// that record. The wire form is rendered when the transcript changes and
// sealed with it; with a ReadStore, the Service keeps it opened in memory
// (readCache) and the Store's read confirms that the record is still the
// one it was opened from, so a repeated GET reads the record's metadata
// alone and decrypts and renders nothing: the bytes kept, with the status
// and webhook_status_code the Store holds now spliced in, are written as
// they are. Otherwise the sealed record is read and decrypted into a
// reused buffer.
func (s *Service) ReadJSON(ctx context.Context, projectID, id string, write func([]byte)) error {
	if uuid.Validate(id) != nil {
		return fmt.Errorf("transcript %q: %w", id, ErrNotFound)
	}
	rs, ok := s.cfg.Store.(driver.ReadStore)
	if !ok {
		rec, err := s.cfg.Store.Get(ctx, id)
		if err != nil {
			return err
		}
		if rec.ProjectID != projectID {
			return fmt.Errorf("transcript %q: %w", id, ErrNotFound)
		}
		return s.writeSealed(rec, rec.Data, write)
	}
	e := s.reads.get(id)
	var have []byte
	if e != nil {
		have = e.summary
	}
	rec, err := rs.GetUnlessSummary(ctx, id, have)
	if errors.Is(err, ErrNotFound) {
		s.reads.forget(id) // gone, in this process or another
	}
	if err != nil {
		return err
	}
	if rec.ProjectID != projectID {
		return fmt.Errorf("transcript %q: %w", id, ErrNotFound)
	}
	if rec.Data == nil {
		// The Store confirmed that its record is the one e was made
		// from (its Summary is e's).
		if e != nil && e.project == rec.ProjectID && len(have) > 0 {
			if e.pub != nil {
				writePub(e.pub, e.at, rec, write)
				return nil
			}
			return s.writeSealed(rec, e.sealed, write)
		}
		// Not one this read can use (a Store that leaves out Data
		// unasked): read it whole.
		if rec, err = rs.GetUnlessSummary(ctx, id, nil); err != nil {
			return err
		}
		if rec.ProjectID != projectID || rec.Data == nil {
			return fmt.Errorf("transcript %q: %w", id, ErrNotFound)
		}
	}
	return s.openAndKeep(rec, write)
}

// openAndKeep serves rec, read whole from the Store (its Data is the
// caller's), and keeps what it opened in the cache under rec's Summary.
func (s *Service) openAndKeep(rec *driver.Record, write func([]byte)) error {
	buf := getBuf(len(rec.Data))
	defer putBuf(buf)
	b, err := s.cipher.openTo((*buf)[:0], rec.ID, rec.Data)
	if err != nil {
		s.reads.forget(rec.ID)
		return err
	}
	*buf = b // a grown buffer goes back to the pool, cleared
	e := &readEntry{id: rec.ID, project: rec.ProjectID, summary: rec.Summary}
	if _, pub, ok := splitV2(b); ok {
		at, ok := findSplice(pub)
		if !ok {
			s.reads.forget(rec.ID)
			return s.writeSealed(rec, rec.Data, write)
		}
		// The cache gets a copy of the public part alone: the private
		// part shares the buffer and stays out of it.
		e.pub, e.at = bytes.Clone(pub), at
	} else {
		e.sealed = rec.Data
	}
	s.reads.put(e)
	if e.pub != nil {
		writePub(e.pub, e.at, rec, write)
		return nil
	}
	return s.writeSealed(rec, rec.Data, write)
}

// writePub writes pub, a version 2 record's wire form whose splice
// points are at, with the status and webhook_status_code of rec: pub as
// it is when they are the ones it has, else a copy with them spliced in.
func writePub(pub []byte, at splicePoints, rec *driver.Record, write func([]byte)) {
	code := hookCode(rec)
	if string(pub[at.sv:at.se]) == string(rec.Status) && string(pub[at.hv:at.he]) == code {
		write(pub) // unchanged since it was rendered: no copy
		return
	}
	buf := getBuf(len(pub) + 32)
	defer putBuf(buf)
	out := append((*buf)[:0], pub[:at.sv]...)
	out = append(out, rec.Status...)
	out = append(out, pub[at.se:at.hv]...)
	out = append(out, code...)
	out = append(out, pub[at.he:]...)
	*buf = out
	write(out)
}

// hookCode is webhook_status_code's value for rec.
func hookCode(rec *driver.Record) string {
	if rec.WebhookStatus != 0 && !rec.Deleted {
		return strconv.Itoa(rec.WebhookStatus)
	}
	return "null"
}

// writeSealed writes the wire form of rec with the sealed Data data,
// decrypted into a reused buffer (and, for a version 1 record or one
// findSplice cannot read, decoded and marshalled).
func (s *Service) writeSealed(rec *driver.Record, data []byte, write func([]byte)) error {
	buf := getBuf(len(data))
	defer putBuf(buf)
	b, err := s.cipher.openTo((*buf)[:0], rec.ID, data)
	if err != nil {
		return err
	}
	*buf = b // a grown buffer goes back to the pool, cleared
	if _, pub, ok := splitV2(b); ok {
		if pub == nil {
			return fmt.Errorf("transcribe: corrupt record %s", rec.ID)
		}
		if at, ok := findSplice(pub); ok {
			writePub(pub, at, rec, write)
			return nil
		}
	}
	j, err := s.unseal(&driver.Record{ID: rec.ID, ProjectID: rec.ProjectID, Status: rec.Status, Deleted: rec.Deleted,
		Created: rec.Created, Completed: rec.Completed, WebhookStatus: rec.WebhookStatus, Data: data})
	if err != nil {
		return err
	}
	out, err := json.Marshal(j.st.T.Public())
	if err != nil {
		return err
	}
	write(out)
	return nil
}

// splicePoints are where the values of status (pub[sv:se]) and
// webhook_status_code (pub[hv:he]) lie in a wire form.
type splicePoints struct{ sv, se, hv, he int }

// findSplice finds the splice points of pub. The wire form starts
// {"id":"<id>","status":"<status>", and the key "webhook_status_code"
// occurs once, at the top level near the end (inside strings a quote is
// escaped, so the raw key cannot appear there).
func findSplice(pub []byte) (splicePoints, bool) {
	const statusKey = `,"status":"`
	const hookKey = `,"webhook_status_code":`
	var at splicePoints
	i := bytes.Index(pub[:min(len(pub), 64+len(statusKey))], []byte(statusKey))
	if i < 0 || i > 64 {
		return at, false
	}
	at.sv = i + len(statusKey)
	se := bytes.IndexByte(pub[at.sv:], '"')
	// The key comes after the words and results, near the end: search
	// from there (it occurs once, so the last is the one).
	h := bytes.LastIndex(pub, []byte(hookKey))
	if se < 0 || h < at.sv {
		return at, false
	}
	at.se = at.sv + se
	at.hv = h + len(hookKey)
	at.he = at.hv
	for at.he < len(pub) && pub[at.he] != ',' && pub[at.he] != '}' {
		at.he++
	}
	return at, true
}
