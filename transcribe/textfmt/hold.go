package textfmt

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/earshot-dev/earshot/transcribe/textfmt/punctmodel"
)

// Spans the punctuation model must not cut. The model learnt from books,
// where numbers, dates, addresses, spelled letters and e-mail addresses
// are written and rarely spoken; on speech it put marks inside them
// ("Sarah. Johnson", "One, two, three Elm street", "December, 25th,
// 1990"), and what reads such spans afterwards (PII redaction, entity
// detection) needs them whole.
var (
	// numberUnits follow a number without a mark ("42 years", "9 am").
	numberUnits = set("am pm a p m percent o'clock dollars dollar cents pounds euros years year months month " +
		"weeks week days day hours hour minutes minute seconds miles mile kilometers kilometres feet foot " +
		"inches meters metres degrees kilograms kilos grams ounces gallons liters litres")
	// ageUnits + "old": "42 years old".
	ageUnits = set("years year months month weeks week days day")
	// noMarkAfter: articles, possessives and joins that neither end a
	// sentence nor take a comma ("the. Monday", "and, the").
	noMarkAfter = set("the a an my your our their and of")
	weekdays    = set("monday tuesday wednesday thursday friday saturday sunday")
	// streetWords end an address ("421 oak street").
	streetWords = set("street avenue road drive lane boulevard way court place circle parkway terrace " +
		"highway square crescent st ave rd blvd ln")
	// numberLabels take the number after them ("apartment 4", "room 204").
	numberLabels = set("apartment apt suite unit room box flight route gate platform extension ext")
	// symbolWords are spoken symbols of addresses and codes.
	symbolWords = set("dot underscore hyphen slash backslash")
	// nameTitles precede a name; wordTitles do when a name follows, and
	// also stand alone ("yes, sir").
	nameTitles = set("mr mrs ms dr")
	wordTitles = set("mister missus miss doctor professor sir madam officer detective aunt uncle lady lord captain")
	// givenName: given names of the gazetteer.
	givenName = set(givenNames)
	// notName are closed-class words: after a given name they start what
	// follows the name, not a surname ("thanks sarah and ...").
	notName = set("i you we they he she it me him her us them my your our their his its " +
		"and or but so because if when then than that this these those there here " +
		"the a an is are was were be been am has have had do does did will would can could " +
		"shall should may might must not no yes to of in on at for from with by about as into " +
		"over after before said says now please too also just well okay ok oh who which what")
)

// ordinal reports whether w is an ordinal number word ("tenth").
func ordinal(w string) bool {
	return isKey(ordUnitWords, w) || isKey(ordTeenWords, w) || isKey(ordTensWords, w) || isKey(ordScaleWords, w)
}

// isNum reports whether a normalised word is a number other than "oh"
// (which is one only inside a run of digits: "five oh two").
func isNum(w string) bool { return w != "oh" && numberish(w) }

// numberish reports whether a normalised word is a number, written or
// spoken.
func numberish(w string) bool {
	if strings.ContainsAny(w, "0123456789") {
		return true
	}
	_, u := unitWords[w]
	_, te := teenWords[w]
	_, tn := tensWords[w]
	_, sc := scaleWords[w]
	return u || te || tn || sc || w == "oh" || w == "hundred"
}

// letter reports whether w is a single letter (spelled out, or part of
// an acronym spoken letter by letter).
func letter(w string) bool {
	r, n := utf8.DecodeRuneInString(w)
	return n > 0 && n == len(w) && unicode.IsLetter(r)
}

func alpha(w string) bool {
	return w != "" && strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }) < 0
}

