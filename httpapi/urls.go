package httpapi

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/google/uuid"
)

// URLs renders the URLs the API hands out (upload_url, resource_url,
// page_details, redacted_audio_url) on the public origin clients reach
// the server at, and parses the ones that come back. The transcribe
// Service never sees a URL of its own: this type is where the AssemblyAI
// paths live. Safe for concurrent use.
type URLs struct {
	origin string // scheme://host[:port], no trailing slash
	host   string
	key    []byte
}

// NewURLs returns the renderer for publicURL, an absolute http(s) origin
// ("https://speech.example.com"; a path is not allowed: the official Go SDK
// drops it). signingKey signs redacted-audio download URLs, which need no
// API key; every process serving one region must use the same key (the
// reference server derives it from the content key). Nil signingKey:
// a random key, so the URLs work only in this process until it stops.
func NewURLs(publicURL string, signingKey []byte) (*URLs, error) {
	u, err := url.Parse(strings.TrimRight(publicURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("httpapi: public URL %q must be an absolute http(s) URL", publicURL)
	}
	if u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("httpapi: public URL %q must be an origin only (no path, query or user): the official Go SDK drops path prefixes", publicURL)
	}
	if signingKey == nil {
		signingKey = make([]byte, 32)
		if _, err := rand.Read(signingKey); err != nil {
			return nil, err
		}
	}
	if len(signingKey) < 16 {
		return nil, errors.New("httpapi: the URL signing key must be at least 16 bytes")
	}
	k := sha256.Sum256(append([]byte("earshot redacted audio url\x00"), signingKey...))
	return &URLs{origin: u.Scheme + "://" + u.Host, host: u.Host, key: k[:]}, nil
}

// Origin returns the public origin, without a trailing slash.
func (u *URLs) Origin() string { return u.origin }

// Upload returns the upload_url of an upload id.
func (u *URLs) Upload(id string) string { return u.origin + "/v2/upload/" + id }

// UploadID returns the upload id when raw is one of this server's upload
// URLs (same host, /v2/upload/<uuid>).
func (u *URLs) UploadID(raw string) (string, bool) {
	p, err := url.Parse(raw)
	if err != nil || !strings.EqualFold(p.Host, u.host) {
		return "", false
	}
	id, ok := strings.CutPrefix(p.Path, "/v2/upload/")
	if !ok || uuid.Validate(id) != nil {
		return "", false
	}
	return id, true
}

// Transcript returns the resource_url of a transcript.
func (u *URLs) Transcript(id string) string { return u.origin + "/v2/transcript/" + id }

// TranscriptList returns the URL of a list page with query q.
func (u *URLs) TranscriptList(q url.Values) string { return u.origin + "/v2/transcript?" + q.Encode() }

// sign returns the signature of transcript id's redacted-audio URL.
func (u *URLs) sign(id string) string {
	m := hmac.New(sha256.New, u.key)
	m.Write([]byte(id))
	return hex.EncodeToString(m.Sum(nil))
}

// RedactedAudio returns the key-less, unguessable download URL of a
// transcript's redacted audio: it carries an HMAC of the transcript id.
func (u *URLs) RedactedAudio(id string) string {
	return u.origin + "/v2/redacted-audio/" + id + "/" + u.sign(id)
}

// validRedacted reports whether sig is the signature of id.
func (u *URLs) validRedacted(id, sig string) bool {
	return hmac.Equal([]byte(sig), []byte(u.sign(id)))
}
