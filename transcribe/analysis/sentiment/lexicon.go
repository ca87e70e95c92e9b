package sentiment

// maxPhraseWords is the longest multi-word entry of lexicon.
const maxPhraseWords = 3

// lexicon extends VADER's lexicon (same scale, -4..4) with words and
// multi-word expressions of spoken English that it lacks; multi-word
// entries are written with "_" between the words and are matched on
// consecutive words of one clause. Entries were added for errors seen on
// the dev set (testdata/dev.txt) only, never for sentences of the held-out
// test set.
var lexicon = map[string]float64{
	// Verbs and adjectives of things going wrong or right.
	"crashing": -1.8, "crashed": -1.8, "crashes": -1.8,
	"dies": -1.5, "slow": -1.2, "invalid": -1.0, "leak": -1.0,
	"downhill": -1.5, "worried": -1.2, "layoffs": -2.0,
	"dropped": -1.2, "fell": -1.2, "declined": -1.0,
	"smooth": 1.2, "smoother": 1.5, "smoothest": 1.8, "smoothly": 1.2,
	"exceeded": 1.5, "helped": 1.5, "fixed": 1.0,
	// Customer-service talk.
	"refund": -0.8, "on_hold": -1.0, "charged_twice": -1.5,
	"never_arrived": -2.0, "stopped_working": -2.0,
	"price_increase": -1.0, "too_long": -1.0,
	// Disbelief is emphasis, not negation.
	"can't_believe": 0, "cannot_believe": 0,
}

// neutralWords are removed from VADER's lexicon: in transcribed speech
// they are nearly always neutral.
var neutralWords = map[string]bool{
	"shared": true, "holiday": true,
}

// extraNegations extend VADER's negation words.
var extraNegations = []string{"nobody"}
