// Package transcribetest holds the conformance suites for the engine and
// notifier contracts of package transcribe, and fakes for unit tests. (The
// storage contracts' suites are transcribe/driver/drivertest's.)
//
// Entry points:
//   - RunRecognizerTests checks a transcribe.Recognizer (and its streaming
//     extension) on real speech, driven by its RecognizerFeatures;
//     ReadWAV16 reads the 16 kHz mono WAV it is fed.
//   - RunNotifierTests checks a transcribe.Notifier.
//   - FakeRecognizer is a scripted transcribe.Recognizer that counts its
//     calls, honours its context and can fail on demand; SpreadWords lays
//     a text's words over audio for it; ToneWAV makes a WAV of a tone.
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: ErrScripted,
// the error FakeRecognizer fails with, for tests that match it.
package transcribetest
