package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// IdempotencyHeader is the request header that makes a create (POST
// /v2/transcript) or an upload (POST /v2/upload) safe to retry.
const IdempotencyHeader = "Idempotency-Key"

// IdempotencyTTL is how long an Idempotency-Key is remembered.
const IdempotencyTTL = 24 * time.Hour

// maxIdempotencyKey caps the header's length.
const maxIdempotencyKey = 255

// Kinds of idempotency records.
const (
	idemTranscript = "transcript"
	idemUpload     = "upload"
)

// idempotencyConflict is a key sent again with a different request; 422.
type idempotencyConflict struct{ what string }

func (e *idempotencyConflict) Error() string {
	return fmt.Sprintf("Idempotency-Key was already used within the last 24 hours with a different %s; send a new key for a new request", e.what)
}

// idempotencyKey reads the header: ok false when absent; a *ParamError
// when it is not 1 to 255 visible ASCII characters.
func idempotencyKey(r *http.Request) (string, bool, error) {
	vs := r.Header.Values(IdempotencyHeader)
	if len(vs) == 0 {
		return "", false, nil
	}
	k := vs[0]
	if len(vs) > 1 || k == "" || len(k) > maxIdempotencyKey {
		return "", false, &transcribe.ParamError{Field: IdempotencyHeader, Reason: fmt.Sprintf("must be sent once, 1 to %d characters", maxIdempotencyKey)}
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return "", false, &transcribe.ParamError{Field: IdempotencyHeader, Reason: "must be visible ASCII characters (a UUID, say)"}
		}
	}
	return k, true, nil
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// idempotency returns the store of idempotency records: Config.Idempotency,
// or one in this process's memory.
func (a *API) idempotency() driver.IdempotencyStore {
	if a.cfg.Idempotency != nil {
		return a.cfg.Idempotency
	}
	a.idem.once.Do(func() { a.idem.mem = newMemIdempotency() })
	return a.idem.mem
}

// sweepIdempotency removes expired records, at most once an hour per API,
// in the background.
func (a *API) sweepIdempotency() {
	now := time.Now()
	a.idem.mu.Lock()
	due := now.Sub(a.idem.swept) > time.Hour
	if due {
		a.idem.swept = now
	}
	a.idem.mu.Unlock()
	if !due {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := a.idempotency().SweepIdempotency(ctx, now.Add(-IdempotencyTTL)); err != nil {
			a.log.Warn("sweeping idempotency keys", "err", err)
		}
	}()
}

