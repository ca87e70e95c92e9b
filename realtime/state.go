package realtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"time"
)

// StateStore keeps the realtime state that every process serving one
// region shares: temporary tokens and the records of sessions (who holds
// each one, where its audio stands, whether it ended). Handlers of
// several processes on one StateStore behave as one server: a token
// minted on one process starts a session on another, and a session
// dropped on one process resumes on another (Config.State).
//
// The store keeps data and does compare-and-swap; the policy (grace,
// expiry, resume limits, leases) is the Handler's. Implementations:
// MemoryState (one process; the default) and storage/postgres
// (Store.Realtime, any number of processes). The conformance suite is
// realtime/realtimetest.RunStateStoreTests.
//
// Times are stored to the microsecond at least and come back in UTC;
// the zero time comes back as the zero time. Implementations must be
// safe for concurrent use, by several goroutines and, for shared stores,
// several processes.
type StateStore interface {
	// AddToken records t, an unused temporary token (t.Session must be
	// ""). It fails with an error wrapping ErrTooManyTokens when the
	// project of t already holds max tokens that are unused and expire
	// after now (the check and the insert are one step: concurrent adds
	// never overshoot by more than the adds in flight). A token whose
	// Hash exists already fails with ErrStateExists.
	AddToken(ctx context.Context, t TokenRecord, now time.Time, max int) error

	// Token returns the token with hash, used or not, expired or not,
	// until Purge removes it; an unknown hash gives an error wrapping
	// ErrStateNotFound.
	Token(ctx context.Context, hash string) (TokenRecord, error)

	// CreateSession stores a new session record with Version 1. When
	// rec.TokenHash is set, the token with that hash is marked used by
	// rec.ID in the same atomic step, and nothing is stored unless the
	// token exists and is unused (else an error wrapping ErrTokenUsed).
	// An existing rec.ID fails with ErrStateExists (the token stays
	// unused).
	CreateSession(ctx context.Context, rec SessionRecord) error

	// GetSession returns the session record with id, or an error
	// wrapping ErrStateNotFound.
	GetSession(ctx context.Context, id string) (SessionRecord, error)

	// UpdateSession stores the mutable fields of rec (State, Owner,
	// Attached, LeaseUntil, DetachedAt, AudioSamples, SilenceThreshold,
	// Resumes, EndedAt, PurgeAfter) if the stored record's Version equals
	// rec.Version, and returns the stored record with Version+1. The other
	// fields never change after CreateSession. A different stored
	// Version fails with an error wrapping ErrStateConflict (the caller
	// reads again and decides again), an unknown id with ErrStateNotFound.
	UpdateSession(ctx context.Context, rec SessionRecord) (SessionRecord, error)

	// Purge deletes the sessions whose PurgeAfter is before now, the
	// unused tokens whose Expires is before now, and the used tokens whose
	// session is gone.
	Purge(ctx context.Context, now time.Time) error
}

// TokenRecord is a temporary token as a StateStore keeps it. The token
// itself is never stored: only its SHA-256 (TokenHash), so a copy of the
// store cannot be used to open sessions.
type TokenRecord struct {
	Hash    string    // TokenHash of the token
	Project string    // the project that minted it
	Expires time.Time // when it stops starting sessions
	Session string    // the session it started; "" while unused
}

// SessionRecord is a session as a StateStore keeps it.
type SessionRecord struct {
	ID        string
	Project   string
	TokenHash string // the token that started it; "" for an API key
	// Options are the session's options (ProjectID is Project).
	Options   SessionOptions
	Started   time.Time
	ExpiresAt time.Time

	// State is StateBegins or StateStreaming while the session lives,
	// StateTerminated or StateExpired once it ended.
	State State
	// Owner is the process (Config.ProcessID) that holds the session's
	// recognizer stream, or held it last.
	Owner string
	// Attached: a WebSocket of Owner serves the session, and Owner
	// renews LeaseUntil while it does. A record that says attached after
	// LeaseUntil belongs to a process that died: the session counts as
	// detached since LeaseUntil.
	Attached   bool
	LeaseUntil time.Time
	// DetachedAt is when the last connection dropped (Attached false).
	DetachedAt time.Time
	// AudioSamples is the audio received so far, in samples at the
	// client's sample rate, as of the last write by Owner: a session
	// resumed on another process continues its times from there.
	AudioSamples int64
	// SilenceThreshold is the end_utterance_silence_threshold in force.
	SilenceThreshold time.Duration
	// Resumes counts the resumes so far (Config.MaxResumes).
	Resumes int
	// EndedAt is when State became terminated or expired.
	EndedAt time.Time
	// PurgeAfter is when the store may forget the record (Purge); a
	// resume after it finds no session (4004).
	PurgeAfter time.Time

	// Version is the record's version, 1 at creation, incremented by
	// every UpdateSession.
	Version int64
}

// Errors of StateStore implementations (ErrTooManyTokens is the other).
var (
	// ErrStateNotFound: no token or session with that key.
	ErrStateNotFound = errors.New("realtime: state not found")
	// ErrStateExists: a token hash or session id that is already stored.
	ErrStateExists = errors.New("realtime: state already exists")
	// ErrStateConflict: UpdateSession's Version is not the stored one.
	ErrStateConflict = errors.New("realtime: session record changed meanwhile")
	// ErrTokenUsed: CreateSession's token is unknown or already used.
	ErrTokenUsed = errors.New("realtime: temporary token unknown or already used")
)

// TokenHash returns the hash under which a StateStore keeps a temporary
// token: hex SHA-256 of the token.
func TokenHash(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}
