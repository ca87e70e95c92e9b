package safety

import "github.com/earshot-dev/earshot/transcribe/analysis/nlp"

// Context rules that the lexicon's per-term exclusions cannot say.

// smokeHabit are the forms of "smoke" that name the habit; "smoke" and
// "smokes" name smoke itself at least as often ("smoke from the fire").
var smokeHabit = map[string]bool{"smoking": true, "smoked": true}

// fireContext are stems that make smoke a fire's: with any of them in
// the segment, "smoking" and "smoked" are not tobacco either ("the
// smoking ruins", "the kitchen smoked after the blaze").
var fireContext = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{"fire", "fires", "wildfire", "wildfires", "blaze", "flames", "burning", "burned",
		"plume", "haze", "firefighters", "firefighter", "chimney", "alarm", "evacuated", "evacuation", "explosion",
		"volcano", "eruption", "engine", "grill", "smokehouse", "smog", "ash", "embers"} {
		m[nlp.Stem(w)] = true
	}
	return m
}()

// tobaccoSense reports whether the tobacco term t matched at us[i] is
// about tobacco. A term that is the bare stem "smoke" (the lexicon's
// "smoking" and "smoked") counts only as a habit form of the word and
// only without fire in the segment (stems); every other term counts.
func tobaccoSense(t *term, us []unit, i int, stems map[string]bool) bool {
	if t.label != Tobacco || len(t.stems) != 1 || t.stems[0] != nlp.Stem("smoking") {
		return true
	}
	return smokeHabit[us[i].word] && !anyIn(stems, fireContext)
}
