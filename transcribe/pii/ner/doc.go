// Package ner is the learned named-entity tagger behind entity_detection's
// person_name, location and organization (package transcribe/pii): people,
// places and organisations in transcript words, in written text with
// casing (engine text) and in lower-case recognizer output.
//
// # Model
//
// A first-order sequence tagger over the BIO tags of CoNLL-2003's four
// types (PER, LOC, ORG, MISC; MISC is learned so that it is not taken for
// the others, and transcribe/pii ignores it), trained as an averaged
// structured perceptron (Collins 2002) and decoded by Viterbi, I- tags
// only after B- or I- of their type. Features of each word: the word
// lower-cased, its prefixes and suffixes of one to four letters, its
// length, digits and hyphens, the punctuation written before and after it
// and after the word before, the words two before and two after and the
// bigrams with each neighbour, and its membership (and its neighbours') in
// the lexicon classes of transcribe/pii's gazetteers (given names,
// ambiguous given names, surnames, titles, places, organisations,
// nationalities; longest multi-word match first). The cased model adds the
// word as written, its shape ("Xx", "X.X.", "d-d"), the shapes of its
// neighbours, whether it starts a sentence, and whether the same word is
// written capitalised inside a sentence elsewhere in the transcript. The
// lower-case model reads lower-cased words only.
//
// Each model stores the lexicon it was trained with and the words the
// training text writes in lower case three times or more (Model.Ordinary:
// common vocabulary, which transcribe/pii uses to tell a name the casing
// missed, "John smith", from "the Bucharest stock exchange").
//
// # Data and licence
//
// CoNLL-2003 English (Tjong Kim Sang and De Meulder, 2003): Reuters news
// of 1996 with named-entity labels; the copy read is data/conll2003 of
// github.com/israelcamp/T5-For-NER at commit
// 9f817ecb8bb3bf91eb239a9562067a9daccd5814 (train.txt 946 documents,
// valid.txt 216, test.txt 231). The Reuters text (RCV1) may not be
// redistributed, so no text of it is in this repository. What is committed
// is learned feature weights: a feature is a word, affix or shape with a
// weight per tag, no sentence or document can be rebuilt from them, and
// publishing models trained on CoNLL-2003 is common practice (spaCy,
// Stanford NER, Flair and others do). Whoever redistributes the models
// should know they derive from Reuters data.
//
// # Training
//
//	git clone https://github.com/israelcamp/T5-For-NER /tmp/t5ner
//	git -C /tmp/t5ner checkout 9f817ecb8bb3bf91eb239a9562067a9daccd5814
//	go run ./internal/cmd/trainner -data /tmp/t5ner/data/conll2003
//
// Documents are read as a transcript holds them (ReadCoNLL: punctuation
// tokens joined to the word before, "Japan ," -> "Japan,"; sentence starts
// taken from the punctuation, as transcribe/pii does). Only train.txt is
// learned from; valid.txt picks the pass (15 at most, the best kept) and
// the pruning threshold (|w| >= 0.5: dev F1 0.905 / 0.900 / 0.890 at 0.5 /
// 1 / 2, cased); test.txt was read once, after these choices. Training is
// deterministic and takes about a minute; the lower-case model is trained
// on lower-cased copies of the same documents.
//
// # Figures
//
// Exact spans, micro-averaged over PER, LOC and ORG, the models alone
// (go run ./internal/cmd/trainner ... -test):
//
//	                     valid.txt           test.txt
//	                   P     R     F1      P     R     F1
//	cased model      0.906 0.905 0.905   0.849 0.838 0.844
//	lower-case model 0.896 0.827 0.860   0.831 0.732 0.778
//
// Through entity_detection (transcribe/pii's detector, the tagger with the
// rules) internal/nereval measures 0.818 cased and 0.760 lower-cased on
// test.txt, next to 0.447 and 0.355 without the tagger. The rules cost
// the detector about 2.5 points against the models alone on CoNLL: they
// keep conventions of their own (a region joins its place, "Chicago,
// Illinois"; places after "from"; gazetteer organisations) that CoNLL
// labels otherwise, and they are what keeps precision on conversational
// text, where the models, trained on news, are weaker.
//
// cased.bin.gz (1.2 MB, 71,735 features) and lower.bin.gz (1.6 MB, 95,087
// features) are embedded; model_test.go checks their SHA-256 against the
// models these figures describe.
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: Model and Tags
// for callers that tag text themselves, F1 (the CoNLL measure its figures
// use) and Checksums, which the training command records.
package ner
