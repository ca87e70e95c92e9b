// Package export turns a completed transcript into SRT and WebVTT captions,
// sentences, paragraphs and word-search results. Every function is pure: it
// reads a *transcribe.Transcript, never changes it, and is safe to call from
// many goroutines at once.
//
// Entry points:
//
//   - SRT and VTT: GET /v2/transcript/{id}/srt and /vtt, with the
//     chars_per_caption query as their second argument (0 = default).
//   - Sentences and Paragraphs: GET /v2/transcript/{id}/sentences and
//     /paragraphs, returning SentencesResponse and ParagraphsResponse.
//   - ParseSearchTerms and Search: GET /v2/transcript/{id}/word-search;
//     ParseSearchTerms validates the form-decoded `words` value (its errors
//     are *transcribe.ParamError, HTTP 400) and Search returns
//     WordSearchResponse.
//   - normalize: the case- and punctuation-folding used by Search, for
//     callers that want the same matching.
//
// # Captions
//
// SRT output is numbered cues with HH:MM:SS,mmm times, a blank line between
// cues, no byte-order mark and no HTML escaping (SRT defines none). VTT
// output starts with a WEBVTT line and a blank line, its cue text has the
// two characters WebVTT reserves escaped ("&" as "&amp;", "<" as "&lt;"),
// and its cue times are MM:SS.mmm as the spec requires; from one hour on they carry an hours field (01:15:02.000), as
// the WebVTT standard requires (players reject minutes above 59). These are
// written by hand:
// github.com/asticode/go-astisub (checked at v0.34.0) writes a byte-order
// mark before SRT, HTML-escapes SRT text too and always writes
// HH:MM:SS.mmm in WebVTT, so it does not write our captions. The tests use
// it (pinned at v0.34.0) as an independent reader instead: every SRT and
// VTT file the tests and FuzzCaptions make is read back with it and must
// give the cues written, time for time and line for line, except, in SRT,
// the text of lines holding '<' or '&': SRT text is written as it is, and
// go-astisub reads SRT lines as HTML ("R&D at <Acme> costs" reads back as
// "R&D at  costs"), as many SRT players do.
//
// Captions are built from the transcript's words; a cue runs from its first
// word's start to its last word's end. A word whose text is empty is
// skipped (it would end the cue); whitespace inside a word becomes a single
// space, and a run of dashes before '>' one dash (no cue timing arrow).
//
// No caption line is ever longer than its limit. A word longer than a
// line is split into pieces of at most a line each: at a space inside it
// when there is one within the limit, otherwise into pieces as even as the
// limit allows ("respectable" at 10 characters gives "respec" and "table"),
// never cutting a combining mark, variation selector, emoji modifier or
// zero-width joiner from its character unless the limit leaves no choice.
// No hyphen is added (at a limit of one or two characters there is no room
// for one). Each piece takes its share of the word's time in proportion to
// its characters, and the pieces take lines of their own in captions of
// their own: the word's captions hold nothing else.
//
// With chars_per_caption = N > 0 each caption is one line of at most N
// characters (Unicode code points, spaces included), filled greedily; a
// word longer than N is split as above, one caption per piece. A speaker or
// channel change and a silence of CaptionPauseMillis also start a new
// caption.
//
// The default segmentation (chars_per_caption 0) follows common subtitle
// practice: at most DefaultMaxLines lines of DefaultLineChars characters
// (a longer word split over the lines of its own captions),
// balanced in length, a new caption after every sentence end, at a speaker
// or channel change, after a silence of CaptionPauseMillis, and before a
// caption would span more than DefaultMaxCueMillis.
//
// # Sentences and paragraphs
//
// Sentences end at sentence-final punctuation on a word (the engine's own
// when it punctuates, which transcribe/textfmt keeps; otherwise what the
// punctuate stage put there; a title such as "Dr." ends none) or, in a
// transcript with none, at pauses of
// SentencePauseMillis; a speaker or channel change always ends one.
// Paragraphs are runs of whole sentences, broken at speaker or channel
// changes, silences of ParagraphPauseMillis and ParagraphMaxWords. Each word
// belongs to exactly one sentence and one paragraph. Times are integer
// milliseconds; empty transcripts give empty arrays, never null.
//
// # Word search
//
// Terms are compared by normalize keys (lowercase, punctuation removed,
// inner apostrophes and decimal points kept), so "$25" matches "25" and
// "hello" matches "Hello,". A phrase matches consecutive words. For each
// occurrence Search reports [start, end] of the matched words and, in
// indexes, the position of the occurrence's first word in the transcript's
// words array, so timestamps, indexes and count always agree. Terms with no
// occurrence are left out of the response, as in the API's documented
// example.
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: the response
// shapes of the export endpoints (SentencesResponse, ParagraphsResponse,
// WordSearchResponse, Sentence, Paragraph, Match) for Go callers that decode
// them, and the limits and defaults the spec gives (Max*, Default*,
// *MaxWords, *PauseMillis).
package export
