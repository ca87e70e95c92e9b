package transcribe

import (
	"context"
	"time"
)

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
// transcribetest.RunLeMURStoreTests):
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
