package pii_test

import (
	"fmt"
	"strings"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/pii"
)

func formattedWords(text string) []transcribe.Word {
	var ws []transcribe.Word
	for i, f := range strings.Fields(text) {
		ws = append(ws, transcribe.Word{Text: f, Start: int64(i) * 400, End: int64(i)*400 + 350, Confidence: 0.9})
	}
	return ws
}

func ExampleDetector_Detect() {
	ws := formattedWords("Hi, my name is Sarah Johnson and my number is 555-1234.")
	for _, e := range (pii.Detector{}).Detect(ws) {
		fmt.Printf("%s %q %d-%d\n", e.EntityType, e.Text, e.Start, e.End)
	}
	// Output:
	// person_name "Sarah Johnson" 1600-2350
	// phone_number "555-1234" 4000-4350
}

func ExampleRedact() {
	ws := formattedWords("Sarah paid $25 by card 4111111111111111 in Boston.")
	spans := pii.Detector{}.Spans(ws)
	hashed, _ := pii.Redact(ws, spans, []string{"person_name", "credit_card_number"}, pii.SubHash)
	fmt.Println(transcribe.JoinWords(hashed))
	named, _ := pii.Redact(ws, spans, []string{"person_name", "money_amount", "location"}, pii.SubEntityName)
	fmt.Println(transcribe.JoinWords(named))
	// Output:
	// ##### paid $25 by card ################ in Boston.
	// [PERSON_NAME] paid [MONEY_AMOUNT] by card 4111111111111111 in [LOCATION].
}

func ExampleStages() {
	for _, s := range pii.Stages(pii.Options{}) {
		fmt.Println(s.Name())
	}
	// Output:
	// entity_detection
	// redact_pii_audio
	// redact_pii
}
