// Package textfmt holds the text formatting feature stages: they turn the
// lower-case, unpunctuated words of a speech recognizer into readable text.
//
// Entry points:
//
//   - Stages returns every stage in the order it must run; give it to
//     transcribe.Config.Stages (each stage enables itself from the request's
//     parameters).
//   - Format runs the same pipeline on a word slice without a Service (for
//     realtime final transcripts and tests).
//   - The stage types ITN, Punctuator, Disfluencies, Casing, CustomSpelling
//     and ProfanityFilter, each usable alone (ITN.Format,
//     Punctuator.Punctuate, Disfluencies.Remove, Casing.Case,
//     CustomSpelling.Respell, ProfanityFilter.Censor).
//
// Every stage implements transcribe.Stage, edits job.Transcript.Words only
// (the Service recomputes text and confidence with Transcript.Fill), is safe
// for concurrent use, and works on a zero value. A token that replaces
// several words ("$25" for "twenty five dollars") takes the start of the
// first and the end of the last, the mean of their confidences, and the
// first word's speaker and channel; words of different speakers or
// channels are never merged. Attached punctuation is ignored when matching.
//
// # Order
//
//	ITN -> Punctuator -> Disfluencies -> Casing -> CustomSpelling -> ProfanityFilter
//
// Why this order:
//
//   - ITN (format_text, default true) first, so that punctuation never
//     splits a number and lands on the written token ("$25.").
//   - Punctuator (punctuate, default true) before filler removal, so that
//     the time a filler took ("I think um we") is not mistaken for a pause.
//     Question cues skip leading fillers.
//   - Disfluencies (unless disfluencies is true) then removes fillers,
//     moving a removed filler's sentence-final mark to the word before.
//   - Casing (format_text) after punctuation, which decides where
//     sentences start.
//   - CustomSpelling (custom_spelling) after all formatting, so its `to`
//     spelling is final and is what later stages see.
//   - ProfanityFilter (filter_profanity) last, so it also masks words a
//     custom spelling produced.
//
// format_text false keeps the spoken form (no ITN, no casing); punctuate
// false adds no punctuation. Both are independent.
//
// # What the engine wrote is kept
//
// Stages wraps ITN, Punctuator and Casing in EngineGate, which reads
// transcribe.Job.Written (what the recognizer's words already carry, set
// by the adapter: see adapters/openai, "Engine text") and skips the stage
// when the engine already did its work. Per stage:
//
//   - ITN runs only on spoken-form words; an engine that wrote its numbers
//     (Written.Numbers) keeps them ("4111 1111 1111 1111", "09/28",
//     "sarah75@skynet.com"). ITN on written text would join numbers across
//     the engine's punctuation, so an engine that writes text but spells
//     a number keeps the number spelled.
//   - Punctuator runs only when the engine gave no punctuation
//     (Written.Punctuation false): an engine's sentence ends, commas and
//     question marks are kept, so sentences and paragraphs (transcribe/
//     export) follow the engine's sentence ends.
//   - Casing runs unless the engine both cased and punctuated its words;
//     on an engine that cased but gave no punctuation it raises the
//     sentence starts the Punctuator placed (Casing only raises letters).
//   - Disfluencies, CustomSpelling and ProfanityFilter always run as asked;
//     they match words without their attached punctuation.
//
// punctuate false and format_text false reach the engine adapter
// (transcribe.RecognizeOptions), which trims the engine's punctuation or
// brings its words to the spoken form; the stages then add nothing of
// what was turned off. Entities, PII redaction and the analyses run after
// these stages and so see the engine's casing and written forms.
//
// # Inverse text normalisation (ITN)
//
// Written forms, tried in this order at each word:
//
//   - e-mail: "john dot smith at example dot com" -> "john.smith@example.com",
//     digits spoken one by one join the user name ("sarah seven five at
//     skynet dot com" -> "sarah75@skynet.com")
//     (the domain must end in a known top-level domain; pronouns and
//     function words never start an address, so "reach me at example dot
//     com" stays "me at example.com").
//   - web address: "w w w dot example dot com", "example dot com slash
//     pricing" -> "www.example.com", "example.com/pricing".
//   - clock time: "three thirty p m" -> "3:30" "PM"; "ten a m" -> "10"
//     "AM"; "seven o'clock" -> "7" "o'clock"; "at seven fifteen" -> "7:15"
//     only after a time preposition (at, by, around, until, ...), since
//     "three thirty" alone may be two numbers.
//   - date: month + day [+ year]: "january fifth" -> "January 5th" (an
//     ordinal day keeps its suffix, a cardinal day "january five" ->
//     "January 5" does not); "march third twenty twenty four" ->
//     "March 3rd, 2024"; month + year "may twenty twenty" -> "May 2020".
//   - year spoken in pairs: "nineteen ninety nine" -> "1999", "twenty oh
//     five" -> "2005", "nineteen hundred" -> "1900", decades "nineteen
//     eighties" -> "1980s": always for nineteen
//     and twenty, after a year context word (in, since, of, from, ...) for
//     other centuries.
//   - digit sequence: three or more single digits ("oh" is zero inside a
//     sequence): 7 digits "555-1234", 10 "555-123-4567", 11 starting with
//     1 "1-800-555-1234", other lengths plain ("room three oh five" ->
//     "305").
//   - money: "twenty five dollars" -> "$25", "three dollars and fifty cents"
//     -> "$3.50", "three point five dollars" -> "$3.50", "five million
//     dollars" -> "$5" "million". Cents alone stay a number ("50 cents").
//   - percent: "ten percent" / "ten per cent" -> "10%".
//   - ordinal: "twenty first" -> "21st", "one hundredth" -> "100th".
//   - cardinal: "one hundred and twelve" -> "112", "one thousand" -> "1,000",
//     "three point one four" -> "3.14", "five million" -> "5" "million";
//     "a" + one scale word stays words ("a hundred", "a million thanks").
//     "twenty four seven" -> "24/7".
//     Thousands separators from 1,000, except a four-digit number after a
//     year context word ("in two thousand twenty four" -> "2024").
//
// Small numbers: a cardinal or ordinal spoken as one word below ten stays a
// word ("one of them", "the first time", "two cats"), as AP and Chicago
// style write them and as AssemblyAI does in running text; ITN.SpellOutBelow
// changes the threshold. Money, percentages, times, dates and digit
// sequences always use digits. Compound and larger numbers become digits
// ("ten" -> "10", "twenty five" -> "25").
//
// # Punctuation
//
// When the recognizer gives none, Punctuator places it with the learned
// model of package punctmodel (the default; Options.PunctuationModel,
// DefaultOptions): from the words around each gap, the pause there (less
// the channel's median gap, so that evenly spaced word times read as no
// pause) and changes of speaker or channel, it places commas, sentence
// ends and question marks, and gives names, places and acronyms their
// capitals. A pause of 600 ms or more, a change of speaker or channel and
// the last word always end a sentence. It never puts a mark inside a
// number or digit run, a number and its unit, a date, an address ("123
// elm street"), a title or given name and the name after it, spelled
// letters, a spoken e-mail address ("sarah at example dot com"), or after
// an article, a possessive, "and" or "of": PII redaction and entity
// detection read those spans whole.
//
// The pause rules (Punctuator.PauseOnly, Options{}: the baseline the model
// is measured against) place marks from word timing and cues: a pause of
// 600 ms or more, a change of speaker or channel, or the last word ends a
// sentence; a sentence is a question ("?") when its first
// word, after fillers and "so"/"and"/"but"/"well", is a question word not
// followed by a subject pronoun ("what time is it" but not "when I was
// young"), or an auxiliary verb followed by a subject ("is it", "can you",
// "did the train"), or when it ends with a tag ("isn't it"); it ends with
// "." otherwise. Commas go at pauses of 250-600 ms, before "but"
// and before "so" + subject joining clauses, and after an introductory
// word ("well", "however", "yes", "no", "okay", ...). Sentences longer than
// 40 words are split at their longest comma pause. All thresholds are
// fields of Punctuator. The last word always ends with "." or "?"; the
// model decides "?" or "." for its own sentences with its sentence-level
// question classifier (punctmodel.Questions), and uses the same question
// rules only when it has none (an embedder's model, Punctuator.Model).
//
// # Casing
//
// Sentence starts, "I" and its contractions (I'm, I'll, I've, I'd), titles
// before a name ("mister john" -> "Mr. John"; Mrs., Ms., Dr.), and the
// gazetteer in gazetteer.go: common given names, US states, countries and
// nationalities, major cities, months, days and holidays, matched as
// phrases ("new york", "rio de janeiro"). Names that are also common words
// (will, mark, bill, grace, hope, ...) are left out; "may" and "march" are
// capitalised only next to a number or after "in"/"since"/... ("in March").
// Casing only raises letters, and leaves e-mail and web addresses alone.
//
// # Fillers, custom spelling, profanity
//
// Fillers are um, uh, hmm, mhm and "uh huh" with the spellings recognizers
// use (umm, uhm, hm, mm, mhmm, uh-huh, er, erm). Custom spelling replaces
// phrases of up to five words, longest first, with the `to` word exactly as
// given, keeping the last word's trailing punctuation. The profanity filter
// uses github.com/TwiN/go-away's word lists with whole-word matching (plus
// inflections and compounds) and writes the first letter followed by
// asterisks: "shit" -> "s***".
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: the formatting
// stages one by one (Casing, CustomSpelling, Disfluencies, ITN, Punctuator,
// EngineGate, Stages) for pipelines of one's own, IsFiller, and ErrConfig.
package textfmt
