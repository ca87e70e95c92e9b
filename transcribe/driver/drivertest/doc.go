// Package drivertest holds the conformance suites for the storage
// contracts of package driver: every store adapter's TestConformance runs
// the suites of the contracts it implements.
//
// Entry points:
//   - RunStoreTests checks a driver.Store against every clause of its
//     contract: creation and Seq order, Update and lease ownership and the
//     fields it leaves alone, List filters, cursors and paging (without
//     Data), which records ClaimJob takes and in what order, claim
//     counting, ExtendLease, SetWebhookStatus and the outbox flags. The
//     lease rules that jobs share with webhook deliveries (expiry and
//     takeover, extending, giving back, concurrent claims) are
//     queuetest.Run's, with JobQueue (and webhooktest.DeliveryQueue) for an
//     adapter's queues.
//   - RunUploadStoreTests checks a driver.UploadStore: ownership,
//     attach-once, listing by age with a cursor. (The webhook.Queue suite
//     is webhook/webhooktest.RunQueueTests.)
//   - RunReadStoreTests and RunPageStoreTests check the optional read
//     extensions (ReadStore, PageStore) against a second handle on the
//     same data; RunIdempotencyStoreTests and RunLeMURStoreTests check
//     the HTTP layer's stores.
//   - RunBlobStoreTests checks a driver.BlobStore: round trips,
//     replacement, ErrNotFound, streaming of a large body, failed Puts
//     leaving nothing behind, concurrent use, and FileBlobStore.Path.
//
// Every adapter's TestConformance calls the suite for its contract:
//
//	func TestConformance(t *testing.T) {
//		drivertest.RunStoreTests(t, func(t *testing.T) driver.Store {
//			return mystore.New(...)
//		})
//	}
//
// The suites only use the methods of the contract, run their subtests
// sequentially, each on a fresh adapter from the factory, and start their
// own goroutines for the concurrency checks, so they are safe to call
// from a parallel test. The package's own tests run them against
// deliberately broken adapters to show that each clause is really
// checked.
package drivertest
