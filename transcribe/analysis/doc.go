// Package analysis is the parent of the audio-intelligence feature stages:
// each subpackage turns the final words of a transcript into one result
// field of the API. This package holds no code.
//
// Subpackages:
//
//   - nlp: the text utilities the analyses share (tokens with their word
//     index and times, stop words, stemming, part-of-speech tagging, and
//     sentences and paragraphs exactly as the /sentences and /paragraphs
//     endpoints cut them).
//   - keyphrases: auto_highlights_result (auto_highlights).
//   - sentiment: sentiment_analysis_results (sentiment_analysis).
//   - safety: content_safety_labels (content_safety,
//     content_safety_confidence).
//   - topics: iab_categories_result (iab_categories).
//   - summary and chapters: summary (summarization) and chapters
//     (auto_chapters), with an optional LLM back end in llm.
//
// # Order in the pipeline
//
// The analyses run after every stage that changes the words: the textfmt
// stages (so they see punctuation, casing and written numbers), the pii
// stages (so they never see text that redaction removes) and the stage that
// builds utterances (so words carry their speaker). They only read the words
// and each writes its own result field, so their order among themselves
// does not matter; transcribe/pipeline runs them as
//
//	keyphrases -> sentiment -> safety -> topics -> summary -> chapters
//
// Every analysis is best effort: it implements transcribe.FallibleStage, so
// a failure marks its result unavailable and the transcript still
// completes.
package analysis
