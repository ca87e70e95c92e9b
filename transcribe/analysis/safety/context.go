package safety

import (
	"unicode"

	"github.com/earshot-dev/earshot/transcribe/analysis/nlp"
)

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

// properName reports whether toks[i] reads as part of a name in cased
// text ("Dick Pound", "Alan Cumming"): capitalised but not all capitals,
// not the first word of its sentence, next to another capitalised word,
// in a sentence most of whose words are lower case (a title-case headline
// capitalises every word).
func properName(toks []nlp.Token, i int) bool {
	if !capitalised(toks[i].Text) || i == 0 || toks[i-1].EndsSentence() {
		return false
	}
	if !(capitalised(toks[i-1].Text) || i+1 < len(toks) && capitalised(toks[i+1].Text)) {
		return false
	}
	from, to := i, i
	for from > 0 && !toks[from-1].EndsSentence() {
		from--
	}
	for to < len(toks)-1 && !toks[to].EndsSentence() {
		to++
	}
	caps, words := 0, 0
	for _, t := range toks[from : to+1] {
		if t.IsWord() {
			words++
			if capitalised(t.Text) {
				caps++
			}
		}
	}
	return 2*caps < words
}

// capitalised reports whether a word begins with a capital and holds a
// lower-case letter.
func capitalised(w string) bool {
	r := []rune(w)
	if len(r) < 2 || !unicode.IsUpper(r[0]) {
		return false
	}
	for _, c := range r[1:] {
		if unicode.IsLower(c) {
			return true
		}
	}
	return false
}
