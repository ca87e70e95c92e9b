// Package lemur serves AssemblyAI's LeMUR API on the operator's own
// OpenAI-compatible chat model (llama.cpp's llama-server, Ollama, vLLM,
// LocalAI or a cloud API, through package llm): POST
// /lemur/v3/generate/{task,summary,question-answer,action-items}, GET
// /lemur/v3/{request_id} and DELETE /lemur/v3/{request_id}, in the shapes
// of the official Go SDK v1.10.0 (lemur.go, types.go).
//
// New(Config) returns a Handler; give it to httpapi.Config.LeMUR, which
// mounts the routes behind the API's authentication, rate limits,
// request ids and access log (without a Handler, httpapi answers every
// LeMUR route 400 "no language model is configured"). The reference
// server builds one when EARSHOT_LLM_URL is set.
//
// # Requests
//
// transcript_ids (completed transcripts of the caller's project; another
// project's id is 404 like GET /v2/transcript/{id}, one not completed is
// 400) or input_text, never both; context (a string or any JSON value),
// final_model (echoed in the answer; every request is answered by the
// configured model), max_output_size (1 to 4000 tokens; default 2000, or
// a quarter of the model's context when that is less) and temperature
// (0 to 1, default 0). task needs prompt; summary and action-items take
// answer_format; question-answer needs questions (question, context,
// answer_format or answer_options). Wrong types are 400 naming the field.
//
// A transcript is sent as its utterances ("Speaker A: ...") or its text.
// A transcript made with redact_pii has only redacted text to send: the
// pipeline redacts the words before anything is stored.
//
// # Long inputs
//
// Tokens are estimated as three characters each. An input that does not
// fit the model's context (Config.ContextTokens, less max_output_size,
// the instructions and the context) is cut into parts, between lines and
// sentences, each naming its transcript; each part is read on its own for
// notes (map), and the notes, in order, are the input of the final
// answer (reduce; notes that are still too long are read again, up to
// three rounds). The answer then carries a "warning" saying so. A model
// that refuses a prompt as longer than its context gets parts half the
// size, three times at most. An input needing more than Config.MaxParts parts
// is 400.
//
// # Failures
//
// Every model call is bounded (Config.ModelTimeout) and so is the whole
// request (Config.RequestTimeout). Model failures are answered with the
// reason: 504 when the model or the request timed out; 503 with
// Retry-After when the model server is loading or overloaded (503, 429);
// 502 when it is unreachable, failed (5xx), does not serve the model
// (404), refused the credentials or the input as too long, or answered
// with something that is not a usable chat completion (HTML, no choices,
// null or empty content, a body cut off, answers that are not the JSON
// asked for, once retried); 422 when the answer hit max_output_size.
//
// # Answers
//
// Answers are plain text (llm.PlainText: reasoning, fences, HTML and
// Markdown, control and bidi characters removed). question-answer asks
// for a JSON object of answers in order; an answer to a question with
// answer_options is the option it names. usage counts every model call:
// the tokens the server reported, or the estimate when it reported none.
// Answers are sealed (AES-256-GCM, Config.Key) and kept in Config.Store
// for Config.Retention; DELETE purges one.
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: the LeMUR
// request and response shapes (Response, QA, Usage, Kind and the Kind*
// values) for Go clients that decode them, the spec's limits (Max*), the
// defaults Config documents (Default*) and Handler, which an embedder mounts.
package lemur