// submitOnce is Service.Submit under the request's Idempotency-Key, if
// any. The key's record reserves the transcript's id before the
// transcript exists, so a retry — in this process or another, whether the
// first request committed or not — either finds that transcript and
// answers it (as GET does now: same id, its current state) or creates it
// under that id (the store's unique id makes two racing retries create
// one). The same key with a different body is 422. It answers itself.
func (a *API) submitOnce(w http.ResponseWriter, r *http.Request, project string, req transcribe.SubmitRequest) {
	key, ok, err := idempotencyKey(r)
	if err != nil || !ok {
		if err == nil {
			var t *transcribe.Transcript
			if t, err = a.svc.Submit(r.Context(), project, req); err == nil {
				writeJSON(w, http.StatusOK, t)
				return
			}
		}
		a.writeErr(w, r, err)
		return
	}
	body, err := json.Marshal(req.Params)
	if err != nil {
		a.writeErr(w, r, err)
		return
	}
	ctx := r.Context()
	now := time.Now().UTC()
	rec, err := a.idempotency().ClaimIdempotency(ctx, &driver.IdempotencyRecord{
		ProjectID: project, Kind: idemTranscript, Key: digest([]byte(key)), RequestHash: digest(body),
		ResourceID: uuid.NewString(), Created: now,
	}, now.Add(-IdempotencyTTL))
	if err != nil {
		a.writeErr(w, r, err)
		return
	}
	a.sweepIdempotency()
	if rec.RequestHash != digest(body) {
		a.writeErr(w, r, &idempotencyConflict{what: "request body"})
		return
	}
	if a.replay(w, r, project, rec.ResourceID) {
		return
	}
	req.ID = rec.ResourceID
	t, err := a.svc.Submit(ctx, project, req)
	if err != nil {
		// Another attempt with this key may have created it meanwhile
		// (ErrExists, or its upload now in use).
		if a.replay(w, r, project, rec.ResourceID) {
			return
		}
		a.writeErr(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, t)
}

// replay answers the transcript id as GET does, when it exists.
func (a *API) replay(w http.ResponseWriter, r *http.Request, project, id string) bool {
	b, err := a.svc.GetJSON(r.Context(), project, id)
	if err != nil {
		if !errors.Is(err, transcribe.ErrNotFound) {
			a.writeErr(w, r, err)
			return true
		}
		return false
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	h.Set("Idempotent-Replayed", "true")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
	return true
}

// uploadOnce is Service.Upload under the request's Idempotency-Key, if
// any: the bytes are stored and hashed as they stream, then the key is
// claimed for this upload. When an upload of the same bytes claimed it
// first, that upload is the answer (the copy just stored is never handed
// out; nothing uses it, and the janitor deletes it after UploadTTL);
// different bytes under the key are 422.
func (a *API) uploadOnce(w http.ResponseWriter, r *http.Request, project string) (*driver.Upload, error) {
	key, ok, err := idempotencyKey(r)
	if err != nil {
		return nil, err
	}
	if !ok {
		return a.svc.Upload(r.Context(), project, a.body(w, r))
	}
	h := sha256.New()
	u, err := a.svc.Upload(r.Context(), project, io.TeeReader(a.body(w, r), h))
	if err != nil {
		return nil, err
	}
	sum := hashHex(h)
	now := time.Now().UTC()
	rec, err := a.idempotency().ClaimIdempotency(r.Context(), &driver.IdempotencyRecord{
		ProjectID: project, Kind: idemUpload, Key: digest([]byte(key)), RequestHash: sum, ResourceID: u.ID, Created: now,
	}, now.Add(-IdempotencyTTL))
	if err != nil {
		return nil, err
	}
	a.sweepIdempotency()
	if rec.RequestHash != sum {
		return nil, &idempotencyConflict{what: "file"}
	}
	if rec.ResourceID != u.ID {
		w.Header().Set("Idempotent-Replayed", "true")
		return &driver.Upload{ID: rec.ResourceID, ProjectID: project, Created: rec.Created}, nil
	}
	return u, nil
}

func hashHex(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }

// memIdempotency is the IdempotencyStore of an API without one: this
// process's memory (enough for a single process on SQLite or memory
// storage; processes sharing PostgreSQL share its store instead).
type memIdempotency struct {
	mu   sync.Mutex
	recs map[[3]string]driver.IdempotencyRecord
}

func newMemIdempotency() *memIdempotency {
	return &memIdempotency{recs: map[[3]string]driver.IdempotencyRecord{}}
}

func (m *memIdempotency) ClaimIdempotency(_ context.Context, r *driver.IdempotencyRecord, notBefore time.Time) (*driver.IdempotencyRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := [3]string{r.ProjectID, r.Kind, r.Key}
	if cur, ok := m.recs[k]; ok && !cur.Created.Before(notBefore) {
		return &cur, nil
	}
	m.recs[k] = *r
	c := *r
	return &c, nil
}

func (m *memIdempotency) DeleteIdempotency(_ context.Context, projectID, kind, key, resourceID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := [3]string{projectID, kind, key}
	if cur, ok := m.recs[k]; ok && cur.ResourceID == resourceID {
		delete(m.recs, k)
	}
	return nil
}

func (m *memIdempotency) SweepIdempotency(_ context.Context, before time.Time) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for k, r := range m.recs {
		if r.Created.Before(before) {
			delete(m.recs, k)
			n++
		}
	}
	return n, nil
}

// idemState is the API's own idempotency bookkeeping.
type idemState struct {
	once  sync.Once
	mem   *memIdempotency
	mu    sync.Mutex
	swept time.Time
}
