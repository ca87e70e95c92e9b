package nlp

import (
	"strings"

	"github.com/kljensen/snowball/english"
)

// IsStopWord reports whether the normalized word (Token.Norm) carries no
// topic of its own: Snowball's English stop-word list
// (github.com/kljensen/snowball, the list its stemmer uses) plus the words
// that list lacks and speech is full of: contractions, modal verbs, fillers
// and discourse markers ("um", "yeah", "okay", "gonna"), vague quantifiers
// and the most general verbs and adverbs ("get", "really", "also").
func IsStopWord(norm string) bool {
	if english.IsStopWord(norm) {
		return true
	}
	_, ok := extraStop[norm]
	return ok
}

var extraStop = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, w := range strings.Fields(extraStopWords) {
		m[w] = struct{}{}
	}
	return m
}()

// extraStopWords extends Snowball's list for transcribed speech.
const extraStopWords = `
i'm i've i'd i'll you're you've you'd you'll he's he'd he'll she's she'd she'll
it's it'd it'll we're we've we'd we'll they're they've they'd they'll that's
that'll there's there're here's what's what're where's who's how's let's
isn't aren't wasn't weren't hasn't haven't hadn't doesn't don't didn't won't
wouldn't shan't shouldn't can't cannot couldn't mustn't mightn't needn't ain't
would could might must shall may ought can't
um uh er ah eh hmm mm mhm uh-huh oh ooh yeah yep yes nope okay ok alright
right well like gonna wanna gotta kinda sorta y'know
also actually really just quite rather pretty maybe perhaps probably
basically literally totally sure anyway anyways though although however
yet still even ever never always often sometimes usually already soon
lot lots bit thing things stuff something anything everything nothing
someone anyone everyone somebody anybody everybody nobody
somewhere anywhere everywhere nowhere
get gets got gotten getting go goes went gone going come comes came coming
make makes made making take takes took taken taking say says said saying
tell tells told telling know knows knew known think thinks thought
see sees saw seen look looks looked want wants wanted need needs needed
let lets put puts keep keeps kept give gives gave given mean means meant
much many several every
another either neither whether whatever whichever whoever
via per upon among amongst within without across along around toward towards
`

// Stem returns the Snowball (Porter2) English stem of a normalized word,
// so that "alerts", "alerted" and "alerting" share the stem "alert". Stop
// words are returned unchanged. It is safe for concurrent use.
func Stem(norm string) string { return english.Stem(norm, false) }
