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
// 100 ms frames, over Universal-Streaming (v3: /v3/ws with
// encoding=pcm_s16le and format_turns=true) with a single-use token from
// GET /v3/token?expires_in_seconds=60, made once the microphone is
// granted; the words of the open turn replace the line in progress, an
// ended turn is appended and replaced by its formatted copy; Stop sends
// {"type":"Terminate"} and waits for Termination.
//
// The server deletes uploaded files once transcribed, so the player plays
// the file the user dropped, kept in the browser (memory and IndexedDB),
// or the transcript's audio_url when it is an http(s) URL other than an
// upload URL; otherwise it says no audio is available and offers to pick
// the file. The API key is kept in the tab only (sessionStorage), and the
// stored audio does not outlive it by much: IndexedDB entries are removed
// when the transcript is deleted, when "Forget key" is clicked, when a key
// is entered on the sign-in form (refused or not: what is stored belongs
// to an earlier sign-in, whose key went with its tab), when the server
// refuses the key in use (401), and 24 hours after the upload
// (audio-store.js MAX_AGE_MS; expired entries are pruned at start-up and
// every hour and never played).
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
// The live page asks the browser for the raw microphone signal (no echo
// cancellation, noise suppression or gain control; a checkbox turns them
// on). Measured with the test's fake microphone: with Chromium's
// processing on, pocketsphinx recognized 5 of the 11 words of "hello
// world this is a live test of the transcription service", raw 7 of 11;
// the raw signal arrives as the file has it (level within 0.1 dB, 10 ms
// energy envelope correlation 0.99 or more), and the test's sentence
// ("the quick brown fox jumps over the lazy dog") comes back with 8 of
// its 9 words.
//
// # Tests
//
// console_test.go checks the handler: media types, 304s, 404s, 405s,
// headers, that every file index.html and the modules reference is
// embedded and none is on another origin or unused, and that the
// console's PII policy list is transcribe.PIIPolicies.
//
// browser_test.go drives the console in Debian's headless Chromium with
// playwright-core (browsertest/run.cjs; npm ci from the committed lock
// file when node_modules is missing). TestBrowser builds and starts the
// reference server and a fixture API, then in one browser: every
// analysis panel from a JSON fixture (testdata/analysis.json, shapes of
// wire-format.md section 3.4) and a transcript without results, list
// paging through an absolute prev_url; then, against the real server and
// pocketsphinx, sign-in (a wrong key first), features, a drag-and-drop
// upload throttled so the progress bar shows intermediate values, the
// list following the job to completed, speakers and panels matching the
// API's JSON, playback with the highlighted word checked against the word
// timings, click-to-seek and the keyboard, SRT and text downloads equal
// to the API's exports, word search, the redacted audio in the player,
// the live page fed from a WAV through Chromium's fake microphone (the
// v3 token request, the WebSocket's URL and frames, the Turns received,
// the audio sent compared with the file, the partial and formatted text),
// and deletion. TestWorkletResampler runs the worklet's
// resampler in Node on test tones. Screenshots go to a temporary
// directory, or to -screenshots DIR; -update-screenshot rewrites
// docs/console.png from the playing transcript.
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: Assets (the
// embedded files, for servers that serve them their own way) and CSP (the
// Content-Security-Policy they need).
package console
