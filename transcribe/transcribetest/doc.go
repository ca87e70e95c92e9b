// Package transcribetest holds the conformance suites for the adapter
// contracts of package transcribe, and fakes for unit tests.
//
// Entry points:
//   - RunStoreTests checks a transcribe.Store against every clause of its
//     contract: creation and Seq order, Update and lease ownership and the
//     fields it leaves alone, List filters, cursors and paging (without
//     Data), which records ClaimJob takes and in what order, claim
//     counting, ExtendLease and SetWebhookStatus. The lease rules that
//     jobs share with webhook deliveries (expiry and takeover, extending,
//     giving back, concurrent claims) are queuetest.Run's, with JobQueue
//     (and webhooktest.DeliveryQueue) for an adapter's queues.
//   - RunUploadStoreTests checks a transcribe.UploadStore: ownership,
//     attach-once, listing by age with a cursor. (The webhook.Queue suite
//     is webhook/webhooktest.RunQueueTests.)
//   - RunBlobStoreTests checks a transcribe.BlobStore: round trips,
//     replacement, ErrNotFound, streaming of a large body, failed Puts
//     leaving nothing behind, concurrent use, and FileBlobStore.Path.
//   - RunRecognizerTests checks a transcribe.Recognizer (and its streaming
//     extension) on real speech, driven by its RecognizerFeatures;
//     ReadWAV16 reads the 16 kHz mono WAV it is fed.
//   - RunNotifierTests checks a transcribe.Notifier.
//   - FakeRecognizer is a scripted transcribe.Recognizer that counts its
//     calls, honours its context and can fail on demand; SpreadWords lays
//     a text's words over audio for it.
//
// Every adapter's TestConformance calls the suite for its contract:
//
//	func TestConformance(t *testing.T) {
//		transcribetest.RunStoreTests(t, func(t *testing.T) transcribe.Store {
//			return mystore.New(...)
//		})
//	}
//
// The store and blob suites only use the methods of the
// contract, run their subtests sequentially, each on a fresh adapter from
// the factory, and start their own goroutines for the concurrency checks,
// so they are safe to call from a parallel test. The package's own tests
// run them against deliberately broken adapters to show that each clause
// is really checked.
package transcribetest
