// Package memory holds Earshot's in-memory reference adapters: Store (a
// driver.Store, driver.UploadStore and webhook.Queue) and
// BlobStore (a driver.BlobStore).
//
// Entry points: New returns an empty *Store, NewBlobStore an empty
// *BlobStore. Both are safe for concurrent use by several goroutines and
// need no configuration. Nothing survives the process, so they suit tests,
// examples and embedding where persistence does not matter; use
// storage/sqlite for a durable store.
//
// They are the executable form of the contracts of transcribe/driver and
// the self-test of transcribe/driver/drivertest: TestConformance runs
// RunStoreTests, RunUploadStoreTests, webhooktest.RunQueueTests,
// queuetest.Run (the lease rules of its job and delivery queues, one
// implementation in queue.go) and RunBlobStoreTests against them. Choices where the
// contract leaves room:
//   - Records, uploads and deliveries are deep-copied in and out; times are
//     stored in UTC without a monotonic reading.
//   - List with Limit <= 0 returns every match, without Data.
//   - ClaimJob picks the lowest Seq; ClaimDelivery the earliest
//     NextAttempt, ties broken by id.
//   - CreateUpload of an id already present returns ErrExists.
//   - After Close every method returns ErrClosed.
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: the types New,
// NewBlobStore and NewLeMURStore return (Store, BlobStore, LeMURStore) and
// ErrClosed.
package memory
