package pii

import (
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
)

// plainSentences are ordinary sentences with no personal information, full
// of words that are also names, places or attributes in other contexts
// ("will", "may", "mark", "bill", "china", "single", "straight",
// "independent", "reading", "nice", "turkey", "long drive"), and of the
// cue words of other rules used without a value ("my password expired",
// "I live in fear", "call me later").
var plainSentences = []string{
	"i will send you the file when i get back to the office",
	"you may want to check the second page before we start",
	"we need to mark the boxes that are ready for shipping",
	"can you pay the bill before the end of the day",
	"i hope the weather will be nice for the trip",
	"we are reading the report and it looks good",
	"the turkey was in the oven for a long time",
	"please put the china back in the cabinet",
	"this is a single page document with three sections",
	"go straight down the road and turn left at the light",
	"she is an independent thinker and a hard worker",
	"the store opens at nine and closes at six",
	"we bought two chairs and a table for the kitchen",
	"the team played well but lost the game in the end",
	"my mother makes the best apple pie",
	"i think we should take a break and come back later",
	"the number of people who came was higher than last time",
	"he was reading a book about the history of the war",
	"the children were playing in the park all afternoon",
	"could you call me back when you have a moment",
	"there is a lot of work to do before the holidays",
	"the car needs new tires and an oil change",
	"we had one hundred and twelve people at the event",
	"i saw a movie with my friends on the weekend",
	"the cat jumped on the table and knocked over a glass",
	"let me know if you have any questions about the plan",
	"we walked along the river and watched the boats",
	"the meeting went well and everyone agreed on the budget",
	"she plays the piano and sings in a choir",
	"the garden looks beautiful in the spring",
	"this order includes three items and a gift card",
	"i need to get some sleep before the long drive",
	"they moved the desk closer to the window",
	"the new version of the app is much faster",
	"he said the package would arrive in a few days",
	"we are going to paint the fence this summer",
	"the teacher asked the class to read chapter two",
	"my brother fixed the sink in the bathroom",
	"you can leave the keys on the counter",
	"it was a long day but we finished everything",
	"the account was closed last year",
	"call me later when you are free",
	"my card is in the car",
	"i live in fear of missing the bus",
	"we moved to a bigger house",
	"she is from the sales team",
	"the security code did not work",
	"my password expired so i reset it",
	"he lives in a small apartment near the station",
	"i was born in a small town",
	"the plate was broken so we bought a new one",
	"the license expired last month",
	"they live on the third floor",
	"she is single minded about her goals",
	"he came from work at six",
	"the card expires soon",
	"my number one priority is the customer",
	"we are open from nine to five",
	"i need to renew my passport soon",
	"it was a long day at the office and then we went home",
}

// TestPrecisionOrdinarySpeech counts what the detector finds in ordinary
// speech, formatted as the Service does: only the one real entity (an
// occupation) may come out. Each find is reported with the spoken
// sentence it came from (the formatted text in the message).
func TestPrecisionOrdinarySpeech(t *testing.T) {
	var found, texts []string
	for _, say := range plainSentences {
		fw := formatted(words(say))
		for _, e := range (Detector{}).Detect(fw) {
			found = append(found, e.EntityType+":"+e.Text+" in "+say)
			texts = append(texts, transcribe.JoinWords(fw))
		}
	}
	if len(found) != 1 || found[0] != "occupation:teacher in the teacher asked the class to read chapter two" {
		t.Errorf("found in %d plain sentences:\n%v\nformatted: %q", len(plainSentences), found, texts)
	}
}
