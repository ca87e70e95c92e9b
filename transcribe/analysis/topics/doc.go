// Package topics is topic detection (iab_categories): it labels each
// paragraph of a transcript with categories of the IAB Content Taxonomy 2.0
// and sums them up over the whole transcript, as iab_categories_result.
//
// Entry points:
//
//   - Stages (for transcribe/pipeline) and Stage: a transcribe.Stage,
//     PendingStage ({} while queued) and FallibleStage ("status":
//     "unavailable" when it fails) that fills
//     Transcript.IABCategoriesResult when iab_categories is true.
//   - CustomStage (also in Stages) fills Transcript.CustomTopicsResults
//     (custom_topics_results) when custom_topics is true: the relevance
//     of each requested topic per paragraph and a summary, in the shape
//     of iab_categories_result (see CustomStage for the scoring);
//     Classifier.DetectCustom computes it.
//   - Default returns the Classifier built from the embedded data;
//     Classifier.Classify labels a text, Classifier.Detect a transcript,
//     Classifier.Labels lists the 698 labels.
//   - Classifier.KeywordLabels ranks stems by the keyword profiles alone,
//     without the family model (the scoring before it): a signal that
//     grows smoothly with every keyword, for comparing short spans with
//     each other (chapter segmentation in transcribe/analysis/summary);
//     what users get (iab_categories_result) is Classify's.
//
// # Result
//
// One result per paragraph, cut exactly as GET
// /v2/transcript/{id}/paragraphs cuts them (nlp.Paragraphs), with the
// paragraph's text, its timestamp (first word's start, last word's end, in
// milliseconds) and up to Options.MaxLabels labels (default 20, the
// documented maximum) whose relevance is at least Options.MinRelevance
// (default 0.05), most relevant first. Labels are exactly the lines of
// data/labels.txt ("Sports>Tennis"). The summary maps at most
// Options.MaxSummary labels (default 20) to their relevance over the whole
// transcript: the mean of the paragraphs' relevance weighted by their
// number of words (a label missing from a paragraph counts 0 there).
// Relevance is rounded to four decimals. An empty transcript gives status
// "success" with no results and an empty summary.
//
// # How labels are scored
//
// Every category has a profile of terms: the words of its own name from
// the taxonomy ("Indoor Environmental Quality") and a curated keyword
// list (data/keywords.txt, about 6,000 words and phrases written for this
// package: "air purifier", "mold", "humidity"...). Text and profiles are
// compared after Snowball English stemming (nlp.Stem), so "purifiers"
// matches "air purifier"; at each word the longest matching phrase wins.
// A term adds weight × specificity × (1 + ln count) to each category that
// holds it: weight 2 for a category's full name and keywords marked
// decisive, 1 for other keywords, ½ for single words of a category's name;
// specificity is 1/√(number of tier-1 families using the term), so
// "court" (law and basketball) counts less than "wimbledon". A category's
// score then mixes the evidence of its whole tier-1 family (half) with its
// own evidence plus that of its ancestors (half; a tier-1 category's own
// evidence passes on at half weight), so a specific label backed by its
// family ranks first, and a stray keyword of another family does not.
// Relevance is 1 − exp(−score/4).
//
// # Family model
//
// Keywords alone mistake stray words for topics (a news interview's
// "foot" and "sexual" gave Foot Health and Sexual Health). A family
// model decides which tier-1 families a text is about: multinomial naive
// Bayes over the Features of its stems (package topics/nb; uniform
// class priors, Dirichlet-prior smoothing with μ = 800 towards the
// pooled distribution of all classes), over 23 classes (the 29 tier-1 categories,
// with Movies, Music, Television, Pop Culture, Books and Fine Art as one
// "Entertainment" class and Medical Health with Healthy Living as one
// "Health" class; package topicdata). It is trained on public labelled
// news mapped to those classes (package topicdata names the sets, their
// splits and licences: the BBC News set, and the News Category Dataset
// of HuffPost headlines, CC BY 4.0) plus one document per tier-1
// category made of its keyword profile, so the categories news sets lack
// (Pets, Automotive, Careers...) have a voice. The class probabilities
// are
//
//	softmax((ll_k + 0.25 × E_k) / (1 + n/5))
//
// with ll_k the model's log-likelihood of class k, E_k the keyword
// evidence of its families and n the known features: the model decides
// long stories, the keywords weigh more in a short paragraph. A label
// backed by keywords then gets relevance √(keyword relevance × its
// class's probability), and each class offers the tier-1 category its
// keywords favour at half its probability; with no word known to the
// model the keyword ranking alone is used.
//
// In that combined ranking a subcategory earns its family's evidence
// only as far as it has evidence of its own: the family part of its
// score is scaled by (own evidence ÷ the most own evidence of one of its
// siblings)², and its profile leaves out the words of its ancestors'
// names ("software" of Photo Editing Software is evidence of Computer
// Software and Applications; "Internet of Things" is not the word
// "internet"). Before, every sibling with one stray word got nearly its
// family's relevance: a story about a browser gave Photo Editing, Video,
// Graphics and Antivirus Software and Internet of Things 0.99 each, an
// Olympic kit deal Summer and Winter Olympic Sports alike. Nor does a
// single word of a category's name that the family model finds in every
// family at about the same rate (nb.Model.Spread below 4: "new" of New
// Age Music, "first" of First Aid, "country" of Country Music, "news" of
// News Radio; the full names still count); chosen on the dev parts (2.5,
// 4 and 6 tried: at 4 every dev figure was as good or better), test parts
// once after: wrong siblings 51.7% → 50.0%, first subcategory right
// 26.3% → 26.5%, BBC off-tier-1 5.2% → 5.0%, HuffPost 79.2% → 78.9%
// (three headlines; off-tier-1 9.0% → 9.2%), 20 Newsgroups and the
// in-repo sets unchanged. The keyword ranking (KeywordLabels, the
// baseline) and the model's training documents keep the full profiles.
//
// The model (data/model.nb.gz, 118 kB, 16,361 features) is trained by
// go run ./internal/cmd/traintopics -bbc <bbc folder> -huffpost
// <News_Category_Dataset_v3.json> (its constants were chosen on the dev
// parts; the test parts are never trained or tuned on), which also
// writes data/model.sha256. TestModelChecksum checks that the shipped
// model matches that checksum, loads and knows every class.
//
// HuffPost files its lists of what is new on Netflix under HOME & LIVING
// (56 of that category's training records): counted as Home & Garden
// they taught the model that Netflix is about the home, and a list of
// new Netflix shows got Home & Garden first (0.62). The training
// command now counts those records as Entertainment
// (topicdata.TrainingClass); the dev and test gold is left as published.
// Dev parts (train-only model): HuffPost 80.3% → 80.7% (Entertainment
// 71.8% → 74.0%), BBC 95.8% → 95.5% (one article), 20 Newsgroups 57.7%
// → 57.8%; test parts, scored once: HuffPost 78.9% → 79.2% (off-tier-1
// 8.8% → 9.0%), BBC, 20 Newsgroups, subcategories and the in-repo sets
// unchanged.
//
// Smoothing and weights were chosen together on the dev parts of BBC,
// HuffPost and 20 Newsgroups, by the mean of their tier-1 top-1
// accuracy, with a model trained on the train parts alone (traintopics
// -dev -devmodel) and testdata/dev.txt kept at 35 of 35. Before, the
// model smoothed by add-0.3 and the keywords weighed 3 (tempering 8):
// dev parts BBC 94.9%, HuffPost 75.3%, 20 Newsgroups 57.5%. Add-α gives
// every word a class never saw the same count, so a class trained on a
// keyword profile or a few dozen records (Pets, Travel, TECH's 38)
// paid for each everyday word it lacked as for a word of another
// topic, and a high keyword weight had to make up for it. With the
// Dirichlet prior (μ 300 to 3000 and keyword weights 0 to 3 tried):
// μ = 800, keyword weight 0.25, tempering 5 gave BBC 95.8%, HuffPost
// 80.4% and 20 Newsgroups 57.7% (off-tier-1 labels 5.6%, 7.0% and
// 14.2%, against 6.5%, 17.1% and 24.6%); larger μ favours the Usenet
// posts and smaller the headlines (both with keyword weight 0 and
// tempering 8: μ 3000 94.9%, 76.4%, 60.0%; μ 300 95.3%, 82.0%, 52.3%).
// Scored once after on the
// test parts and the in-repo held-out set (figures below, the add-α
// model's in brackets).
//
// # Measured quality
//
// On public news no one here wrote, mapped to IAB tier-1, next to the
// keyword profiles alone (the classifier before the family model) in
// the same run (go test -v -run 'BBC|HuffPost'
// ./transcribe/analysis/topics/, with EARSHOT_BBC_DIR set for BBC):
//
//	set (fixed test part)               docs  tier-1 top-1      off-tier-1 label ≥ 0.5
//	                                          ours  keywords    ours  keywords
//	BBC News (5 classes, articles)       444  96.6% (96.6)  74.8%   5.0% (5.0)   82.2%
//	HuffPost News Category (headlines)   931  78.9% (75.0)  45.0%   9.2% (18.5)  36.7%
//
//	20 Newsgroups (Usenet posts)        7532  58.1% (57.8)  51.3%  12.9% (24.2)  53.7%
//
// Targets: 90% and at most 10%. BBC meets both. HuffPost meets the
// second and misses the first by 11 points: its texts are one headline and one sentence,
// its classes are fuzzier (CRIME, WORLD NEWS, U.S. NEWS and POLITICS
// all map to NewsAndPolitics; COMEDY to Entertainment) and the training
// copy is small for most classes (38 TECH, 24 TRAVEL records). The
// committed sample (testdata/huffpost-test.tsv, CC BY 4.0) is checked
// in CI with a floor of 76% and a ceiling of 12%; the BBC text may not be committed,
// so TestBBCNews skips without EARSHOT_BBC_DIR.
//
// Subcategories, on the 20 Newsgroups posts whose group is about one
// subcategory of the taxonomy (baseball, ice hockey, motorcycles,
// space, Christianity, atheism, graphics software, operating systems,
// PC and Mac hardware, cryptography; 4,261 test posts; Test20NewsSubtopics,
// mapping written before measuring): the first subcategory label given
// is the group's for 26.5% (25.5% before the scaling and the strict
// profiles; keywords alone 27.0%), mean reciprocal rank of the group's
// label 0.299 (0.300; 0.316), and a wrong sibling is given at least 90%
// of the right one's relevance (or the right one is missing) on 50.0% of
// posts (59.3%; 55.0%; 51.7% before everyday name words were left out). The exponent 2 was chosen on the dev part (1, 2
// and 0.5 tried, and scaling across the whole family instead of among
// siblings: fewer such siblings, 45.9%, but the right label ranked lower,
// MRR 0.322 against 0.333); the tier-1 figures above are unchanged by it
// but for HuffPost's off-tier-1 rate (9.5% → 8.8%) and 20 Newsgroups
// (57.9% → 58.1%, off-tier-1 13.6% → 12.9%). Recall of subcategories is
// bounded by the keyword profiles: Usenet's "Orioles", "ERA" or "Kawi"
// are in none.
//
// The in-repo sets, written here (reference text; "right tier-1
// first"): dev 100% (35), held-out test 88.5% (52; 84.6% with the add-α
// model, 94.2% with keywords alone), and the held-out test spoken by
// flite and recognized by pocketsphinx (word error rate 16.3%) 80.8%
// (78.8%; 84.6% with keywords alone; TestTestSetRecognized keeps a
// floor of 77%). The held-out test set is everyday speech about pets,
// careers, shopping and hobbies, which the news-trained model pulls
// towards technology, business and sports: 4 to 6 points worse there is
// the price of 22 to 34 points better on news.
//
// 20 Newsgroups (package topicdata; Test20News, with EARSHOT_20NEWS_DIR)
// is everyday writing, not news: there the news-trained model is 6.5
// points above keywords alone, and weakest on cars (23.4%), religion
// (27.4%), science (27.2%) and for-sale posts (1.8%). A model that also
// learns the posts' train part as a second style of each family
// ("<class>@usenet", which loadFamilyModel reads as the same family;
// go run ./internal/cmd/traintopics ... -20news DIR; measured with the
// add-α smoothing of the time), with keywordWeight 1.5 chosen on the dev parts and testdata/dev.txt (34 of 35), measured
// once on the test parts: 20 Newsgroups 87.5% (off-tier-1 7.2%), BBC
// 97.1% (4.5%), HuffPost 79.3% (11.9%), but the in-repo held-out test
// 69.2% (recognized 71.2%): everyday speech about careers, pets, food
// and travel drawn to the Usenet families. It is not shipped: the
// shipped model stays the one measured above, and the finding is that
// the in-repo dev set (35 paragraphs) does not stand for that held-out
// speech well enough to choose on.
//
// # Cost
//
// Building the classifier from the embedded data takes about 30 ms of CPU,
// once per process (BenchmarkDefault). Classifying a five-minute
// (750-word) transcript takes 1 to 7 ms (BenchmarkStageFiveMinutes here;
// BenchmarkStagesFiveMinutes/topics in transcribe/analysis/summary, which
// also times the recognizer in the same run: five minutes of speech take
// it minutes, so topic detection costs well under 0.1% of recognition).
//
// # Data and attribution
//
// data/labels.txt and data/content-taxonomy-2.0.tsv are the IAB Tech Lab
// Content Taxonomy 2.0, licensed under Creative Commons Attribution 3.0
// (© IAB Technology Laboratory, Inc.; source: the public
// InteractiveAdvertisingBureau/Taxonomies repository). data/README.md
// carries the attribution and ships with the data (it is embedded in the
// binary too). The 698 labels are the taxonomy's content categories
// without its six "Content …" metadata dimensions, in the API's form.
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: the stages
// (Stage, CustomStage) and the Classifier for pipelines of one's own, the
// defaults Options documents (Default*) and ModelChecksum, which the
// training command records.
package topics
