package transcribe

import (
	"context"
	"time"
)

// IdempotencyRecord ties an Idempotency-Key a client sent with a create
// (POST /v2/transcript) or an upload to the request it first came with and
// to what that request made. The HTTP layer keeps them (httpapi); stores
// that several processes share implement IdempotencyStore so that a retry
// reaching another process gets the same answer.
type IdempotencyRecord struct {
	ProjectID string
	// Kind is what the key made: "transcript" or "upload". Keys of
	// different kinds never meet.
	Kind string
	// Key is a digest of the client's key (the key itself is not kept).
	Key string
	// RequestHash is a digest of the request the key first came with.
	RequestHash string
	// ResourceID is the transcript id (reserved before the transcript is
	// created, so a retry finds it whether or not the first request got
	// that far) or the upload id.
	ResourceID string
	Created    time.Time
}

// IdempotencyStore keeps IdempotencyRecords. Safe for concurrent use, and
// across processes for shared databases. Contract (checked by
// transcribetest.RunIdempotencyStoreTests):
//
//   - ClaimIdempotency atomically stores r unless a record of the same
//     (ProjectID, Kind, Key) created at or after notBefore exists, and
//     returns the record in force: r itself when it was stored (replacing
//     an older one), the existing record otherwise. Two concurrent claims
//     of one key return the same record.
//   - DeleteIdempotency removes the record of (projectID, kind, key) when
//     its ResourceID is resourceID; nothing otherwise; never an error for
//     an absent record.
//   - SweepIdempotency removes the records created before before and
//     returns how many.
type IdempotencyStore interface {
	ClaimIdempotency(ctx context.Context, r *IdempotencyRecord, notBefore time.Time) (*IdempotencyRecord, error)
	DeleteIdempotency(ctx context.Context, projectID, kind, key, resourceID string) error
	SweepIdempotency(ctx context.Context, before time.Time) (int, error)
}
