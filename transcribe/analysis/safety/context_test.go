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
