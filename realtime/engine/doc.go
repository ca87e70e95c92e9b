// Package engine is the streaming session engine that every real-time
// protocol drives: it turns audio into partial and final transcripts
// (words with times, confidence and finality), decides where turns end,
// and does no I/O of its own. The v2 WebSocket protocol (package
// realtime) and Universal-Streaming v3 are transports over it: they parse
// their wire, call a Session and write what it returns in their own
// message shapes.
//
// # API
//
//	s, err := engine.New(ctx, engine.Config{Recognizer: r}, engine.Options{SampleRate: 16000})
//	events, err := s.Write(audioBytes)   // pcm_s16le or pcm_mulaw, any length
//	events, err  = s.Tick()              // every ~100 ms: ends a turn when audio stops coming
//	events, err  = s.ForceEndpoint()     // end the open turn now
//	err          = s.SetEndpointing(engine.Endpointing{...}) // mid-session
//	events, err  = s.Close()             // flush the open turn, release the stream
//	err          = s.Abort()             // release without flushing
//	s.AudioDuration(), s.Samples(), s.MessageDuration(n), s.Endpointing(), s.Touch()
//
// Config (shared by a transport's sessions): Recognizer (required), Format
// (the formatted copy of a final; default DefaultFormat), TurnEnd (the
// turn-end probability hook, see below), Now, PartialInterval (100 ms),
// MaxUtterance (20 s), SpeechRMS (300). Options (per session):
// SampleRate (8000..48000, default 16000; resampled to the recognizer's
// rate), Encoding (pcm_s16le, pcm_mulaw), WordBoost, Endpointing (default
// 700 ms of silence), Offset (audio before this stream, for a session
// moved between processes: times continue from it).
//
// # Events
//
// Each call returns Events in order:
//
//   - SpeechStarted (At, ms): the detector heard speech begin in a turn
//     that had none.
//   - Partial: the open turn's words (lowercase, unpunctuated), at most
//     every PartialInterval of audio and only when the text changed.
//     Words are Final once committed by local agreement: the prefix two
//     hypotheses in a row agree on (text and start), short of the last
//     word. A committed word stays in every later Partial of the turn
//     exactly as it was, even if the recognizer revises it.
//   - Final: the turn ended. Words are the recognizer's end-of-utterance
//     words (its final pass may differ from the last Partial), all Final;
//     Formatted the same through Config.Format; Cause says why;
//     EndOfTurnConfidence the turn-end probability (1 when forced or
//     closed). A turn without words yields no Final.
//
// Times are milliseconds of audio since the session started. Word
// confidences are clamped to 0..1. Fillers in brackets (<sil>, [noise])
// and empty words are dropped.
//
// # Endpointing
//
// An energy voice-activity detector over 10 ms frames (with an adaptive
// noise floor, and an absolute floor of SpeechRMS) finds speech; bursts
// under 50 ms count as part of a pause. After speech, a pause of
// Endpointing.MaxSilence ends the turn (EndSilence); a pause of
// MinSilence ends it when the turn-end probability is at least
// Endpointing.Confidence (EndConfident; with Confidence 0 at once, which
// is v2's end_utterance_silence_threshold: SilenceEndpointing). The
// recognizer's hypothesis backs the detector up: speech too quiet for it
// ends its turn when the hypothesis has not changed for MaxSilence plus
// 300 ms of audio, and steady noise it takes for speech when it has not
// changed for MaxSilence plus 1.3 s (EndHypothesis). A turn also ends at
// the next non-speech frame once it is MaxUtterance long (EndMaxLength),
// when Tick finds no audio for MaxSilence plus 500 ms after speech
// (EndNoAudio), on ForceEndpoint (EndForced) and on Close (EndClosed).
// SetEndpointing takes effect from the next audio.
//
// The turn-end probability comes from Config.TurnEnd(words, pause): the
// open turn's current words and the pause so far. A sentence-end model
// (the punctuation model of transcribe/textfmt/punctmodel, once it
// exposes one) is its intended implementation; nil uses pauseTurnEnd
// (the pause over MaxSilence). It is called only when Confidence is above
// 0 during a pause between MinSilence and MaxSilence, and once per
// Partial or Final.
//
// # Errors
//
// New returns a *transcribe.ParamError naming the option at fault
// (sample_rate, encoding, or one the recognizer refused such as
// word_boost), ctx's error when it ended while the stream opened, or a
// *RecognizerError (OpOpen). A failed recognizer call ends the session
// with a *RecognizerError (Op, Err): its text is for logs only;
// Crashed() tells an engine crash (transcribe.ErrEngineCrashed) and
// CrashReason gives the sentence a client may see (an
// *isolate.CrashError's own). Calls after the session ended return
// ErrClosed. Transports map these by type to their close codes.
//
// # Concurrency
//
// A Session is safe for concurrent use; calls are serialised. Hooks
// (Format, TurnEnd) run with the session locked.
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: the values an
// embedder's transport switches on — EventKind, the end causes of a turn
// (EndCause and the End* values), the recognizer calls a RecognizerError
// names (Op and the Op* values) — and the defaults and frame sizes Options
// documents (DefaultEndpointing, SpeechFrames).
package engine
