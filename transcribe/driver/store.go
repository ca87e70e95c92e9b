package driver

import (
	"context"
	"io"
	"time"

	"github.com/earshot-dev/earshot/transcribe/queue"
)

// Record is what a Store keeps for one transcript. The Service seals the
// transcript's content (text, words, results, parameters, URLs) with
// AES-GCM before it reaches the Store, so a Store never sees plaintext
// content and every Store adapter gets encryption at rest for free. The
// other fields are metadata the Store needs for listing, job claiming and
// bookkeeping; none of them is secret.
type Record struct {
	ID        string
	ProjectID string
	Status    Status
	Deleted   bool
	Created   time.Time // set by the Service
	Completed time.Time // zero until completed or error
	// Seq is a per-store, strictly increasing creation order assigned by
	// Create (it may have gaps); List orders by it.
	Seq int64
	// LeaseOwner and LeaseUntil describe the worker processing the job.
	LeaseOwner string
	LeaseUntil time.Time
	// Claims counts how often ClaimJob handed the record out; only
	// ClaimJob changes it (Update leaves it alone).
	Claims int
	// Failures counts the attempts the job itself caused to fail (it
	// crashed the speech engine); set by the Service through Update.
	Failures int
	// WebhookStatus is the HTTP status of the last webhook attempt (0:
	// none); only SetWebhookStatus changes it (Update leaves it alone).
	WebhookStatus int
	// NotifyPending marks a final record whose notifications (webhooks)
	// have not all been handed to the Notifier yet: the outbox. The
	// Service sets it in the same Update that stores the final result, so
	// the result and the promise of its webhook are one write; it clears it
	// with ClearNotifyPending once the Notifier has them, and re-sends
	// what ListNotifyPending finds still set (a process killed between
	// the two, a store down past the worker's retries). Only final records
	// (completed, error) carry it.
	NotifyPending bool
	// Summary is the sealed list entry (audio_url, error): small and of
	// bounded size, so a list page costs the same whatever the
	// transcripts hold. Opaque to the Store.
	Summary []byte
	// Data is the sealed transcript; opaque to the Store. List does not
	// return it.
	Data []byte
}

// ListQuery selects records for List. Zero fields do not filter.
type ListQuery struct {
	ProjectID     string    // required: only this project's records
	Limit         int       // at most this many records; <= 0: all matches
	Status        Status    // only this status
	CreatedFrom   time.Time // created at or after (inclusive)
	CreatedBefore time.Time // created strictly before
	// BeforeID: only records older (lower Seq) than this record of the
	// project. AfterID: only records newer than it; then the Limit oldest
	// of them are selected, and returned newest first like any page. An id
	// that is not one of the project's records gives an error wrapping
	// ErrNotFound.
	BeforeID       string
	AfterID        string
	IncludeDeleted bool
}

// Claim identifies a worker claiming work at Now for Lease (the leased
// queue's claim, shared with webhook deliveries).
type Claim = queue.Claim

// Lease moves the lease of record ID, held by Owner, to Until.
type Lease = queue.Lease

