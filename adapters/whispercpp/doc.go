// Package whispercpp is a speech recognizer adapter for whisper.cpp's
// server (whisper-server, examples/server/server.cpp) and its native
// POST /inference endpoint.
//
// # Entry points
//
// New(Config) returns a *Recognizer, which implements transcribe.Recognizer
// and transcribe.FileRecognizer; Health(ctx) asks GET /health whether the
// server's model is loaded (each server's, with several: see below). The exchange itself — multipart upload,
// retries, chunking at pauses, reading verbose_json, word normalization —
// is adapters/openai's (the two endpoints share whisper-server's handler),
// configured with whisper.cpp's own fields (fields):
//
//   - response_format=verbose_json, temperature (Config.Temperature, 0),
//     split_on_word=true so long segments wrap between words;
//   - language: the request's code, or "auto" to detect; with a code,
//     no_language_probabilities=true spares the server a second detection
//     pass; without, its language_probabilities give LanguageConfidence
//     (servers before they sent them, e.g. f0d2bfbf of 2025-04, give the
//     language alone: LanguageConfidence 0, and the Service refuses to
//     apply a language_confidence_threshold above 0 to it);
//   - prompt: boost terms and the request's prompt (see adapters/openai);
//   - Config.ExtraFields: any other field of the handler (beam_size, vad,
//     max_len, ...).
//
// Text: the answer's BPE tokens are merged into words and the engine's
// punctuation, casing and written numbers are kept under the request's
// punctuate and format_text, exactly as adapters/openai describes under
// "Engine text"; answers are bounded by their audio likewise.
//
// Features adds WordConfidence to openai's: verbose_json carries every
// token's probability, and a word's confidence is the mean of its tokens'.
// The server's answers have quirks the recordings in testdata show and the
// tests check: "words" are BPE tokens, token times can end before they
// start or after the audio, "language" is the name ("english"), 400
// answers carry a plain "Invalid request" (httplib's error handler
// replaces the JSON body), and silence yields invented words — which is
// why silent audio is never sent. Both server generations are replayed:
// testdata (233fe1fc) and testdata/f0d2bfbf (2025-04), whose refusals are
// 200 {"error": "failed to read audio data"} — read as a refusal like the
// 400 (openai.Error.Refused), so a file it cannot read (GSM in WAV) falls
// back to decoded pieces.
//
// RecognizeFile sends WAV, MP3, FLAC and Ogg Vorbis as they are
// (DefaultFileFormats: what whisper-server reads without --convert);
// for anything else it returns transcribe.ErrFileNotTaken and the Service
// decodes the file and sends it as WAV in pieces. With --convert, list more
// formats in Config.FileFormats.
//
// # Running Earshot in front of whisper.cpp
//
// Build the server and fetch a model (whisper.cpp's README):
//
//	git clone https://github.com/ggml-org/whisper.cpp && cd whisper.cpp
//	cmake -B build && cmake --build build -j --config Release --target whisper-server
//	sh ./models/download-ggml-model.sh base.en
//	./build/bin/whisper-server -m models/ggml-base.en.bin --host 127.0.0.1 --port 8080 -t 4
//
// then
//
//	rec, err := whispercpp.New(whispercpp.Config{
//		URL:       "http://127.0.0.1:8080",
//		Languages: []string{"en"}, // an .en model; leave unset for multilingual ones
//	})
//	if err := rec.Health(ctx); err != nil { ... } // optional: the model is loaded
//
// and give rec to transcribe.Config.Recognizer. whisper-server decodes one
// request at a time (a global mutex); its -t sets the threads per
// request. For a server started with --inference-path, set
// Config.InferencePath to match.
//
// # Several servers
//
// Config.URLs (with or instead of URL) names more servers running the same
// model: the Recognizer spreads requests over them (adapters/enginepool),
// each to the server with the fewest in flight, Config.Concurrency (1) at
// a time per server, skipping a server that is unreachable or answers
// 502/503/504 until its GET /health passes again (the request it held is
// sent again on another server at once). With every server down the
// errors wrap transcribe.ErrEngineUnavailable, as with one. Capacity()
// (servers × Concurrency) is how many pieces of a long job the Service
// sends at once, and a file longer than openai.PoolWholeFile (90 s) is
// left to the Service to cut, so that all servers work on it;
// Config.OnServer is the per-server metrics hook.
//
// # Concurrency
//
// A Recognizer is safe for concurrent use.
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: Recognizer (the
// type New returns) and the defaults Config documents (DefaultName,
// DefaultInferencePath, DefaultFileFormats).
package whispercpp
