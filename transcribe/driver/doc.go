// Package driver holds the contracts that storage adapters implement and
// the records they keep, apart from the Service that uses them (as
// gocloud.dev keeps blob/driver apart from blob): an embedder reads
// package transcribe, an adapter author reads this one.
//
//   - Store: transcript records (Record, listed by ListQuery), the job
//     queue over them (ClaimJob with a Claim, ExtendLease with a Lease)
//     and the webhook outbox flags; optional extensions found by type
//     assertion: ReadStore (reads that skip a transcript the caller
//     holds), PageStore (list pages of six fields), JobCounter (queue
//     depth for metrics).
//   - UploadStore: who owns an uploaded file and which transcript uses it
//     (Upload, UploadQuery).
//   - BlobStore and FileBlobStore: media bytes.
//   - IdempotencyStore (IdempotencyRecord) and LeMURStore (LeMURRecord):
//     what the HTTP layer keeps for Idempotency-Key retries and LeMUR
//     answers, in stores several processes share.
//   - Status: the transcript states a Record carries (package transcribe
//     re-exports it as the wire enum), and the sentinel errors adapters
//     wrap (ErrNotFound, ErrExists, ErrNoJob, ErrLeaseLost,
//     ErrStorageUnavailable, ErrClosed; transcribe re-exports them).
//
// Each method's edge cases are documented on its interface; package
// drivertest holds the conformance suites every adapter runs (storage/
// memory, storage/sqlite, storage/postgres, storage/localfs, storage/s3
// and examples/customstore run them). The Service seals content before it
// reaches a Store: Record.Data, Record.Summary and LeMURRecord.Data are
// opaque bytes, so a Store never sees transcript text.
package driver
