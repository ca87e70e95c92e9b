package transcribe

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path"
	"time"
)

// RedactedAudioKey returns the blob key for a transcript's redacted audio
// in the given format ("mp3" or "wav"). Stages that produce redacted audio
// store it under this key and set Transcript.RedactedKey to it.
func RedactedAudioKey(id, format string) string { return "redacted/" + id + "." + format }

// sign returns an unguessable signature for a redacted-audio URL, an
// HMAC-SHA256 of the id under a key derived from the content key.
func (s *Service) sign(id string) string {
	k := sha256.Sum256(append([]byte("earshot redacted audio url\x00"), s.cfg.Key...))
	m := hmac.New(sha256.New, k[:])
	m.Write([]byte(id))
	return hex.EncodeToString(m.Sum(nil))
}

// RedactedAudioURL returns the public, key-less download URL of a
// transcript's redacted audio. It is unguessable: it carries an HMAC of the
// transcript id.
func (s *Service) RedactedAudioURL(id string) string {
	return s.cfg.PublicURL + "/v2/redacted-audio/" + id + "/" + s.sign(id)
}

// OpenRedactedAudio opens the redacted audio for a signed URL. It returns
// ErrNotFound for a bad signature, an unknown or deleted transcript, or a
// file older than ttl (which it then deletes).
func (s *Service) OpenRedactedAudio(ctx context.Context, id, sig string, ttl time.Duration) (io.ReadCloser, string, error) {
	if !hmac.Equal([]byte(sig), []byte(s.sign(id))) {
		return nil, "", ErrNotFound
	}
	r, err := s.cfg.Store.Get(ctx, id)
	if err != nil {
		return nil, "", err
	}
	t, attempts, err := s.unseal(r)
	if err != nil {
		return nil, "", err
	}
	if t.IsDeleted || t.RedactedKey == "" {
		return nil, "", ErrNotFound
	}
	if s.now().Sub(t.RedactedTime) > ttl {
		if err := s.cfg.Blobs.Delete(ctx, t.RedactedKey); err != nil {
			return nil, "", err
		}
		t.RedactedKey = ""
		if data, err := s.seal(t, attempts); err == nil {
			r.Data = data
			_ = s.cfg.Store.Update(ctx, r)
		}
		return nil, "", fmt.Errorf("redacted audio expired: %w", ErrNotFound)
	}
	rc, err := s.cfg.Blobs.Open(ctx, t.RedactedKey)
	if err != nil {
		return nil, "", err
	}
	return rc, "redacted-" + path.Base(t.RedactedKey), nil
}
