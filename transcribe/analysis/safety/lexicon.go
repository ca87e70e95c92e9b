package safety

import _ "embed" // lexicon.txt

// lexiconText is the weighted lexicon, lexicon.txt: one term per line,
//
//	label weight severity term words [!exclusion ...]
//
// weight is the evidence a mention gives (about 2 for a word that names
// the topic, 1 for one that usually signals it, 0.5 for a hint);
// severity (0..1) is how grave the mention is. Words are matched by their
// Snowball stems, so "robbed" and "robbery" need one entry each only when
// their stems differ; hyphenated words are split ("e-cigarettes" = "e
// cigarettes"). An exclusion word within three words of the term cancels
// it ("flu shot", "great shot"). A word written "=word" matches that
// exact word only, not its stem ("=bomb" is not "bombing"); "^" before it
// counts the word only as a noun, not before a content word it would
// modify ("^=joint": "rolled a joint", not "joint bids"). Labels are the API's keys; "news" lines
// are the framing cues of negative_news, "newsneg" lines its negative
// events, "hate_target" and "hate_derog" the two halves of hate speech,
// "intense" and "educational" the severity cues, and "safe" lines
// idioms whose words count for no label ("killed it", "shoot me an
// email"). An exclusion written "!!word" cancels the term when the word
// occurs anywhere in the segment ("crash" in a segment about a server). Written from the
// labels' definitions and tuned on testdata/dev.txt (and four stemming
// collisions made exact words after reading the BBC News dev part).
//
//go:embed lexicon.txt
var lexiconText string