// holdGaps reports, for the gap after each word of one channel, whether it
// lies inside a span that takes no mark:
//
//   - numbers and what belongs to them: runs of number words or digits
//     (cards, phones, codes), a number and its unit ("42 years old", "9
//     am", "25 dollars"), a label and its number ("apartment 4"), and a
//     number after a word with no pause between ("it is ten", "call five
//     five five");
//   - dates: a weekday, month, day and year ("saturday august 2nd", "12
//     august 1974", "the twelfth of june");
//   - addresses: a number and the street after it ("421 oak street");
//   - names: a title and the name after it ("mrs dashwood"; "sir",
//     "doctor", "aunt" and the like only when a name follows: "yes sir
//     eight bottles" is not a name), a given name and the surname
//     after it (any word but a closed-class one: "karen white", but not
//     "sarah and"), two names in a row ("wells fargo"), the name after
//     "my name is", and the gap after that name when "and" follows with no
//     pause ("my name is sarah and i paid");
//   - spelled letters ("j o h n", "x ray") and spoken e-mail and web
//     addresses ("sarah at example dot com");
//   - the gap after an article, a possessive, "and" or "of".
//
// t are the words' normalised forms (norm), words the model's forms;
// paused(i) reports a pause after word i.
func holdGaps(m *punctmodel.Model, t, words []string, paused func(int) bool) []bool {
	n := len(t)
	hold := make([]bool, n)
	forms := m.Case(words)
	proper := func(i int) bool { // a name or place the model or the gazetteer capitalises
		if letter(t[i]) || notName[t[i]] || pronounI[t[i]] {
			return false
		}
		if _, ok := gazetteer[t[i]]; ok {
			return true
		}
		r, _ := utf8.DecodeRuneInString(forms[i])
		return unicode.IsUpper(r)
	}
	at := func(i int) string {
		if i < 0 || i >= n {
			return ""
		}
		return t[i]
	}
	for i := 0; i+1 < n; i++ {
		a, b := t[i], t[i+1]
		switch {
		case isNum(a) && (numberish(b) || numberUnits[b] || ordinal(b) || months[b]),
			a == "oh" && isNum(at(i-1)) && isNum(b),
			ordinal(a) && (isNum(b) || b == "of" && months[at(i+2)]),
			numberLabels[a] && isNum(b),
			ageUnits[a] && b == "old" && isNum(at(i-1)),
			a == "of" && months[b] && (ordinal(at(i-1)) || isNum(at(i-1))),
			!paused(i) && isNum(b):
			hold[i] = true
		case (months[a] || weekdays[a]) && (isNum(b) || ordinal(b) || months[b] && weekdays[a]):
			hold[i] = true
		case noMarkAfter[a]:
			hold[i] = true
		case letter(a) && letter(b),
			// A lone letter and its word or number: "x ray", "t shirt", "b 12".
			letter(a) && a != "i" && a != "a" && !letter(at(i-1)) && (alpha(b) || isNum(b)):
			hold[i] = true
		case symbolWords[a] || symbolWords[b], a == "dash" && (isNum(b) || letter(b)):
			hold[i] = true
		case nameTitles[a] && alpha(b) && !notName[b],
			wordTitles[a] && alpha(b) && (proper(i+1) || len(b) > 2 && !m.Known(b)):
			hold[i] = true
		case givenName[a] && alpha(b) && len(b) > 1 && !notName[b]:
			hold[i] = true
		case proper(i) && proper(i+1):
			hold[i] = true
		case a == "named" || a == "name's" || a == "is" && at(i-1) == "name":
			hold[i] = alpha(b) && !notName[b]
		}
	}
	// The name a speaker gives runs on into "and" without a mark unless
	// the speaker pauses ("my name is sarah and i paid ..."): books put a
	// comma after a name before "and" mostly where the name is a vocative
	// ("thank you, Sarah, and ..."), which a name after "my name is" is
	// not.
	for i := 0; i+1 < n; i++ {
		if !hold[i] || !(t[i] == "named" || t[i] == "name's" || t[i] == "is" && at(i-1) == "name") {
			continue
		}
		j := i + 1 // the name's last word
		for j+1 < n && hold[j] {
			j++
		}
		if j+1 < n && t[j+1] == "and" && !paused(j) {
			hold[j] = true
		}
	}
	// A spoken e-mail address: "sarah at example dot com".
	for i := 1; i+2 < n; i++ {
		if t[i] != "at" {
			continue
		}
		for k := i + 2; k < min(n, i+5); k++ {
			if t[k] == "dot" {
				for j := i - 1; j < k; j++ {
					hold[j] = true
				}
				break
			}
		}
	}
	// Addresses: a number, up to three words, a street word.
	for i := 0; i+2 < n; i++ {
		if !isNum(t[i]) || numberish(t[i+1]) {
			continue
		}
		for k := i + 1; k < min(n, i+5); k++ {
			if streetWords[t[k]] {
				for j := i; j < k; j++ {
					hold[j] = true
				}
				break
			}
			if !alpha(t[k]) || notName[t[k]] {
				break
			}
		}
	}
	return hold
}
