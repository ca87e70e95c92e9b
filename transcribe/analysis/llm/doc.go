// Package llm is an optional language-model back end for summaries,
// chapter titles and gists, and a judge for key phrases, topics and
// content safety labels: a client for the OpenAI-compatible
// chat-completions API (POST {BaseURL}/chat/completions) that llama.cpp's
// llama-server, Ollama, vLLM, LocalAI and cloud providers all serve.
//
// Entry points:
//
//   - New validates a Config (BaseURL and Model required; timeout, token
//     limit, temperature, API key, HTTP client optional) and returns a
//     Client.
//   - Client implements summary.Generator: Summarize (every summary_type
//     and summary_model) and Chapter (gist, headline and summary of one
//     chapter, asked for as a JSON object). Give it to
//     summary.Options.Generator.
//   - Client.Choose picks, among a list of options, those that fit a
//     text for a task, as a JSON array checked against the options: the
//     Chooser of the key phrase, topic and content safety stages
//     (keyphrases, topics and safety Options.Chooser), which only ever
//     narrow or reorder their own results with it.
//   - Client.Complete is the raw exchange, for other uses;
//     Client.CompleteUsage also returns the token usage the server
//     reported, and PlainText cleans a free-form answer as Summarize
//     does (both for LeMUR, package httpapi/lemur).
//
// # When the transcript leaves the process
//
// Never, unless a server configures this back end: the summary and
// chapter stages are extractive and in-process by default, and only send
// text here when summary.Options.Generator is set to a Client (or the
// Chooser of the key phrase, topic or content safety options: those send
// the transcript's text, cut at 24,000 characters, or one flagged
// passage's). What is
// sent is the transcript's text (redacted words stay redacted, since the
// stages run after PII redaction), one sentence per line with its speaker,
// condensed to its most central sentences beyond
// summary.Options.MaxGeneratorChars. Point BaseURL at a server you
// control (a local llama-server or Ollama) to keep transcripts on your
// machines.
//
// # Failures
//
// Every request has a deadline (Config.Timeout, default 60 s) and every
// failure is an error that wraps one sentinel: ErrUnreachable (refused,
// reset, cut off; also every 5xx, as *APIError), ErrTimeout,
// ErrMalformed (not a chat completion), ErrTruncated (finish_reason
// "length"), ErrUnusable (a complete answer that is not the summary
// asked for), or the caller's context error; *APIError carries the
// status and the server's own message. The stages in package summary
// treat any error except a cancelled job as a reason to fall back to the
// extractive result, so a dead or misbehaving model server never fails a
// transcript.
//
// # Answers
//
// Small local models wrap answers in preambles, code fences, Markdown
// and reasoning blocks; Summarize removes <think> blocks, fences, a
// "Here is ...:" line, then makes the answer plain text: HTML script and
// style elements, comments and tags are removed (a list item becomes a
// "- " line), Markdown links and images keep only their text, code,
// bold and underline marks go, and so do control characters (other than
// newline and tab) and bidirectional overrides; '#' stays, since hash
// redaction writes it. It then shapes the answer: "- " bullet lines (from
// "-", "*", "•" or numbered lists; at most 10, or 16 for bullets_verbose,
// else ErrUnusable), a gist of at most ten words without quotes or final
// period, a headline on one line, a paragraph on one line. Chapter reads
// the JSON object even when it is fenced or surrounded by text, and makes
// each of its three strings plain text on one line. The summary stages
// check the result again (length against the text sent and the type,
// plain text) and redact it when the transcript is redacted: see package
// summary. Reasoning that servers return in separate
// fields (llama-server's "reasoning_content", Ollama's "reasoning") is
// ignored.
//
// # Tests
//
// The tests run a real HTTP server on loopback that replays answers
// recorded in testdata/, each shaped after the server's own source, named
// in the file's "source" field: llama-server's
// server_task_result_cmpl_final::to_json_oaicompat_chat
// (ggml-org/llama.cpp tools/server/server-task.cpp) and
// format_error_response (tools/server/server-common.cpp); Ollama's
// openai.ToChatCompletion and openai.NewError (ollama/ollama
// openai/openai.go). No model runs in the tests: the weights cannot be
// downloaded here. Every failure path is exercised, through the client
// and through the summary and chapter stages falling back: connection
// refused, timeout, 503 while loading, 500 from a crashed runner, 400
// context overflow, 404 unknown model, HTML from a proxy, empty choices,
// null content, a body cut off mid-JSON, an oversized body, truncation at
// max_tokens, unusable answers and a cancelled context. Hostile answers
// (hostile_test.go) are replayed through the stages: 5,001 bullets, pages
// of text, HTML with scripts, Markdown links, terminal escapes and
// names, numbers and addresses the model wrote itself.
//
// This client is written by hand on net/http: the official openai-go SDK
// pulls in a large dependency tree for one POST, and the compatible
// servers differ from OpenAI's API in ways a strict SDK rejects (extra
// fields, error bodies, missing usage).
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: the defaults
// Config documents (Default*) and the errors callers match with errors.Is
// (ErrConfig, ErrUnusable).
package llm
