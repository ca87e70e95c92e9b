package topics

import (
	"reflect"
	"testing"
)

// TestKeywordLabelsUngated checks that KeywordLabels is the keyword
// ranking alone: the same as the classifier without its family model, on
// texts where the family model changes the labels of ClassifyStems.
func TestKeywordLabelsUngated(t *testing.T) {
	t.Parallel()
	c := classifier(t)
	base := c.keywordsOnly()
	texts := []string{
		"The striker scored twice and the coach praised the defence after the match.",
		"I walked through the water stations and kept going until the finish line.",
		"The mortgage rate doubled, so first time buyers have less room in their budget for a down payment.",
		"Feed the sourdough starter flour and water every day, then bake the dough in a hot oven.",
	}
	differs := false
	for _, text := range texts {
		stems := TextStems(text)
		got := c.KeywordLabels(stems, 40, 0)
		if want := base.ClassifyStems(stems, 40, 0); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: KeywordLabels %v, keyword profiles alone %v", text, got, want)
		}
		if len(got) == 0 {
			t.Errorf("%q: no keyword labels", text)
		}
		if !reflect.DeepEqual(got, c.ClassifyStems(stems, 40, 0)) {
			differs = true
		}
		if d := c.KeywordLabels(stems, 0, 0); len(d) > DefaultMaxLabels {
			t.Errorf("%q: max 0 gave %d labels, more than DefaultMaxLabels", text, len(d))
		}
	}
	if !differs {
		t.Error("KeywordLabels equals ClassifyStems on every text: the family model is not bypassed, or the texts do not show it")
	}
	if ls := c.KeywordLabels(nil, 0, 0); ls == nil || len(ls) != 0 {
		t.Errorf("no stems: %#v, want an empty non-nil slice", ls)
	}
}
