// Package transcribe is the core of Earshot: the transcript resource, its
// parameters and their validation, the status machine, the contracts that
// adapters implement, and the Service that ties them together.
//
// Entry points:
//   - NewService(Config) returns a *Service with Upload, Submit, Get, List,
//     Delete and the worker pool (Start, Close).
//   - TranscriptParams.Validate checks every rule of the spec's parameter
//     tables and returns a *ParamError naming the field.
//   - Transcript is the wire form of the transcript resource.
//
// Contracts (each method's edge cases are documented on the interface):
// Store (records, uploads, job claiming, durable deliveries), BlobStore
// (media bytes), Recognizer and StreamRecognizer (speech engines), Decoder
// (media to PCM), Fetcher (audio_url downloads), Notifier (webhooks) and
// Stage (one step of the feature pipeline). transcribe/transcribetest holds
// the conformance suites every adapter runs.
//
// Processing: Submit stores a queued record; a worker claims it through
// Store.ClaimJob with a lease (renewed by heartbeats), so several processes
// can share one Store and a job whose worker died is picked up again when
// its lease runs out. The worker fetches and decodes the media, trims it to
// audio_start_from/audio_end_at, recognizes each channel, runs the enabled
// Stages in order, and stores the result. Content is sealed with AES-GCM
// (Cipher) before it reaches the Store: text, words, results, parameters
// and URLs are never written in clear.
//
// Choices where the spec is silent (made for the official SDKs):
//   - Deletion keeps the status (as the real API does) and sets is_deleted;
//     text becomes "Deleted by user." and audio_url "http://deleted_by_user".
//   - When no language_code is given, language_detection is true and
//     language_code becomes the recognizer's language at completion.
//   - prompt needs the pro model (speech_model "slam-1"); auto_chapters
//     needs a universal-2 model ("best", "universal" or unset).
//   - Silent or empty media ends in status error with a reason.
package transcribe
