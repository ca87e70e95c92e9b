// Package nlp holds the text utilities the analysis stages share
// (transcribe/analysis/...): tokens tied to word indexes and times, stop
// words, stemming, part-of-speech tagging, and the transcript's sentences
// and paragraphs.
//
// Entry points:
//
//   - Tokens splits each transcribe.Word into a Token: its text without
//     surrounding punctuation, a normalized form for lexicon look-ups, the
//     punctuation before and after, its times, and whether PII redaction
//     replaced it (IsRedacted). Tokens(ws)[i] is always ws[i].
//   - Tag sets Penn Treebank part-of-speech tags on tokens
//     (github.com/jdkato/prose/v3/tag, an averaged perceptron whose model
//     ships inside that module; about 1 µs a word, loaded once).
//   - IsStopWord and Stem: Snowball's English stop words and Porter2
//     stemmer (github.com/kljensen/snowball), the stop words extended for
//     speech (fillers, contractions, discourse markers).
//   - Sentences and Paragraphs return export.Sentences and
//     export.Paragraphs as word ranges (Span), so that every analysis cuts
//     the transcript exactly as the /sentences and /paragraphs endpoints do
//     and sentence indexes in results agree with them.
//
// Everything here is safe for concurrent use and never panics on odd
// input: words of punctuation only, redacted words, empty transcripts.
//
// Subpackage nlptest holds the helpers the analysis packages' tests share:
// transcripts made from text, and the same text spoken by flite and
// recognized by pocketsphinx, cached on disk.
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: IsRedacted,
// for stages of one's own that must skip PII redactions.
package nlp
