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
