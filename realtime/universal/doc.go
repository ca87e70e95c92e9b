// Package universal serves AssemblyAI's Universal-Streaming (v3) protocol:
// WebSocket sessions at /v3/ws that turn live audio into Turn messages,
// and the temporary tokens of GET /v3/token. The official JS SDK 4.41.5's
// StreamingTranscriber (client.streaming) works against it unchanged; its
// tests run that client. Sessions run on the same engine as v2
// (realtime/engine): this package is a second transport beside package
// realtime, not a second engine.
//
// # Entry points
//
//   - NewHandler(Config) returns a *Handler: an http.Handler for GET /v3/ws;
//     Handler.TokenHandler serves GET /v3/token. Config.Engine.Recognizer
//     and Config.Authenticate are required. httpapi mounts both
//     (httpapi.Config.Streaming, StreamingToken).
//   - parseQuery and parseClient read the query string and client text
//     frames; errors are *Error (close code and text).
//   - Messages: Begin, Turn (Word), SpeechStarted, Termination, Warning,
//     ErrorMessage; client messages Terminate, ForceEndpoint, KeepAlive,
//     UpdateConfiguration.
//
// # Query
//
// sample_rate (required, 8000..48000), encoding (pcm_s16le, pcm_mulaw),
// format_turns, end_of_turn_confidence_threshold (0..1, default 0.4),
// min_turn_silence (or its old name
// min_end_of_turn_silence_when_confident; ms, default 400),
// max_turn_silence (ms, default 1280; not below min_turn_silence),
// keyterms_prompt (JSON array of at most 100 terms of 1..50 characters;
// the recognizer's word boost), inactivity_timeout (5..3600 s),
// language_detection, speech_model (the SDK's names; all served by the one
// recognizer, any but universal-streaming-english answered with a
// Warning), filter_profanity, token. Booleans are true or false in any
// case. An unknown parameter, a repeated one or a bad value is refused
// with an Error message and close 3006 naming it: nothing is silently
// ignored.
//
// # Turns
//
// The engine ends a turn after a pause of min_turn_silence when its
// end-of-turn probability reaches end_of_turn_confidence_threshold, and
// after max_turn_silence whatever it is. The probability is
// Config.Engine.TurnEnd over the turn's words and the pause so far; by
// default modelTurnEnd: the punctuation model's (transcribe/textfmt/
// punctmodel) probability that a sentence ends after the last word, so
// "we need more money for the new school" ends on a short pause (0.88 at
// 400 ms) and "we need more money for the" does not (0.003), until
// max_turn_silence. While a turn is open, each change of the recognizer's words is a
// Turn with end_of_turn false: words carry word_is_final (the engine
// commits a word once two hypotheses in a row agree on it), transcript
// holds the final words only, end_of_turn_confidence the probability so
// far. The ended turn is a Turn with end_of_turn true (every word final,
// language_code with language_detection), followed, with format_turns, by
// its formatted copy (turn_is_formatted true: Config.Engine.Format,
// punctuated and cased). turn_order counts turns from 0. SpeechStarted
// (timestamp, ms of audio) comes when speech begins a turn.
// filter_profanity masks profane words (textfmt.ProfanityFilter).
// UpdateConfiguration changes format_turns, filter_profanity, the
// threshold and silences from the next audio; a new keyterms_prompt is
// answered with Warning 1002 (an open recognizer stream keeps its word
// boost). ForceEndpoint ends the open turn (confidence 1). Terminate ends
// the open turn, sends Termination (audio_duration_seconds,
// session_duration_seconds) and closes with 1000; so does the inactivity
// timeout (inactivity_timeout, else Config.IdleTimeout; audio and KeepAlive
// reset it).
//
// Audio is binary frames of 50..1000 ms; one shorter frame is accepted as
// the last before ForceEndpoint, Terminate or a disconnect (a file
// streamed in fixed chunks ends with one). Audio more than
// Config.RateLimitLead ahead of real time is refused.
//
// # Authentication, tokens and limits
//
// The API key in the Authorization header (raw or Bearer), or a token
// query parameter. GET /v3/token?expires_in_seconds=N (1..600)
// [&max_session_duration_seconds=M (60..10800)] with the API key returns
// {"token": "<64 hex>.<M>"}: single use, valid N seconds, bound to the
// project; the session it starts expires after M seconds (0: the
// default). Only the token's SHA-256 is stored (Config.State, a
// realtime.StateStore shared with v2 and across processes), so M cannot
// be altered. v2 tokens do not open v3 sessions. Sessions last at most
// Config.MaxSessionDuration (3 h) otherwise.
//
// With Config.Guard, refused credentials count against the address's
// failed-auth budget that every front end spends; an address over it gets
// 429 with Retry-After from the token endpoint and 1013 from /v3/ws before
// its credential is looked at (keys known good from that address pass);
// each connection spends one request of its project's budget (1013).
// Config.Admission (give it the v2 Handler's) decides on every session
// (1013 when refused); the recognizer streams report their calls to it.
// A project holds at most Config.MaxSessionsPerProject live sessions,
// counting Config.ProjectSessions (the server counts its v2 sessions);
// beyond it 3009. Each session is recorded in Config.State (owner,
// project, token) and marked terminated when it ends.
//
// # Close codes
//
// Before every error close the server sends {"type": "Error",
// "error_code": code, "error": text}; the close reason is Reason(code).
//
//	1000 after Termination (Terminate, inactivity timeout)
//	1001 the server is shutting down (Handler.Close)
//	1008 missing or bad API key or token; token expired or already used
//	1013 at capacity, no recognizer free within Config.StreamWait, shutting
//	     down, or the Guard's failed-auth or project request limit
//	3005 the recognizer failed or could not start, or the session store is
//	     unavailable (the error's own text is logged, never sent; an engine
//	     crash is named)
//	3006 bad or unknown query parameter; a text frame that is not JSON, not
//	     an object, of an unknown type, or a bad UpdateConfiguration
//	3007 an audio frame over 1000 ms, or under 50 ms followed by more audio;
//	     audio too far ahead of real time
//	3008 the session's maximum duration passed (the open turn is sent first)
//	3009 the project's concurrent sessions are at their limit
//
// # Observing
//
// Config.OnSession and Config.OnTranscript receive realtime.SessionEvent
// and realtime.TranscriptEvent, as the v2 Handler's hooks (the server
// feeds both to the same Prometheus metrics): session begin and end, the
// latency from the audio message holding a word's end to the first Turn
// showing it, and from the end of the last word to an ended turn the
// engine's endpointing ended (the pause included; ForceEndpoint and
// Terminate are the client's timing and are not reported). Config.Logger
// gets refusals, recognizer failures and store errors.
//
// # Concurrency
//
// Handler and Session are safe for concurrent use. Each connection runs one
// reading goroutine and one that feeds the session, applies the clock every
// Config.TickInterval and writes its messages, in order.
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: the
// Universal-Streaming (v3) protocol's vocabulary for clients and tests that
// speak it — the messages (Begin, Turn, Termination, SpeechStarted, Warning,
// Error, ErrorMessage, Word, ClientMessage and the Type* values), close codes
// (Close* and CloseCodes), the query's Settings and Options with their
// limits and defaults (Min*, Max*, Default*, Encodings, SpeechModels), the
// warnings it sends (Warning*), the reasons a session ends (Reason, ErrEnded,
// ErrTerminated, matched with errors.Is) and Session for embedders with a
// transport of their own.
package universal
