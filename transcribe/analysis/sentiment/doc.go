// Package sentiment fills sentiment_analysis_results: the sentiment
// (POSITIVE, NEUTRAL or NEGATIVE) of every sentence of a transcript, with
// a confidence, its times, speaker and channel.
//
// Entry points:
//
//   - Stages(Options) returns the pipeline stage (Stage, named
//     "sentiment_analysis", enabled by sentiment_analysis). It runs after
//     the textfmt, pii and utterance stages and reads the final words.
//   - Stage.Analyze returns the results without changing the transcript.
//   - Analyzer.Classify labels one piece of text.
//
// # Method
//
// Sentences are those of the /sentences endpoint (nlp.Sentences, which is
// export.Sentences), so each result lines up with a sentence a client can
// fetch. Each is scored by VADER (github.com/jonreiter/govader, a port of
// Hutto and Gilbert's lexicon-and-rules analyser: 7,500 rated words and
// emoticons, negation, intensifiers, "but" clauses, punctuation emphasis),
// with rules for transcribed speech around it, because VADER was built for
// written social-media text:
//
//   - Words are lower-cased: a transcript's capitals come from the
//     formatter, never from emphasis, and acronyms would read as shouting.
//   - Discourse markers and fillers that VADER scores as sentiment are
//     dropped: "like" unless tagged as a verb (nlp.Tag), "well", "okay",
//     "right", "yeah", "sure", "honestly" opening a clause, tag questions
//     ("..., right?"), and "please".
//   - Negation (VADER's list plus "nobody") reaches the first sentiment
//     word of its clause ("nobody on the team is happy"), not just the
//     three words VADER looks back, and stops there ("hasn't fixed the
//     leak" negates the fixing only), at a conjunction, and at a main verb
//     ("didn't fix the broken heater"), except verbs that pass negation on
//     ("don't think it's good").
//   - A small lexicon of words and multi-word expressions VADER lacks is
//     added (lexicon.go: "crashed", "refund", "on hold", "stopped
//     working", "charged twice"...), and "shared" and "holiday" are made
//     neutral.
//
// A sentence whose compound score is at least Options.Threshold (default
// 0.2) is POSITIVE, at most -Threshold NEGATIVE, otherwise NEUTRAL.
// Confidence is a logistic reading of the distance from the threshold:
// 0.5 at the threshold, about 0.9 at 0.27 past it; a neutral sentence is
// most confident at score 0. A sentence of redacted words only is NEUTRAL.
//
// VADER is used rather than written again because it is the standard
// lexicon method and the module is a faithful, tested port; only the
// speech rules around it are this package's own.
//
// # Measured quality
//
// testdata/dev.txt (96 sentences, 32 per class) is what the lexicon
// additions, the rules and the threshold were chosen on; testdata/test.txt
// (66 sentences, 22 per class, written at the same time by the same
// author, never used for tuning) is the held-out set reported here. Both
// cover support calls, meetings, interviews, reviews, clinics, earnings
// calls, classrooms and travel. `go test -v -run 'Dev|HeldOut'
// ./transcribe/analysis/sentiment` prints:
//
//	set                                          accuracy
//	dev (tuned on), reference text               97.9% of 96
//	held-out, reference text                     86.4% of 66   (target 85%)
//	held-out, flite + pocketsphinx (WER 11.1%)   81.8% of 66   (floor 70%)
//
// History, for honesty: the held-out set was also measured before any
// tuning (VADER with the speech pre-processing and threshold 0.3: 84.8%)
// and after the first round (87.9%); the negation-scope rule for main
// verbs, added for sentences outside both sets (TestRules), moved it to
// 86.4%. 7 of its 9 errors are negative sentences read as neutral. On
// recognized speech, recognition errors replace some of the words that
// carry the sentiment.
//
// Cost: see BenchmarkStages in transcribe/analysis/nlp (this stage,
// key phrases and content safety on a 750-word transcript).
package sentiment