// Store persists transcript records and hands out jobs. Methods are safe
// for concurrent use by several goroutines and, for shared databases,
// several processes. Records and slices a Store returns are the caller's:
// the Store keeps no reference to them (the Service decrypts a record's
// Data where it lies). Contract (checked by drivertest.RunStoreTests):
//
//   - Create inserts r, assigns r.Seq, and returns an error wrapping
//     ErrExists when r.ID is taken.
//   - Get returns the whole record (Data included), or an error wrapping
//     ErrNotFound for an unknown id. It does not filter by project;
//     callers check ProjectID.
//   - Update replaces the record with r.ID: Status, Deleted, Completed,
//     LeaseOwner, LeaseUntil, Failures, NotifyPending, Summary and Data
//     in one atomic write (never Seq,
//     Created, ProjectID, Claims or WebhookStatus); ErrNotFound when
//     absent. When r.LeaseOwner is non-empty the update succeeds only if
//     the stored lease owner is the same, else it returns an error
//     wrapping ErrLeaseLost.
//   - List returns up to q.Limit records of q.ProjectID matching q, newest
//     (highest Seq) first, never deleted ones unless q.IncludeDeleted,
//     without Data (nil); every other field is filled.
//   - ClaimJob atomically picks the oldest (lowest Seq) record that is
//     queued, or processing with LeaseUntil before c.Now, sets it to
//     processing with owner c.Owner and LeaseUntil c.Now+c.Lease,
//     increments Claims, and returns it (Data included); an error
//     wrapping ErrNoJob when there is none. Deleted records are never
//     claimed. Two concurrent claims never return the same record while
//     its lease holds.
//   - ExtendLease moves LeaseUntil of record l.ID if it is still leased by
//     l.Owner; an error wrapping ErrLeaseLost otherwise (ErrNotFound or
//     ErrLeaseLost for an absent id).
//   - SetWebhookStatus sets WebhookStatus of record id without touching
//     anything else (no lease check); ErrNotFound when absent.
//   - ListNotifyPending returns up to limit records (<= 0: all) with
//     NotifyPending set and Completed before completedBefore, earliest
//     Completed first (ties: lower Seq), Data included; deleted ones too.
//   - ClearNotifyPending clears NotifyPending of record id without
//     touching anything else (no lease check); ErrNotFound when absent.
//   - Times are kept to at least the microsecond. Close releases
//     resources.
type Store interface {
	Create(ctx context.Context, r *Record) error
	Get(ctx context.Context, id string) (*Record, error)
	Update(ctx context.Context, r *Record) error
	List(ctx context.Context, q ListQuery) ([]*Record, error)
	ClaimJob(ctx context.Context, c Claim) (*Record, error)
	ExtendLease(ctx context.Context, l Lease) error
	SetWebhookStatus(ctx context.Context, id string, code int) error
	ListNotifyPending(ctx context.Context, completedBefore time.Time, limit int) ([]*Record, error)
	ClearNotifyPending(ctx context.Context, id string) error
	Close() error
}

// Upload is an uploaded media file awaiting transcription.
type Upload struct {
	ID        string
	ProjectID string
	Size      int64 // bytes; 0 in records Service.Upload writes (it records before the bytes arrive)
	Created   time.Time
	// TranscriptID is the transcript that uses the upload, set by
	// AttachUpload when a transcript is submitted with it; empty while no
	// transcript uses it. Only unattached uploads expire.
	TranscriptID string
}

// UploadQuery selects uploads for ListUploads: those created strictly
// before CreatedBefore (zero: any time), after the cursor (Created,
// ID) > (AfterCreated, AfterID) when AfterID is set, only those no
// transcript uses when Unattached, at most Limit of them (<= 0: all).
type UploadQuery struct {
	CreatedBefore time.Time
	AfterCreated  time.Time
	AfterID       string
	Unattached    bool
	Limit         int
}

// UploadStore keeps the ownership and use of uploaded media (the bytes are
// in a BlobStore). Safe for concurrent use, across processes for shared
// databases. Contract (drivertest.RunUploadStoreTests):
//
//   - CreateUpload inserts u; an error wrapping ErrExists for a taken id.
//   - GetUpload returns the upload or an error wrapping ErrNotFound.
//   - AttachUpload atomically sets the TranscriptID of upload uploadID to
//     transcriptID when no transcript uses it yet (or the same one
//     already does); an error wrapping ErrExists when another transcript
//     uses it; with transcriptID "" it detaches unconditionally;
//     ErrNotFound when the upload is absent.
//   - DeleteUpload removes the upload; an absent id is not an error.
//   - ListUploads returns the uploads matching q, oldest (earliest
//     Created) first, ties by smaller ID.
type UploadStore interface {
	CreateUpload(ctx context.Context, u *Upload) error
	GetUpload(ctx context.Context, id string) (*Upload, error)
	AttachUpload(ctx context.Context, uploadID, transcriptID string) error
	DeleteUpload(ctx context.Context, id string) error
	ListUploads(ctx context.Context, q UploadQuery) ([]*Upload, error)
}

// BlobStore keeps media bytes (uploads, redacted audio). Keys are
// slash-separated relative names made by the Service ("uploads/<id>").
// Contract (drivertest.RunBlobStoreTests):
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
