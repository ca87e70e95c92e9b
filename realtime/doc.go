// Package realtime serves AssemblyAI-compatible v2 real-time streaming:
// WebSocket sessions at /v2/realtime/ws that turn live audio into partial
// and final transcripts over a transcribe.StreamRecognizer, plus the
// temporary tokens of POST /v2/realtime/token. The official Go SDK
// (v1.10.0) and JS SDK (4.41.5) real-time clients work against it
// unchanged; both are run in this package's tests.
//
// # Entry points
//
//   - NewHandler(Config) returns a *Handler, an http.Handler for
//     GET /v2/realtime/ws (new session) and GET /v2/realtime/ws/{session_id}
//     (resume). Handler.TokenHandler serves POST /v2/realtime/token.
//     Config.Recognizer and Config.Authenticate are required; httpapi
//     mounts these on its mux.
//   - NewSession(ctx, Config, SessionOptions) is a v2 session with no
//     WebSocket: Audio, HandleText, Tick and Terminate take client input
//     (or the passing of time) and return the messages to send and, when
//     the connection must end, a *CloseError. It holds the v2 rules
//     (states, expiry, idleness, message sizes, rate limit, control
//     messages, message shapes) over an engine.Session.
//   - Package realtime/engine is the session engine itself, shared with
//     the Universal-Streaming v3 transport: audio in, partial and final
//     events (words, finality, end-of-turn confidence) out, no I/O and no
//     protocol. Config's Recognizer, Format, Now, PartialInterval,
//     MaxUtterance and SpeechRMS are its configuration.
//   - StateStore is the contract for the state that processes share
//     (tokens, session records); NewMemoryState is the in-process one;
//     realtime/realtimetest.RunStateStoreTests is its conformance suite.
//   - Messages: SessionBegins, SessionResumed, PartialTranscript,
//     FinalTranscript, SessionInformation, SessionTerminated, ErrorMessage.
//
// # Sessions
//
// A session goes begins -> streaming -> terminated or expired (State).
// The server sends SessionBegins (session_id, expires_at) as the first
// message of a connection — the Go SDK reads its first message as
// SessionBegins without looking at message_type. Audio arrives as binary
// frames or {"audio_data": base64} text frames (pcm_s16le or pcm_mulaw at
// sample_rate; resampled to the recognizer's rate). A connection without
// sample_rate is taken as 16000, since the Go SDK leaves the parameter out
// unless WithRealTimeSampleRate is used and documents 16000 as its
// default; an empty or unusable value is refused with 4000. Text frames may end with whitespace (Go's json.Encoder adds a
// newline) and may arrive before the client saw SessionBegins (the JS SDK
// sends end_utterance_silence_threshold in onopen).
//
// Endpointing: an energy voice-activity detector over 10 ms frames (with
// an adaptive noise floor) ends the utterance once speech is followed by
// end_utterance_silence_threshold of non-speech audio (default 700 ms,
// 0..20000, set by {"end_utterance_silence_threshold": N}); bursts under
// 50 ms (clicks, taps) count as part of the pause. The recognizer's
// hypothesis backs the detector up: speech too quiet for it (below
// Config.SpeechRMS) ends its utterance when the hypothesis has not
// changed for the threshold plus 300 ms of audio, and steady noise it
// takes for speech (a fan, music) when the hypothesis has not changed for
// the threshold plus 1.3 s. The utterance also ends when the client stops sending
// audio for the threshold plus 500 ms, on {"force_end_utterance": true},
// and at the next pause once it is Config.MaxUtterance long. A FinalTranscript carries the utterance's
// words passed through Config.Format (default DefaultFormat: capital first
// letter, final period), punctuated and text_formatted true.
// PartialTranscripts (lowercase, unpunctuated) are checked every
// Config.PartialInterval of audio and sent when the text changed, unless
// disable_partial_transcripts=true. Empty transcripts are never sent (the
// Go SDK drops them anyway). Times are milliseconds of audio since the
// session started and continue across resumes.
//
// {"terminate_session": true} flushes the open utterance as a final, then
// sends SessionInformation (audio_duration_seconds; always, whatever
// enable_extra_session_information says) and SessionTerminated, then
// closes with 1000. The Go SDK's Disconnect waits forever for
// SessionTerminated, so it is sent on every terminate.
//
// A connection that drops without terminate_session (or that neither
// answers pings nor sends anything for two Config.PingIntervals) leaves
// its session
// (and its recognizer stream) waiting Config.ResumeGrace for
// /v2/realtime/ws/{session_id}, which answers SessionResumed (session_id,
// expires_at) and continues the same stream. The same authorization
// applies: an API key of the session's project, or the temporary token
// that started it. A resume's other query parameters are ignored: the
// session keeps the options it began with.
//
// # Several processes
//
// Temporary tokens and session records live in Config.State, a
// StateStore: MemoryState (the default) for one process, or
// storage/postgres's Store.Realtime for any number of processes serving
// one region behind a load balancer. Every process sees the same tokens
// (a token minted on one starts a session on another, once) and the same
// session records, so a resume answers the same on every process:
// SessionResumed, or 4001, 4004, 4008, 4010, 4030, 1013 as above. A
// record names the process that holds the session's recognizer stream
// (Config.ProcessID) and whether a connection is attached; the holder
// renews a lease on it (Config.SessionLease, default 10 s) every
// Config.StateInterval, and a resume claims the session with a
// compare-and-swap of the record, so one WebSocket holds a session at a
// time across all processes.
//
// A session resumed on the process that held it continues the same
// recognizer stream. Resumed on another process, it continues on a fresh
// stream from the audio position recorded when the connection dropped:
// times, audio_duration_seconds, options and the silence threshold go on
// where they were, but an utterance the move cut in two restarts (the
// words of its first part that were not yet final are lost), and the old
// process releases its stream once it sees the record moved. When a
// process dies (kill -9) with attached sessions, a resume elsewhere gets
// 4030 until their lease runs out, then SessionResumed; the resume grace
// counts from the lease's end. A process that shuts down gracefully
// (Close) closes its connections with 1001 and leaves their sessions
// resumable on the others. The per-project session limit (4102) and
// recognizer capacity are per process.
//
// # Authentication and tokens
//
// A WebSocket authenticates with the raw API key in the authorization
// header (Config.Authenticate) or a temporary token in the token query
// parameter. On failure the upgrade is still accepted, {"error":"Not
// Authorized"} is sent and the socket closes with 4001, which both SDKs
// report. POST /v2/realtime/token takes {"expires_in": seconds} (at least
// 60; values above Config.MaxTokenExpiresIn, default 360000 s, are
// clamped) with API-key auth and returns {"token": "..."}: 64 random hex
// characters, bound to the project, usable to start one session and then
// to resume that session; the StateStore keeps only its SHA-256. A project may hold MaxUnusedTokens tokens that
// are neither used nor expired (then 429). Every response is
// application/json; errors are {"error": "..."} with 400, 401, 405 or 429.
//
// With Config.Guard (the reference server gives every front end one
// *httpapi.Guard), every refused key or token, on the token endpoint and
// the WebSocket alike, counts against the client address's failed-auth
// budget that /v2 and /v1 spend too; an address over it gets 429 with
// Retry-After from the token endpoint and 1013 on the WebSocket, before
// its credential is looked at, except for keys that authenticated from
// that address before. Each WebSocket connection spends one request of
// its project's budget (1013 beyond it).
//
// # Close codes
//
// Before every error close the server sends {"error": detail}; the close
// reason is the fixed text below. Errors become close codes by type: a
// *CloseError as it is; a *transcribe.ParamError by its field
// (sample_rate 4000, word_boost 4104, others 4101); ErrAtCapacity or any
// other refusal of Config.Admission 1013; an engine crash
// (*isolate.CrashError or transcribe.ErrEngineCrashed, never its text)
// 1011 with the crash's sentence as the reason; any other internal error
// 1011 with a generic message (the POST /v2/realtime/token endpoint
// answers such errors 500 with a generic message): what the recognizer
// or the session store said goes to Config.Logger, never to the client.
//
//	1000 normal, after SessionTerminated
//	1011 Internal server error: the recognizer failed or could not open a stream
//	1013 Temporary server condition forced blocking client's request: the server
//	     is at capacity (Config.Admission; see "Capacity and latency"), no recognizer
//	     free within Config.StreamWait, a resume attempted more than
//	     Config.MaxResumes (default 10) times (this last ends the session), or,
//	     with Config.Guard, a client address over its failed-auth limit (before
//	     its key or token is looked at, unless the Guard knows the key good) or a
//	     project over its request budget
//	4000 Sample rate must be a positive integer: sample_rate empty or not an integer in 8000..48000
//	4001 Not Authorized: bad API key or token, token expired, used, or another session's
//	4004 Session not found: resume of an unknown id (or another project's)
//	4008 Session Expired: expires_at passed (Config.SessionDuration, default 1 h), or a
//	     resume after Config.ResumeGrace (default 30 s), or of a session that expired
//	4010 Session previously closed: resume of a terminated session
//	4029 Client sent audio too fast: audio is more than Config.RateLimitLead (default 1 min)
//	     ahead of real time (e.g. sent at 2x speed for a minute)
//	4030 Unique session violation: a second connection to a session that has one
//	4031 Session idle for too long: no audio for Config.IdleTimeout (default 1 min)
//	4032 Audio duration is too short: a message under Config.MinAudioPerMessage (default
//	     100 ms) followed by more audio (a short last chunk before force_end_utterance,
//	     terminate_session or a disconnect is accepted: clients that stream a file in
//	     fixed chunks send one)
//	4033 Audio duration is too long: a message over Config.MaxAudioPerMessage (2000 ms)
//	4100 Endpoint received invalid JSON: a text frame that is not JSON
//	4101 Endpoint received a message with an invalid schema: not an object, no known key,
//	     wrong types, threshold out of range, bad base64, bad encoding or boolean query value
//	4102 Too many concurrent sessions: the project has Config.MaxSessionsPerProject
//	     (default 32) live sessions, counting those waiting for a resume, or its
//	     Config.ProjectShare of the Admission's capacity (default: all of it)
//	4104 Could not parse word boost parameter: word_boost is not a JSON list of strings,
//	     or longer than 2500 characters
//
// Codes sent while a connection opens (1011, 1013, 4000, 4001, 4004,
// 4008, 4010, 4030, 4101 for a bad query value, 4102, 4104) refuse that
// connection and leave any existing session as it was (except 1013 for
// exhausted resumes, which ends it). Codes sent during a session (1011,
// 4008, 4029, 4031, 4032, 4033, 4100, 4101) end the session: it becomes
// terminated, so a resume gets 4010, or expired for 4008.
//
// # Time
//
// Config.Now is the only clock the engine reads; expiry, idleness, rate
// limiting and resume grace follow it, so tests move time without
// sleeping. Connections call Session.Tick every Config.TickInterval, and
// the Handler sweeps detached sessions and tokens as often.
//
// # Capacity and latency
//
// Config.Admission decides before a new session opens its stream; a
// refusal is a 1013 close at once (AdmitAll turns it off). The default
// LoadAdmission measures the cost as the sessions' own CPU time per audio
// second: Meter (which the Handler puts around Config.Recognizer) reports
// each recognizer call's CPU — the calling thread's
// (CLOCK_THREAD_CPUTIME_ID, on Linux) plus, for an engine in a worker
// process (isolate), that process's (/proc/<pid>/stat) — not the time
// spent waiting in calls. It takes off the cores other work keeps busy
// (/proc/stat less the sessions' CPU), admits while 0.9 x remaining cores
// / cost leaves room, and refuses while the median slowest call per
// utterance exceeds 250 ms. It is written here: no library measures this.
// Other transports (Universal-Streaming v3) share the Admission and meter
// their sessions the same way with Meter and WithTicket (meter.go).
//
// Each session holds one recognizer stream (one pooled pocketsphinx
// decoder, about 92 MB as an isolated worker) from SessionBegins until it ends, including the
// resume grace; size the recognizer's pool to MaxSessionsPerProject times
// the projects expected, since a new session waits at most
// Config.StreamWait for a free decoder (then 1013). Measured on this
// project's shared 2-core build machine with pocketsphinx and flite speech
// sent at real-time speed in 100 ms chunks (bench_test.go), first while
// other builds kept the load average near 3.5, then near 9:
//
//	                                             load ~3.5                     load ~9
//	chunk completing a word -> first partial     113-116 ms p50, 224-293 p90   130-180 ms p50, 300-460 p90
//	end of the 700 ms pause -> FinalTranscript   78-200 ms p50, 166-289 p90    430-470 ms p50
//	concurrent sessions keeping real time        6 (8 fell behind)             2 (4 fell behind)
//	CPU per second of audio                      0.15 s (about 9 sessions on 2 idle cores at 70%)
//	CPU per 100 ms chunk / per utterance end     8.4 ms / 66-76 ms median (140 ms p90)
//
// The final's latency is the recognizer's end-of-utterance pass plus, on
// a busy machine, waiting for a core. 8 kHz (telephone) audio is accepted
// and resampled, but the wideband en-us model recognizes it poorly.
//
// # Observing
//
// Config.Logger (a *slog.Logger, default slog.Default(); the reference
// server passes its own) receives recognizer failures with the engine's
// words and the session and project ids, session store failures,
// admission refusals, resumes and expiries.
//
// Config.OnSession and Config.OnTranscript (observe.go) report each
// session's beginning and end, and the latency of transcripts on
// Config.Now: from the audio message that ends a word to the first
// partial showing it, and from the audio that ends speech to an
// endpointed final (the pause included). They are nil by default; the
// reference server feeds them to Prometheus (server/metrics).
//
// # Concurrency
//
// Handler and Session are safe for concurrent use. Each connection runs
// one reading goroutine and one goroutine that feeds the session and
// writes its messages, so recognition of a connection's audio is
// sequential and messages keep their order.
//
// # Dependencies
//
// Beyond the standard library and coder/websocket, realtime uses
// golang.org/x/sys/unix for one call: clock_gettime of the calling
// thread's CPU time (cpu_linux.go), which the load admission charges to
// each session; the standard library has no thread CPU clock.
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: the v2
// protocol's vocabulary for clients and tests that speak it — message types
// (Message, MessageType and the Type* values, SessionBegins,
// PartialTranscript, FinalTranscript, SessionInformation, SessionResumed,
// SessionTerminated, Word, ErrorMessage), close codes (CloseCode and the
// Close* values) and the errors that carry them (Err*, matched with
// errors.Is), the spec's limits and the defaults Config documents (Min*,
// Max*, Default*, Encodings, States); the admission policies (AdmitAll,
// LoadAdmission with LoadStats and IgnoreMachineLoad), the recognizer
// calls an Admission's Ticket is told of (Call, CallKind), the kinds of
// SessionEvent Config.OnSession receives (SessionEventKind); and Session/NewSession, a session without the
// WebSocket for embedders with a transport of their own.
package realtime
