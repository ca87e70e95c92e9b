// Package openaiapi serves OpenAI's audio transcription API from Earshot's
// engines, so that tools which speak only OpenAI's API (Open WebUI,
// AnythingLLM, Dify, the official openai SDKs) can transcribe with
// Earshot by pointing their base URL at it.
//
// # Entry points
//
// New(Config) returns a *Handler serving
//
//   - POST /v1/audio/transcriptions: a multipart/form-data upload with
//     file, model, language, prompt, response_format (json, text, srt,
//     vtt, verbose_json, diarized_json), timestamp_granularities[] (word,
//     segment) and temperature;
//   - GET /v1/models and GET /v1/models/{id}: the model names it takes.
//
// Mount it beside the AssemblyAI API; call Close before shutting the
// server down:
//
//	oai, err := openaiapi.New(openaiapi.Config{Service: svc, Auth: keys, Engines: engines})
//	mux.Handle("/v1/", oai)
//	mux.Handle("/", api) // httpapi
//	...
//	oai.Close(ctx)
//
// Clients use the base URL https://host/v1 and an Earshot API key as their
// OpenAI key ("Authorization: Bearer <key>"):
//
//	const client = new OpenAI({ baseURL: 'http://127.0.0.1:8080/v1', apiKey: key });
//	const tr = await client.audio.transcriptions.create({ file: fs.createReadStream('a.wav'), model: 'whisper-1' });
//
// Render writes a completed transcribe.Transcript in any response format
// and can be used on its own; the response types (Transcription,
// TranscriptionVerbose, Segment, Word, TranscriptionDiarized, ModelList)
// follow the official SDKs' types (openai-node
// src/resources/audio/transcriptions.ts and src/resources/models.ts,
// openai-python src/openai/types/audio/transcription_verbose.py).
//
// # How a request is served
//
// The handler is a thin layer over transcribe.Service. The multipart body
// is read part by part (mime/multipart, no hand-written parser): the file
// part streams into Service.Upload and is never held in memory, and the
// fields before it are checked first, so a bad request stores nothing.
// Fields may come before or after the file (the openai SDKs put them in
// either order). Then Service.Submit, a wait for the transcript (Service.Get
// after 20 ms, the wait doubling up to Config.PollInterval), and the
// answer. OpenAI keeps nothing, and neither does this handler: the
// transcript is deleted (Service.Delete: content, upload and artifacts)
// before its answer is written, and an upload stored for a request that
// is then refused is removed too (the Service has no call for dropping an
// unused upload, so it is attached to a transcript deleted at once). A
// deleted transcript leaves a content-free record (id, status, duration,
// times). Every transcript of a request is filed under JobProject(project)
// ("<project>,v1", a project no key of the reference server names), not
// under the key's project: neither while its job runs nor after is it in
// the project's GET /v2/transcript list or readable through /v2 by id;
// Service.List with JobProject(project) lists them apart.
//
// Each request spends one request of its project's budget when it
// arrives, before its file is read (Config.Guard; the reference server
// shares one httpapi.Guard between /v1, /v2 and realtime), so clients that
// send a file and hang up are limited like any other; over the budget is
// 429 rate_limit_exceeded with Retry-After. Route names a request's route
// for httpapi.Instrument (access log and metrics beside the AssemblyAI
// API's).
//
// A client that goes away cancels nothing, it only stops waiting: its job
// runs on and its transcript is deleted once final. Past Config.Timeout
// (default none) the client gets 504 and the same happens. Close ends the
// requests still waiting with 503 and deletes their transcripts (which
// stops their jobs), as well as those of clients that went away.
//
// # Mapping onto the Service
//
//   - model: an engine's Name or one of its Aliases (transcribe.Engine),
//     or a key of Config.Aliases, by default "whisper-1" for the default
//     engine; the AssemblyAI model names (best, nano, ...) select the
//     default engine as on the AssemblyAI API. Any other name is a 400
//     with code model_not_found listing the models. GET /v1/models lists
//     the aliases, then each engine's name and aliases (leaving out the
//     AssemblyAI names, unless one is an engine's name).
//   - language (ISO-639-1, e.g. "en"; a regional code such as "en-US" or a
//     whisper name such as "english" works too) becomes language_code; an
//     engine that does not transcribe it makes a 400 naming language.
//     Without it the Service's language detection runs, falling back to
//     the engine's first language when the audio holds no speech, so
//     silence gives {"text": ""} as on OpenAI (with a language given, the
//     Service reports silence as an error: 400).
//   - prompt goes as the prompt to an engine that takes one
//     (RecognizerFeatures.Prompt: whisper.cpp, OpenAI-compatible
//     servers); for the others (pocketsphinx) its comma-, semicolon- or
//     line-separated phrases of up to six words become keyterms_prompt, so
//     a glossary prompt boosts its terms. Prose is not a term list and is
//     left out.
//   - temperature is checked (0 to 1) and echoed in segments; the engines
//     here decode deterministically.
//   - response_format diarized_json turns speaker_labels on and answers
//     the utterances as segments with speakers "A", "B", ...
//   - stream=true is a 400 (no streamed transcription here: use the
//     realtime API); other fields OpenAI knows (include[],
//     chunking_strategy, known_speaker_names[]) are ignored.
//
// # Answers
//
// json is {"text", "usage": {"type": "duration", "seconds"}}; text is the
// text and a newline; srt and vtt are export.SRT and export.VTT (text/plain;
// charset=utf-8, as OpenAI sends all three); verbose_json has task,
// language (whisper's name: "english"), duration (the Service's
// audio_duration, whole seconds), text, usage, and
// segments (the default granularity: export.Sentences, text with whisper's
// leading space) and/or words (without punctuation, as OpenAI gives them).
// Segment fields Earshot's engines have no value for are filled honestly:
// tokens [], no_speech_prob 0, avg_logprob the mean log word confidence,
// compression_ratio computed from the text as whisper does, seek the
// start in 10 ms frames (see Segment).
//
// # Errors
//
// Every error is {"error": {"message", "type", "param", "code"}} (Error)
// with OpenAI's status codes: 400 invalid_request_error naming the field
// (no file, an empty file, an unknown format, model or language, a
// malformed body, media that cannot be decoded); 401 for a missing key
// and, with code invalid_api_key, a wrong one (sent before the body is
// read, with Connection: close; failures are rate limited per client
// address, 429, keys that authenticated from it before excepted); 404 for unknown paths and models; 405; 413 past
// Config.MaxUploadBytes or the Service's cap; 500 server_error for the
// server's own failures, 503 when the engine is unavailable or the
// handler is closing, 504 past Config.Timeout, 507 for a full disk. A
// transcript's error is shown when it is about the media; the Service's
// fixed sentences for its own failures are told apart by their text
// (the only signal a Transcript carries), pinned by a test.
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: OpenAI's
// transcription response shapes (Transcription, TranscriptionVerbose,
// TranscriptionDiarized, Segment, DiarizedSegment, Word, Usage, Model,
// ModelList, Error and its Type* values) for Go clients that decode them,
// the response_format values (Format*, Formats), Render for front ends of
// their own, and the defaults Config documents (Default*).
package openaiapi
