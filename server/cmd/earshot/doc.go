// Command earshot is Earshot's command-line client and server:
//
//	go install ./server/cmd/earshot   (from a clone of the repository)
//
// # Commands
//
//	earshot transcribe FILE|URL [flags]   upload (or give a URL), transcribe, print
//	earshot stream FILE [flags]           real-time transcription through /v3/ws (--protocol v2: /v2/realtime/ws)
//	earshot list [--limit N --status S --before ID --after ID --created-on DATE]
//	earshot get ID [--format F --wait]
//	earshot delete ID...
//	earshot serve [server flags]          the reference server (server/cmd/earshot-server)
//	earshot version
//	earshot help [COMMAND]
//
// transcribe takes every request parameter of POST /v2/transcript as a flag
// (--speaker-labels, --language-code en, --word-boost a,b,
// --redact-pii --redact-pii-policies person_name,phone_number,
// --summarization --summary-type bullets, --webhook-url URL, ...), shows a
// progress bar for the upload and the processing on stderr (plain lines
// when stderr is not a terminal; --quiet silences them), and prints the
// result as --format text, json, srt, vtt, sentences or paragraphs
// (--chars-per-caption N for subtitles) to stdout or -o FILE.
//
// # Untrusted server output
//
// What a server sends is printed as text, never as terminal control: in
// every human-readable output (text, sentences, paragraphs, srt, vtt, the
// list table, stream lines, progress and error messages, on a terminal or
// not, to stdout or -o FILE) C0 control characters other than newline and
// tab (and a carriage return before a newline, which SRT and VTT may use),
// DEL, C1 controls, bidirectional marks, overrides and isolates, U+2028,
// U+2029 and bytes that are not UTF-8 are written escaped ("\x1b",
// "\u202e", "\xff"); in one-line messages and table cells newlines and
// tabs are escaped too. JSON output (--format json, list --format json,
// stream --format json) is the server's JSON with DEL, C1, bidirectional
// characters and U+2028/U+2029 written as \u escapes (JSON already
// escapes C0), so it decodes to the same values.
//
// -o FILE never writes through a symbolic link: a FILE that is a link, a
// directory, a named pipe or a device is refused (exit code 2). The output
// is written to a new file in FILE's directory that then replaces FILE,
// so a failed write leaves an old FILE as it was; it has mode 0600 (owner
// only) unless --output-mode MODE (octal, such as 0644) asks otherwise,
// also when FILE existed with another mode. A FILE to read (transcribe,
// stream) must be a regular file, or a link to one: a named pipe, a device
// or a directory is refused before it is opened (exit code 2); pipe data
// to transcribe as standard input with "-" instead.
//
// # Servers
//
// EARSHOT_URL (or --url) is the server's origin and EARSHOT_KEY (or --key)
// its API key. With no URL, transcribe, stream, list, get and delete start
// the reference server inside the process (server.StartInProcess)
// on a free loopback port, with a random API key for the run and its data in
// EARSHOT_DATA or --data (default <user cache dir>/earshot, e.g.
// ~/.cache/earshot), and talk to it over HTTP with exactly the same code as
// to a remote server. Its transcripts belong to the project "default" (the
// reference server's development key's project), so later runs list and get
// them. One data directory serves one server: when an `earshot serve` (or
// another in-process run) holds it, the command says so and suggests --url.
// The in-process server allows audio URLs on private networks (its only
// client is the local user) and logs only errors unless EARSHOT_LOG_LEVEL
// is set; other EARSHOT_* variables tune it as they tune `earshot serve`.
// It stops when the command ends, so transcribe --no-wait needs a running
// server (--url). Against a running server, Ctrl-C while waiting leaves the
// transcript to finish there and says how to fetch it (earshot get --wait
// ID).
//
// serve is server's ParseConfig and Run under the command's
// context (SIGINT and SIGTERM end it), as server.Main does; it
// checks the data directory's lock first so that a directory in use is
// exit code 5, like the in-process case.
//
// # Exit codes
//
//	0    success
//	1    the transcript ended in error, the server answered with an error, or another failure
//	2    usage error: unknown command or flag, bad parameter value, unreadable or non-regular input file, -o FILE a link or not a regular file
//	3    authentication error: the server refused the API key or temporary token
//	4    not found: no such transcript (or one of another project)
//	5    the server cannot be reached, or the in-process server cannot start
//	130  interrupted (Ctrl-C or SIGTERM)
//
// Every error is printed as one line on stderr, "earshot: ...".
//
// # Choices
//
// The client side is the official AssemblyAI Go SDK v1.10.0 (upload,
// submit, get, list, delete, subtitles, sentences, paragraphs, temporary
// tokens, the real-time client), so the command also exercises the
// compatibility Earshot promises. Three things bypass it, each because the
// SDK would change what is sent or shown:
//
//   - Submitting: the SDK's request struct lacks the newer parameters
//     (keyterms_prompt, prompt, speech_models, domain, language_codes,
//     language_detection_options, speaker_options, temperature, speed_boost,
//     remove_audio_tags, speech_understanding, redact_pii_audio_options,
//     redact_static_entities) and would silently drop them. The request is
//     converted to the SDK's struct and back; if anything was lost the same
//     JSON is posted to /v2/transcript directly, and the SDK does the rest.
//   - --format json prints the server's JSON as is (GET /v2/transcript/ID,
//     and list --format json the list page): the SDK's Transcript struct
//     would drop fields it does not know.
//   - A cheap authenticated GET /v2/transcript?limit=1 before an upload or
//     a stream reports a wrong key (exit 3) or an unreachable server
//     (exit 5) before any audio is sent.
//
// The parameter flags are generated by reflection from
// transcribe.TranscriptParams, so a parameter added there gets a flag with
// no change here (a test checks that every JSON field has one, with help
// text). Booleans are --flag or --flag=false; lists are comma-separated and
// the flag may be repeated; object parameters take JSON or @FILE, and each
// of their fields has its own flag (--speaker-options.max-speakers-expected
// 3); --custom-spelling also takes FROM[,FROM...]=TO. Parameters are
// checked locally with the server's own rules (TranscriptParams.Validate)
// before anything is uploaded, and errors name the flag
// ("--redact-pii-policies: is required when --redact-pii is true").
//
// Flags may come before or after the arguments (earshot transcribe a.wav
// --speaker-labels): the standard flag package parses them, restarted after
// each argument. A flag module (cobra, urfave/cli) was not needed for eight
// commands, and would not generate the parameter flags any better.
//
// The progress display is hand-written (progress.go, about 150 lines): it
// needs a byte bar for the upload, a status line with elapsed time for the
// processing, plain lines when stderr is a file, and must stay out of
// stdout; the progress-bar modules fit only the first. golang.org/x/term
// tells whether stderr and stdout are terminals and how wide.
//
// stream decodes the file with transcribe/media (any format the server
// accepts; ffmpeg for the containers Go cannot read) to 16 kHz mono and
// sends 100 ms chunks paced at real time times --speed, but never more
// than 30 s ahead of real time (both protocols refuse audio a minute
// ahead by default), so a fast --speed on a long file is slowed, not
// refused.
//
// By default (--protocol v3) it speaks Universal-Streaming
// (realtime/universal) with its own small client on
// github.com/coder/websocket (stream_v3.go; the Go SDK v1.10.0 has no v3
// streaming): /v3/ws?sample_rate=16000&encoding=pcm_s16le&format_turns=true,
// authenticated by the API key in the Authorization header, or with
// --token by a single-use token from GET /v3/token?expires_in_seconds=60 in
// the URL; --word-boost becomes keyterms_prompt. It waits for Begin, sends
// the audio as binary frames, then {"type":"Terminate"}, and waits (30 s
// at most) for Termination. Text output prints each ended turn's formatted
// copy as a line; --partials shows the words of the open turn (and the
// ended turn until its formatted copy comes) in place; --format json prints
// every Turn message as the server sent it. An Error message and close
// ends the command with its code and text (1008, a refused key or token:
// exit 3).
//
// --protocol v2 keeps the deprecated real-time API (/v2/realtime/ws) with
// the Go SDK's RealTimeClient: finals as lines, PartialTranscript in place,
// --format json every partial and final message, and
// --end-utterance-silence-threshold (v2 only: a usage error with v3). The
// SDK's Disconnect waits forever for SessionTerminated, so the command
// watches the session's errors beside it and gives up after 30 s.
//
// # Code
//
// main calls isolate.Main first (a no-op unless the process is a worker of
// an isolated engine) and then run(ctx, args, stdin, stdout, stderr), which
// returns the exit code; each command is in its own file (cmd_*.go) and
// tests run them in-process against a real reference server.
package main
