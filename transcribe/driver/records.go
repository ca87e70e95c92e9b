package driver

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
// drivertest.RunIdempotencyStoreTests):
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

// LeMURRecord is one stored LeMUR answer (POST /lemur/v3/generate/...),
// kept so that GET /lemur/v3/{request_id} can return it and DELETE can
// purge it. The HTTP layer (httpapi/lemur) writes and reads them; stores
// that several processes share implement LeMURStore so that a request id
// answered by one process can be read back through another.
type LeMURRecord struct {
	ProjectID string
	// RequestID is the answer's request_id (a UUID).
	RequestID string
	// Data is the answer as the HTTP layer keeps it (sealed: the store
	// never sees transcript text in the clear).
	Data    []byte
	Created time.Time
}

// LeMURStore keeps LeMURRecords. Safe for concurrent use, and across
// processes for shared databases. Contract (checked by
// drivertest.RunLeMURStoreTests):
//
//   - PutLeMUR stores r; a record with the same RequestID is an error
//     wrapping ErrExists and is left as it was.
//   - GetLeMUR returns the record of (projectID, requestID), or an error
//     wrapping ErrNotFound when there is none: another project's record
//     is not found.
//   - DeleteLeMUR removes the record of (projectID, requestID) and reports
//     whether there was one (another project's record stays).
//   - SweepLeMUR removes the records created before before and returns
//     how many.
type LeMURStore interface {
	PutLeMUR(ctx context.Context, r *LeMURRecord) error
	GetLeMUR(ctx context.Context, projectID, requestID string) (*LeMURRecord, error)
	DeleteLeMUR(ctx context.Context, projectID, requestID string) (bool, error)
	SweepLeMUR(ctx context.Context, before time.Time) (int, error)
}
