package safety

import (
	"slices"
	"testing"
)

// TestSmokeIsNotTobacco: smoke from a fire is not tobacco (a news
// interview about a fire got tobacco 0.999), while the habit still is.
func TestSmokeIsNotTobacco(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"Smoke from the fire filled the valley, and thick smoke could be seen for miles as firefighters worked.",
		"The building was evacuated after smoke was seen coming from the kitchen.",
		"Residents were told to stay inside because the smoke from the wildfires is getting worse.",
	} {
		if got := labelsAt(s); slices.Contains(got, Tobacco) {
			t.Errorf("tobacco in %q (labels %v)", s, got)
		}
	}
	for _, s := range []string{
		"He has been smoking a pack a day for years and wants to quit.",
		"She smoked cigarettes all through college.",
	} {
		if got := labelsAt(s); !slices.Contains(got, Tobacco) {
			t.Errorf("no tobacco in %q (labels %v)", s, got)
		}
	}
}

// TestNeutralMisreads: names and idioms of the neutral news train and dev
// parts that read as labels (issue 23), next to the literal uses whose
// lexicon evidence must stay (lexicon and rules alone: the context gate
// may still weaken a lone signal such as "blunt").
func TestNeutralMisreads(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ text, label string }{
		{"The sale of the team to Rob Walton and his family was approved by the owners.", CrimeViolence},
		{"The host put it bluntly when she was asked about the new season.", Marijuana},
		{"The announcement in the contract ignites a firestorm of criticism among teachers.", Disasters},
		{"They are gunning for glory in the final and keeping their powder dry.", Weapons},
		{"The documentary is shameless, damning and weirdly humanistic.", Profanity},
		{"The lawyers asked the judge to dismiss the sex abuse suit against the actor.", Pornography},
		{"The club will try overturning the ruling on appeal next week.", Accidents},
		{"Brandi Chastain says the plaque looks nothing like her.", Alcohol},
		{"The winners list: Bong Joon Ho took the top prize for best director.", Marijuana},
		{"Some parents were worried about COVID and kept their children at home this term.", HealthIssues},
		{"Women's tennis is really strong, she said. The old view that the game was lazy and slow is gone.", HateSpeech},
	} {
		if got := labelsAt(c.text); slices.Contains(got, c.label) {
			t.Errorf("%s in %q (labels %v)", c.label, c.text, got)
		}
	}
	for _, c := range []struct{ text, label string }{
		{"Two men robbed the bank and escaped with the cash.", CrimeViolence},
		{"He rolled a blunt and smoked it behind the school.", Marijuana},
		{"The firestorm swept through the valley and destroyed two hundred homes.", Disasters},
		{"He pulled a gun on the cashier.", Weapons},
		{"Damn, that was close.", Profanity},
		{"The video shows explicit sex and is not suitable for work.", Pornography},
		{"She was diagnosed with COVID and spent a week in hospital with a fever.", HealthIssues},
		{"He said those immigrants are lazy and should be thrown out.", HateSpeech},
	} {
		if got := lexiconLabels(c.text); !slices.Contains(got, c.label) {
			t.Errorf("no %s in %q (labels %v)", c.label, c.text, got)
		}
	}
}

// TestHardNewsMisreads: business and politics news of the BBC train and
// dev parts read as labels through a word's other sense ("joint bids",
// "ill-timed", "the collapse of the firm", "investors betting on a cut",
// "sex discrimination", HIV drugs, "a year high on Tuesday"), next to the
// literal uses, which must keep their evidence.
func TestHardNewsMisreads(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ text, label string }{
		{"The two companies could work together on joint bids from next year.", Marijuana},
		{"He acknowledged he would have a blunt style in the talks.", Marijuana},
		{"Opposition parties said the rate rise was ill-timed given the weak data.", HealthIssues},
		{"Consumer spending had been depressed by one-off factors.", HealthIssues},
		{"Shareholders lost billions after the collapse of the firm in 2002.", Accidents},
		{"Drinkers drown their sorrows in cheaper beer-flavoured drinks.", Accidents},
		{"Exports shot up 7.5% with growth in the new markets.", CrimeViolence},
		{"Pundits are betting on an election in May.", Gambling},
		{"Unilever and Procter & Gamble both saw sales fall last year.", Gambling},
		{"It was a gamble, he said, but the plan paid off for the chancellor.", Gambling},
		{"She has lost her sex discrimination case against the bank.", Pornography},
		{"She has lost her sex discrimination case against the bank.", NSFW},
		{"Claims that Downing Street sexed up the dossier were denied.", Pornography},
		{"One of the largest makers of HIV drugs has launched an initiative against smuggling.", Drugs},
		{"Shares closed at a two-year high on Tuesday after the results.", Drugs},
		{"Oil prices fell after the producers' cartel Opec said it would raise output.", Drugs},
		{"The Food and Drug Administration will decide on Friday.", Drugs},
		{"The show moved to a later time slot and similar slots on other channels.", Gambling},
		{"Eleven people were wrongly jailed for the IRA bomb attacks on pubs in 1974.", Alcohol},
		{"Facebook is still allowing mug shots even though they can ruin lives.", Alcohol},
		{"Megan Fox and Machine Gun Kelly hint at saucy behaviour on a table.", Weapons},
	} {
		if got := labelsAt(c.text); slices.Contains(got, c.label) {
			t.Errorf("%s in %q (labels %v)", c.label, c.text, got)
		}
	}
	for _, c := range []struct{ text, label string }{
		{"They smoked a joint behind the shed before the concert.", Marijuana},
		{"The roof collapsed on the workers during the storm.", Accidents},
		{"He was shot in the leg outside the bar.", CrimeViolence},
		{"He lost his savings betting on horses and playing poker at the casino.", Gambling},
		{"Police seized heroin and cocaine, and the drugs were worth millions.", Drugs},
		{"She was diagnosed with a serious illness last year.", HealthIssues},
		{"He has suffered from depression since his divorce.", HealthIssues},
		{"Eleven people were wrongly jailed for the IRA bomb attacks on pubs in 1974.", Terrorism},
	} {
		if got := lexiconLabels(c.text); !slices.Contains(got, c.label) {
			t.Errorf("no %s in %q (labels %v)", c.label, c.text, got)
		}
	}
}
