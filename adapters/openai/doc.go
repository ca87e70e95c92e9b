// Package openai is a speech recognizer adapter for the transcription
// engines people already run behind OpenAI's POST /v1/audio/transcriptions:
// speaches (faster-whisper), LocalAI, vLLM, FunASR's OpenAI server,
// whisper.cpp's server started with --inference-path
// /v1/audio/transcriptions, and the OpenAI API itself.
//
// # Entry points
//
// New(Config) returns a *Recognizer, which implements transcribe.Recognizer
// and transcribe.FileRecognizer:
//
//   - Recognize(ctx, samples, opts) sends 16 kHz mono audio as a 16-bit WAV
//     in a multipart request (model, response_format=verbose_json,
//     timestamp_granularities[]=word and segment, temperature 0, language,
//     prompt) and returns words with times in milliseconds from the start
//     of the audio: the engine's text as written, or the spoken form (see
//     Engine text);
//   - RecognizeFile(ctx, path, opts) sends a media file as it is when the
//     engine takes its format (AcceptsFile, Config.FileFormats: wav, mp3 and
//     flac by default) and it fits Config.MaxRequestBytes; otherwise, or
//     when the engine refuses it with 400/415/422, it returns an error
//     wrapping transcribe.ErrFileNotTaken, and the caller (the Service)
//     decodes the file into its spool and calls Recognize in pieces, so a
//     long file never has to fit in memory;
//   - Features reports 16 kHz, word timestamps, filler words (by prompt),
//     the configured languages (whisper's 100 by default) with detection,
//     and the prompt.
//
// StandardFields and Config.Form shape the request (add speaches' or
// vLLM's "hotwords" field, say); DefaultBackoff and retryAfter are the
// retry policy; LanguageCode and WhisperLanguages map what engines call
// languages; *Error describes a failed exchange. The subpackage
// enginetest holds the test engines both this package and
// adapters/whispercpp test against.
//
// # Answers
//
// Engines answer verbose_json in different shapes, all read here (the
// tests replay each; testdata/README.md lists the sources):
//
//   - OpenAI: top-level "words" without probabilities, "language" as a name
//     ("english"); speaches: the same with words starting with a space and
//     "language" as a code; LocalAI: words under "text" instead of "word",
//     or segments only (its whisper backend), "language" only when the
//     request named one; vLLM: segments only, "duration" as a string,
//     "language" null unless given; FunASR: words inside segments, or one
//     segment spanning the audio with no words, "language" "unknown";
//     whisper.cpp: BPE tokens as "words" (" Hel", "lo"), each with a
//     probability, times that can fall past the end of the audio, end
//     before start, and U+FFFD for UTF-8 split between tokens.
//   - Words come from the top-level list, else the segments' lists, else
//     the segments' text, else the text. Tokens are merged into words: when
//     any item starts with a space, an item that does not continues the
//     word before it (within a segment, or across a segment boundary that
//     whisper.cpp's max_len wrap made: the next segment starting exactly
//     where the last ended). Words without times share their segment's
//     span (or the audio's) by length. Times are clamped to the audio and
//     made non-decreasing.
//   - Confidence is the mean of the word's token probabilities; without
//     any, e^avg_logprob of its segment; without that, 1 — no evidence of
//     doubt, and Features().WordConfidence is false, so nothing downstream
//     takes it for a measurement.
//   - The language is mapped to a whisper code ("english" -> "en"); its
//     confidence is faster-whisper's language_probability or whisper.cpp's
//     language_probabilities entry (or detected_language_probability), 0
//     when the engine gives none: the OpenAI API, speaches' verbose_json
//     (OpenAI's schema) and whisper-server before it sent
//     language_probabilities (f0d2bfbf, 2025-04) give none, and the
//     Service then refuses to apply language_confidence_threshold rather
//     than pass it. When the request named a language, that language is
//     reported.
//
// # Language detection
//
// Without a language (language_detection, or no language_code) the
// request leaves the "language" field out, which is how the OpenAI API,
// speaches, vLLM and LocalAI detect; Config.DetectLanguage
// (EARSHOT_OPENAI_DETECT_LANGUAGE) sends a value instead. whisper.cpp's
// server on its OpenAI path transcribes a request without a language in
// its -l default ("en") and names that as the language — a silent wrong
// answer. It says who it is (header "Server: whisper.cpp"), so such an
// answer is not taken: the request is sent again with language=auto, and
// every later one of this Recognizer carries it (one wasted request per
// process; set DetectLanguage "auto" to spare it).
//
// # Engine text
//
// Whisper-class engines write text: punctuation, casing, digits,
// symbols, e-mail addresses. What is kept depends on the answer and on
// RecognizeOptions.Punctuate and FormatText (the request's punctuate and
// format_text, both true by default), and Recognition.Written says what
// was kept so that the Service's formatting stages fill in only the rest
// (transcribe/textfmt, EngineGate):
//
//   - An answer with punctuation or casing is written text. With
//     FormatText its words are kept as the engine wrote them ("Dr.",
//     "Dyson?", "4111", "sarah75@skynet.com", "$3.50", "the US."); the
//     OpenAI API's words carry no punctuation, so they take it from the
//     answer's text, matched word by word in order. Without Punctuate the
//     punctuation at each word's edges is trimmed (casing and digits stay).
//     Without FormatText the words are brought to the spoken form below,
//     keeping the engine's sentence and clause punctuation when Punctuate
//     is set ("$3.50." -> "three dollars and fifty cents.").
//   - An answer without punctuation and casing (lowercase engines) is
//     already the spoken form and is normalized as below; Written is zero
//     and Earshot's ITN, Punctuator and Casing do their whole work.
//   - Annotations are always dropped ("[BLANK_AUDIO]", "(laughs)",
//     "*music*", "♪"); a word of punctuation alone joins the word before.
//
// The spoken form is lowercase, punctuation removed (apostrophes kept,
// hyphens and slashes split), and in English numbers spoken: "$3.50" ->
// "three dollars and fifty cents", "10%" -> "ten percent", "1999" ->
// "nineteen ninety nine", "10:30" -> "ten thirty", "21st" -> "twenty
// first", "555-1234" digit by digit, "example.com" -> "example dot com".
// textfmt's ITN writes them back (TestNormalizeRoundTrip). Other languages
// keep their digits. Written numbers are never passed through ITN: ITN
// reads spoken words and would join numbers across the engine's
// punctuation ("1999, in" -> "1999 in").
//
// # Answers bounded by their audio
//
// An answer can hold only so much: at most MaxWordsPerSecond (20) words a
// second of audio plus ExtraWords (50), and 1 MiB + 64 KiB a second of
// audio (under Config.MaxResponseBytes). Before decoding, a pre-scan that
// allocates nothing counts the body's JSON values and the words in its
// strings (at most 40 per word allowed); an answer past any bound is
// refused with a *Error naming the audio's length ("answer of ...
// words for 2.0 s of audio ..."), not retried. Recognize bounds each
// request by the audio it sent; RecognizeFile by
// RecognizeOptions.Duration (the Service sets it), else only by
// MaxResponseBytes. Every recorded answer and the test engines' answers at
// seven words a second are within the bounds (TestBoundsHoldRealAnswers);
// a 30 MB answer of 15 million words for 2 s of audio is refused after a
// few megabytes of allocation (TestHugeAnswerRefused).
//
// The number speller is hand-written: no Go module on the proxy spells
// numbers in the forms textfmt's ITN reads back (year pairs, "oh" digits,
// money with cents), and the forms must match that stage exactly.
//
// # Prompt and word boost
//
// No engine here biases words directly, so RecognizeOptions.WordBoost
// (word_boost and keyterms_prompt) becomes prompt text: the terms as a
// comma-separated list ("Kubernetes, TensorFlow.") followed by
// RecognizeOptions.Prompt, which whisper reads as the transcript before
// the audio and so prefers those spellings. Whisper keeps at most 224
// prompt tokens (Config.PromptTokens); tokens are over-estimated without a
// tokenizer (one per short word, more for long or non-ASCII words), terms
// past the budget are dropped from the end of the list, and with prompt
// text the terms get at most half and the text keeps its end. boost_param
// has no equivalent. That is conditioning, not a weighted boost, so
// Features().WordBoost is false and Features().Prompt is true.
// RecognizeOptions.Disfluencies adds OpenAI's documented filler-word
// prompt. Servers with a field of their own (speaches' and vLLM's
// "hotwords") get it through Config.Form.
//
// # Several servers
//
// Config.BaseURLs names more servers running the same engine: requests go
// to the one with the fewest in flight among those up, at most
// Config.Concurrency each (default no limit), through adapters/enginepool.
// A server that fails with an outage (no connection, 429, 502, 503, 504)
// is skipped, and the request sent again at once on another server that
// is up, without counting as a retry; it is used again once its health
// check (Config.HealthCheck, default a GET of the transcription URL)
// passes, checked every 2 s while another server is up. With every server
// down requests still go out, so the error is the outage
// (transcribe.ErrEngineUnavailable). Capacity() is servers ×
// Concurrency; with more than one, RecognizeFile leaves files longer than
// PoolWholeFile (90 s) to the caller to cut (the Service sends their
// pieces side by side), and Recognize sends Capacity chunks at once by
// default (Config.Parallel). Servers() reports each server's state and
// Config.OnServer receives its events (metrics).
//
// # Long audio, retries, errors
//
// Audio longer than Config.MaxChunk (5 min) or than fits in
// Config.MaxRequestBytes (25 MiB, OpenAI's limit) is cut with
// media.SplitAtPauses at the quietest point before each limit, sent in
// pieces (Config.Parallel at a time) and the times offset. Pieces shorter
// than 100 ms or with no sample above -60 dBFS are not sent: whisper
// invents words for silence (whisper.cpp answered "quieres" to 3 s of
// zeros in the recordings).
//
// Each attempt is bounded by Config.Timeout (10 min). A 429, a 5xx or a
// failed connection is retried Config.MaxRetries times (3), waiting
// Config.Backoff (DefaultBackoff: Retry-After up to a minute, else 1 s,
// 2 s, 4 s ... 30 s) through Config.Sleep (injectable). A timeout is not
// retried: the engine is busy or the audio too long for it. Other 4xx
// answers are not retried and carry the engine's message (whisper.cpp's
// "Invalid request", OpenAI's error.message, FastAPI's detail). A 200
// whose body is an error object and no transcription ({"error": "failed to
// read audio data"}: whisper-server f0d2bfbf's refusals) is a refusal
// like a 400 (Error.Refused). A refusal (400, 415, 422 or such a 200) of a
// file RecognizeFile sent whole returns transcribe.ErrFileNotTaken, so the
// Service sends decoded pieces; of the WAV Recognize made, it wraps a
// *transcribe.MediaError "the speech engine NAME refused the audio:
// MESSAGE", the job's reason. Answers
// over Config.MaxResponseBytes or the bounds of their audio, or that are
// not JSON of a known shape, fail. Every failure of the engine is a *Error naming the engine and URL;
// unreachable, timed out and 429/5xx ones wrap transcribe.ErrUnavailable.
// A cancelled ctx returns ctx.Err().
//
// # Running Earshot in front of speaches (faster-whisper)
//
//	docker run -d -p 8000:8000 ghcr.io/speaches-ai/speaches:latest-cpu
//	curl -X POST http://127.0.0.1:8000/v1/models/Systran/faster-whisper-small
//
// then
//
//	rec, err := openai.New(openai.Config{
//		BaseURL: "http://127.0.0.1:8000/v1",
//		Model:   "Systran/faster-whisper-small",
//	})
//
// and give rec to transcribe.Config.Recognizer. For LocalAI use its
// model name (BaseURL http://127.0.0.1:8080/v1); for vLLM (vllm serve
// openai/whisper-large-v3) Model "openai/whisper-large-v3"; for FunASR's
// server Model "fun-asr-nano" or its fallback model; for the OpenAI API
// BaseURL https://api.openai.com/v1 and APIKey. Set Languages to
// []string{"en"} for English-only models.
//
// # Running Earshot in front of whisper.cpp's OpenAI-compatible path
//
//	whisper-server -m models/ggml-base.en.bin --host 127.0.0.1 --port 8080 \
//	    --inference-path /v1/audio/transcriptions
//
// with
//
//	openai.Config{BaseURL: "http://127.0.0.1:8080/v1", Name: "whisper.cpp",
//		DetectLanguage: "auto", Languages: []string{"en"} /* .en model */}
//
// whisper-server's default language is "en" (-l); DetectLanguage "auto"
// (EARSHOT_OPENAI_DETECT_LANGUAGE=auto) asks it to detect per request
// (without it, the first detection learns it; see "Language detection"). adapters/whispercpp speaks its native
// /inference endpoint and reports per-token confidences.
//
// # Concurrency
//
// A Recognizer is safe for concurrent use; it holds no per-request state.
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: the defaults
// and limits Config documents (Default*, MaxWordsPerSecond, SampleRate,
// ExtraWords), the request hooks a Config can extend (Form, with
// StandardFields to build on; DefaultBackoff to wrap) and ErrClosed.
package openai
