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
// These rules are for speech only. A sentence with a mark of written
// social-media text that no recognizer or formatter writes (written.go:
// an emoticon of VADER's lexicon such as ":)", ":D" or "<3", an
// @mention, a #hashtag, a link) is read as plain VADER reads it: its
// compound score on the text as written, with VADER's documented ±0.05
// thresholds, and the model below is not used. "!" and capitals are not
// such marks (a recognizer may write "!", a formatter writes acronyms).
//
// The label comes from a model learned on public data (model.go,
// model.json): a multinomial logistic regression over 17 features of the
// sentence: the compound score after the speech rules and its magnitude,
// VADER's positive, negative and neutral proportions after them, the same
// for plain VADER (its published lexicon) read over the sentence after
// the same rules but with its capitals and emoticons kept, whether each
// compound score passes its usual threshold, and the sentence's length.
// Confidence is the chosen label's probability against the runner-up's,
// p1/(p1+p2), in [0.5, 1]. A non-zero Options.Threshold turns the model
// off: a sentence whose compound score is at least Threshold is POSITIVE,
// at most -Threshold NEGATIVE, otherwise NEUTRAL, with a logistic
// confidence (0.5 at the threshold, about 0.9 at 0.27 past it). A
// sentence of redacted words only is NEUTRAL.
//
// # Model
//
// go run ./internal/cmd/trainsentiment -vader DIR trains it (seconds) on
// the training halves of VADER's four human-rated sets (Hutto and
// Gilbert, ICWSM 2014: 4,200 tweets, 10,605 movie-review snippets, 3,708
// product-review snippets, 5,190 New York Times editorial snippets, each
// rated -4..4 by about 20 people; github.com/cjhutto/vaderSentiment commit
// 44fc044, additional_resources/hutto_ICWSM_2014.tar.gz, MIT licence),
// each set weighing the same, plus testdata/dev.txt weighing half a set.
// A sentence's gold label is its mean rating beyond ±0.5 (GoldBand, half
// a step of the raters' scale, fixed before measuring). HeldOut fixes the
// held-out half of each set (an FNV hash of its id); training never reads
// it, and the features were chosen on a quarter of the training halves
// (-tune). The suite checks that model.json is the one the figures below
// describe (its SHA-256) and scores testdata/vader-heldout-sample.tsv
// (100 held-out sentences per set, MIT, attribution in the file).
//
// VADER is used rather than written again because it is the standard
// lexicon method and the module is a faithful, tested port; only the
// speech rules around it are this package's own.
//
// # Measured quality
//
// External: the held-out halves of VADER's human-rated sets, against
// plain VADER (govader with its documented ±0.05 thresholds) in the same
// run. EARSHOT_VADER_DATA=DIR go test -v -run VADERExternal
// ./transcribe/analysis/sentiment prints (model sha256 216a1a94...), and
// fails if the model is below plain VADER on any set:
//
//	held-out half              n    model  plain VADER  (3 classes, gold ±0.5)
//	tweets                  2100    82.9%        82.9%   (80.5% before the written-text rule)
//	movieReviewSnippets     5303    56.2%        54.8%
//	amazonReviewSnippets    1862    62.3%        60.6%   (62.2% before)
//	nytEditorialSnippets    2592    56.8%        54.9%
//
// The target (≥ plain VADER on each set) is met on every set; on tweets
// only just (a tie at 82.9%). Before the written-text rule it was missed
// by 2.4 points on tweets: the speech rules (fillers such as "like" and
// "please" dropped, emoticons with letters such as ":D" split, the
// neutral band of speech) cost on tweets, where VADER was built. The rule
// was found and checked on the training halves only: 72% of the tweets
// there carry such a mark (14% an emoticon), against at most 0.2% of the
// other three sets and none of the speech sets (testdata), whose figures
// below are therefore unchanged; the model is not retrained. The held-out
// halves were scored once, after the rule was fixed. On the training
// halves (where the model is fitted, so its figures there flatter it),
// ours against plain VADER:
//
//	training half              n    model  plain VADER
//	tweets                  2100    81.5%        81.9%   (79.2% before)
//	movieReviewSnippets     5302    56.1%        54.1%
//	amazonReviewSnippets    1846    59.3%        58.9%
//	nytEditorialSnippets    2598    57.6%        56.5%
//
// and in a 4-fold cross-validation of the model over the training halves,
// tweets 78.8% before and 81.5% with the rule, against 81.9%, the other
// sets unchanged (55.9%, 59.0%, 57.8%). The remaining gap on tweets is
// in the 28% without a mark, read as speech.
//
// In-repo sets (written here; testdata/dev.txt, 96 sentences, was tuned
// on; testdata/test.txt, 66 sentences, never): `go test -v -run
// 'Dev|HeldOut' ./transcribe/analysis/sentiment` prints:
//
//	set                                          rules only   model
//	dev (tuned on), reference text               97.9%        93.8% of 96
//	held-out, reference text                     86.4%        87.9% of 66   (target 85%)
//	held-out, flite + pocketsphinx (WER 11.1%)   81.8%        83.3% of 66   (floor 70%)
//
// History, for honesty: the held-out set was also measured before any
// tuning of the rules (84.8%) and after their first round (87.9%). On
// recognized speech, recognition errors replace some of the words that
// carry the sentiment.
//
// Cost: see BenchmarkStages in transcribe/analysis/nlp (this stage,
// key phrases and content safety on a 750-word transcript).
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: Stage and
// Result for pipelines of one's own, DefaultModel, ErrOptions, and
// ModelSHA256, which the training command records.
package sentiment
