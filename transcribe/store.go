package transcribe

import (
	"context"
	"io"
	"time"
)

// Record is what a Store keeps for one transcript. The Service seals the
// transcript's content (text, words, results, parameters, URLs) into Data
// with AES-GCM before it reaches the Store, so a Store never sees plaintext
// content and every Store adapter gets encryption at rest for free. The
// other fields are metadata the Store needs for listing and job claiming.
type Record struct {
	ID        string
	ProjectID string
	Status    Status
	Deleted   bool
	Created   time.Time // set by the Service
	Completed time.Time // zero until completed or error
	// Seq is a per-store, strictly increasing creation order assigned by
	// Create; List orders and pages by it.
	Seq int64
	// LeaseOwner and LeaseUntil describe the worker processing the job.
	LeaseOwner string
	LeaseUntil time.Time
	// Data is the sealed transcript; opaque to the Store.
	Data []byte
}

// ListQuery selects records for List. Zero fields do not filter.
type ListQuery struct {
	ProjectID      string    // required: only this project's records
	Limit          int       // maximum records returned; the Store returns at most Limit
	Status         Status    // only this status
	CreatedFrom    time.Time // created at or after (inclusive)
	CreatedBefore  time.Time // created strictly before
	BeforeSeq      int64     // only Seq < BeforeSeq (older)
	AfterSeq       int64     // only Seq > AfterSeq (newer); the oldest such come first, then are returned newest first
	IncludeDeleted bool
}

// Upload is an uploaded media file awaiting transcription.
type Upload struct {
	ID        string
	ProjectID string
	Size      int64
	Created   time.Time
	// TranscriptID is the transcript that uses the upload, set by
	// AttachUpload when a transcript is submitted with it; empty while no
	// transcript uses it. Only unattached uploads expire.
	TranscriptID string
}

// Delivery is a pending notification (webhook) kept durably so that it
// survives restarts. Data is sealed by the caller and opaque to the Store.
type Delivery struct {
	ID           string
	TranscriptID string
	Attempts     int
	NextAttempt  time.Time
	Done         bool
	LeaseOwner   string
	LeaseUntil   time.Time
	Data         []byte
}

// Store persists transcript records, uploads and deliveries. Methods are
// safe for concurrent use by several goroutines and, for shared databases,
// several processes. Contract (checked by transcribetest.RunStoreTests):
//
//   - Create inserts r, assigns r.Seq, and returns an error wrapping
//     ErrExists when r.ID is taken.
//   - Get returns an error wrapping ErrNotFound for an unknown id. It does
//     not filter by project; callers check ProjectID.
//   - Update replaces the record with r.ID (all fields but Seq and Created);
//     ErrNotFound when absent. When r.LeaseOwner is non-empty the update
//     succeeds only if the stored lease owner is the same, else it returns
//     an error wrapping ErrLeaseLost.
//   - List returns up to q.Limit records of q.ProjectID matching q, newest
//     (highest Seq) first, never deleted ones unless q.IncludeDeleted.
//   - ClaimJob atomically picks the oldest (lowest Seq) record that is queued, or
//     processing with LeaseUntil before now, sets it to processing with the
//     given owner and lease, and returns it; ErrNoJob when there is none.
//     Deleted records are never claimed. Two concurrent claims never return
//     the same record while its lease holds.
//   - ExtendLease moves LeaseUntil of a record still leased by owner; an
//     error wrapping ErrLeaseLost otherwise (ErrNotFound or ErrLeaseLost
//     for an absent id).
//   - SeqOf returns the Seq of id within project, ErrNotFound otherwise.
//   - CreateUpload/GetUpload/DeleteUpload keep upload ownership; a
//     duplicate CreateUpload returns an error wrapping ErrExists; GetUpload
//     returns ErrNotFound for unknown ids; DeleteUpload of an absent id is nil.
//   - AttachUpload sets the TranscriptID of upload uploadID (replacing any
//     previous one); ErrNotFound when the upload is absent.
//   - ExpiredUploads returns the uploads with an empty TranscriptID created
//     strictly before createdBefore, oldest (earliest Created) first, ties
//     by smaller id, at most limit of them (limit <= 0: all). Deleted
//     uploads are never returned.
//   - AddDelivery, ClaimDelivery, UpdateDelivery work like Create, ClaimJob
//     and Update for deliveries: ClaimDelivery returns the not-done delivery
//     with the earliest NextAttempt <= now (ties: smaller id) whose lease
//     is free (no owner) or expired (LeaseUntil before now).
//   - Seq may have gaps (a failed Create may use a number up). List with
//     Limit <= 0 returns every match. Times are kept to at least the
//     microsecond.
//   - Close releases resources.
type Store interface {
	Create(ctx context.Context, r *Record) error
	Get(ctx context.Context, id string) (*Record, error)
	Update(ctx context.Context, r *Record) error
	List(ctx context.Context, q ListQuery) ([]*Record, error)
	SeqOf(ctx context.Context, projectID, id string) (int64, error)
	ClaimJob(ctx context.Context, owner string, now time.Time, lease time.Duration) (*Record, error)
	ExtendLease(ctx context.Context, id, owner string, until time.Time) error

	CreateUpload(ctx context.Context, u *Upload) error
	GetUpload(ctx context.Context, id string) (*Upload, error)
	DeleteUpload(ctx context.Context, id string) error
	AttachUpload(ctx context.Context, uploadID, transcriptID string) error
	ExpiredUploads(ctx context.Context, createdBefore time.Time, limit int) ([]*Upload, error)

	AddDelivery(ctx context.Context, d *Delivery) error
	ClaimDelivery(ctx context.Context, owner string, now time.Time, lease time.Duration) (*Delivery, error)
	UpdateDelivery(ctx context.Context, d *Delivery) error

	Close() error
}

// BlobStore keeps media bytes (uploads, redacted audio). Keys are
// slash-separated relative names made by the Service ("uploads/<id>").
// Contract (transcribetest.RunBlobStoreTests):
//
//   - Put stores all of r under key, replacing any previous content, and
//     returns the byte count. It must stream: a Put of a file larger than
//     memory must work. A failed Put leaves no partial blob under key.
//   - Open returns an error wrapping ErrNotFound for a missing key.
//   - Delete removes key; deleting a missing key returns nil.
//   - Methods are safe for concurrent use.
type BlobStore interface {
	Put(ctx context.Context, key string, r io.Reader) (int64, error)
	Open(ctx context.Context, key string) (io.ReadCloser, error)
	Delete(ctx context.Context, key string) error
}

// FileBlobStore is an optional extension of BlobStore for stores that keep
// blobs as local files: Path returns the file's path so a decoder can read
// it in place. ErrNotFound for a missing key.
type FileBlobStore interface {
	BlobStore
	Path(key string) (string, error)
}
