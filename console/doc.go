// Package console is Earshot's web console: a browser front end for the
// v2 API, embedded in the binary and served under /console/ with no
// network access at run time (no CDN, no fonts, no analytics).
//
// # Entry points
//
//   - Handler returns the http.Handler serving the embedded files under
//     Prefix ("/console/"), beside the API, which must be at the root of
//     the same origin (see the example below).
//   - Assets returns the embedded files as an fs.FS, for serving them some
//     other way.
//   - CSP is the Content-Security-Policy every response carries.
//
// Mounting, as the reference server does:
//
//	mux := http.NewServeMux()
//	mux.Handle(console.Prefix, console.Handler()) // /console redirects to /console/
//	mux.Handle("/", api)                          // the *httpapi.API
//
// # What the console does
//
// Sign in with an API key (kept in the tab's sessionStorage, sent only in
// the authorization header, never in a URL). Upload: choose features
// (speaker labels, PII redaction with its policies and redacted audio,
// entities, sentiment, key phrases, topics, content safety, summary,
// chapters, language, word boost...), then drop files; each goes to
// POST /v2/upload through XMLHttpRequest (for its progress bar), then
// POST /v2/transcript, and is followed to completion. Transcripts: the
// list, newest first, paged through page_details.prev_url and refreshed
// while any is queued or processing. A transcript: an audio player whose
// playing word is highlighted (binary search over word start times on
// each animation frame), words that seek when clicked (or with Enter;
// arrow keys move between words), speakers in colours, word search
// (/word-search), downloads of SRT, VTT, text, sentences, paragraphs and
// the JSON, redacted audio, deletion, and panels for entities, redaction,
// sentiment, key phrases, topics, content safety, summary and chapters,
// each shown only when the transcript has that result. Live: the
// microphone, through an AudioWorklet that resamples to 16 kHz PCM16 in
// 150 ms frames, to /v2/realtime/ws with a temporary token from
// POST /v2/realtime/token; partial transcripts replace the line in
// progress and finals are appended; Stop sends terminate_session.
//
// The server deletes uploaded files once transcribed, so the player plays
// the file the user dropped, kept in the browser (memory and IndexedDB),
// or the transcript's audio_url when it is an http(s) URL other than an
// upload URL; otherwise it says no audio is available and offers to pick
// the file.
//
// # Choices
//
// Hand-written HTML, CSS and ES modules, with no framework and no build
// step: `go install` embeds exactly what is committed, the console has no
// JavaScript supply chain, and the whole front end is a few small files
// a Go developer can read. The views are small enough that a framework
// would add more than it saves. Routing is by URL fragment (#/t/<id>), so
// the handler only serves files and never needs an SPA fallback.
//
// Files are served with a strong ETag and Cache-Control: no-cache
// (revalidated on every load, answered 304 when unchanged) instead of
// long-lived caching of fingerprinted names, which would need a build step.
// The CSP allows scripts, styles, workers and connections only from the
// page's origin ('self' covers same-origin ws: and wss:); media may also
// come from blob: (the user's file) and http(s) (a remote audio_url or the
// redacted audio URL on the server's public origin).
//
// Tests: console_test.go checks the handler (types, 304s, 404s, 405s,
// headers, that every file index.html and the modules reference exists and
// none is on another origin, and that the console's PII policy list matches
// transcribe.PIIPolicies). browser_test.go builds and starts the reference
// server and drives the console in Debian's headless Chromium with
// playwright-core (console/browsertest): sign-in, drag-and-drop upload with
// progress, the list, playback with the highlight following the audio,
// click-to-seek, SRT download, word search, and the live page fed from a
// WAV through Chromium's fake microphone; a second test renders every
// analysis panel from a JSON fixture (testdata/analysis.json); a third runs
// the worklet's resampler in Node on test tones. Screenshots go to
// $EARSHOT_SCREENSHOTS (default: the test's temp directory);
// -update-screenshot rewrites docs/console.png.
package console
