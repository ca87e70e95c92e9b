package pocketsphinx

import (
	"strconv"
	"strings"
)

// Pronunciations for words missing from the dictionary (the 0.8+5prealpha
// library has no grapheme-to-phoneme model). pronunciations tries, in
// order:
//
//   - words with digits: each run of digits read as a number, the way
//     people say it ("11" -> eleven, also one one; "2024" -> twenty twenty
//     four, two thousand twenty four, two zero two four), runs of letters
//     pronounced as below ("mp4" -> EH M P IY F AO R), a final s after a
//     number read as a plural ("k8s" -> K EY EY T S, also K EY EY T EH S);
//   - single letters and acronyms (no vowel letter): the letter names
//     ("gpt" -> JH IY P IY T IY);
//   - compounds: the word split into two or three dictionary words of at
//     least three letters ("earshot" -> ear + shot), fewest parts first;
//   - letter-to-sound rules (lts).
//
// Every phone produced is in the en-us model's phone set (FuzzBoostTerms).

var letterNames = map[byte]string{
	'a': "EY", 'b': "B IY", 'c': "S IY", 'd': "D IY", 'e': "IY", 'f': "EH F",
	'g': "JH IY", 'h': "EY CH", 'i': "AY", 'j': "JH EY", 'k': "K EY", 'l': "EH L",
	'm': "EH M", 'n': "EH N", 'o': "OW", 'p': "P IY", 'q': "K Y UW", 'r': "AA R",
	's': "EH S", 't': "T IY", 'u': "Y UW", 'v': "V IY", 'w': "D AH B AH L Y UW",
	'x': "EH K S", 'y': "W AY", 'z': "Z IY",
}

// numberWords are the words numbers are read with, with their first
// pronunciation in cmudict-en-us.dict.
var numberWords = map[string]string{
	"zero": "Z IH R OW", "oh": "OW", "one": "W AH N", "two": "T UW", "three": "TH R IY",
	"four": "F AO R", "five": "F AY V", "six": "S IH K S", "seven": "S EH V AH N",
	"eight": "EY T", "nine": "N AY N", "ten": "T EH N", "eleven": "IH L EH V AH N",
	"twelve": "T W EH L V", "thirteen": "TH ER T IY N", "fourteen": "F AO R T IY N",
	"fifteen": "F IH F T IY N", "sixteen": "S IH K S T IY N", "seventeen": "S EH V AH N T IY N",
	"eighteen": "EY T IY N", "nineteen": "N AY N T IY N", "twenty": "T W EH N T IY",
	"thirty": "TH ER D IY", "forty": "F AO R T IY", "fifty": "F IH F T IY",
	"sixty": "S IH K S T IY", "seventy": "S EH V AH N T IY", "eighty": "EY T IY",
	"ninety": "N AY N T IY", "hundred": "HH AH N D R AH D", "thousand": "TH AW Z AH N D",
}

var onesWords = [20]string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
	"ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"}

var tensWords = [10]string{"", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"}

// maxProns bounds the pronunciations added for one word (the first and
// its alternates "w(2)", "w(3)").
const maxProns = 3

// maxPronPhones bounds one pronunciation; longer words (a 40-digit
// number) are not added.
const maxPronPhones = 60

// cardinal reads 0 <= n < 1,000,000 as words ("one thousand eighty").
func cardinal(n int) []string {
	switch {
	case n < 20:
		return []string{onesWords[n]}
	case n < 100:
		if n%10 == 0 {
			return []string{tensWords[n/10]}
		}
		return []string{tensWords[n/10], onesWords[n%10]}
	case n < 1000:
		w := []string{onesWords[n/100], "hundred"}
		if n%100 != 0 {
			w = append(w, cardinal(n%100)...)
		}
		return w
	default:
		w := append(cardinal(n/1000), "thousand")
		if n%1000 != 0 {
			w = append(w, cardinal(n%1000)...)
		}
		return w
	}
}

// numberReadings returns the ways a string of digits is read aloud, most
// usual first and distinct: four digits in pairs ("twenty twenty four",
// "nineteen oh five", "nineteen hundred"), as a cardinal number up to six
// digits without a leading zero, and digit by digit.
func numberReadings(ds string) [][]string {
	var out [][]string
	add := func(w []string) {
		k := strings.Join(w, " ")
		for _, o := range out {
			if strings.Join(o, " ") == k {
				return
			}
		}
		out = append(out, w)
	}
	if len(ds) <= 6 && (ds[0] != '0' || len(ds) == 1) {
		n, _ := strconv.Atoi(ds)
		if len(ds) == 4 {
			hi, lo := n/100, n%100
			switch {
			case lo == 0 && hi%10 != 0:
				add(append(cardinal(hi), "hundred"))
			case lo > 0 && lo < 10:
				add(append(cardinal(hi), "oh", onesWords[lo]))
			case lo >= 10:
				add(append(cardinal(hi), cardinal(lo)...))
			}
		}
		add(cardinal(n))
	}
	digits := make([]string, len(ds))
	for i := range ds {
		digits[i] = onesWords[ds[i]-'0']
	}
	add(digits)
	return out
}

// pronounce returns the first pronunciation of w (lowercase) in the
// model's phone set, or "" when none can be made.
func (d *decoder) pronounce(w string) string {
	return pronounce(w, d.lookupAny)
}

// pronounceTerm returns the pronunciations to add for w, spelling words
// given as acronyms.
func (d *decoder) pronounceTerm(w string, acronym bool) []string {
	return termPronunciations(w, acronym, d.lookupAny)
}

// termPronunciations returns the pronunciations to add for a boost word:
// the letter names when it was given as an acronym and is short enough to
// spell within maxPronPhones, else pronunciations(w, lookup).
func termPronunciations(w string, acronym bool, lookup func(string) string) []string {
	if acronym {
		if p := spell(w); p != "" && len(strings.Fields(p)) <= maxPronPhones {
			return []string{p}
		}
	}
	return pronunciations(w, lookup)
}

// spell returns the letter names of an all-letter word, or "".
func spell(w string) string {
	var ps []string
	for i := 0; i < len(w); i++ {
		n, ok := letterNames[w[i]]
		if !ok {
			return ""
		}
		ps = append(ps, n)
	}
	return strings.Join(ps, " ")
}

// pronounce returns the first of pronunciations(w, lookup), or "".
func pronounce(w string, lookup func(string) string) string {
	if ps := pronunciations(w, lookup); len(ps) > 0 {
		return ps[0]
	}
	return ""
}

// pronunciations returns up to maxProns pronunciations of w, most likely
// first, each at most maxPronPhones phones; nil when none can be made.
func pronunciations(w string, lookup func(string) string) []string {
	var out []string
	for _, p := range rawPronunciations(w, lookup) {
		if n := len(strings.Fields(p)); n > 0 && n <= maxPronPhones && len(out) < maxProns {
			out = append(out, p)
		}
	}
	return out
}

func rawPronunciations(w string, lookup func(string) string) []string {
	if w == "" {
		return nil
	}
	if p := lookup(w); p != "" {
		return []string{p}
	}
	if strings.IndexAny(w, "0123456789") >= 0 {
		return alnum(w, lookup)
	}
	for i := 0; i < len(w); i++ {
		if w[i] == '\'' {
			continue
		}
		if w[i] < 'a' || w[i] > 'z' {
			return nil // not ASCII letters: no rules for it
		}
	}
	if len(w) == 1 || !strings.ContainsAny(w, "aeiouy") {
		if p := spell(strings.ReplaceAll(w, "'", "")); p != "" {
			return []string{p}
		}
		return nil
	}
	if p := compound(w, lookup, 3); p != "" {
		return []string{p}
	}
	if p := lts(w); p != "" {
		return []string{p}
	}
	return nil
}

// pluralSuffix is the plural ending after a word whose pronunciation ends
// like p: IH Z after a sibilant, S after another voiceless sound, else Z.
func pluralSuffix(p string) string {
	f := strings.Fields(p)
	switch f[len(f)-1] {
	case "S", "Z", "SH", "ZH", "CH", "JH":
		return "IH Z"
	case "P", "T", "K", "F", "TH":
		return "S"
	}
	return "Z"
}

// alnum pronounces a word of letters and digits run by run: letters as a
// word (or spelled), digits as a number. The i-th pronunciation reads
// every number its i-th way. A run that cannot be pronounced gives nil.
func alnum(w string, lookup func(string) string) []string {
	type run struct {
		letters  string     // pronunciation of a letter run
		readings [][]string // readings of a digit run
	}
	var runs []run
	most := 1
	for i := 0; i < len(w); {
		j := i
		digit := w[i] >= '0' && w[i] <= '9'
		for j < len(w) && (w[j] >= '0' && w[j] <= '9') == digit {
			j++
		}
		if digit {
			r := numberReadings(w[i:j])
			most = max(most, len(r))
			runs = append(runs, run{readings: r})
		} else {
			p := pronounce(w[i:j], lookup)
			if p == "" {
				return nil
			}
			runs = append(runs, run{letters: p})
		}
		i = j
	}
	// A final "s" after a number is a plural ("k8s" -> k eights, "1990s"),
	// read first; spelled out ("k eight s") second.
	plural := len(runs) >= 2 && w[len(w)-1] == 's' && runs[len(runs)-2].readings != nil && runs[len(runs)-1].letters != "" && w[len(w)-2] >= '0' && w[len(w)-2] <= '9'
	var out []string
	addVariant := func(p string) {
		for _, o := range out {
			if o == p {
				return
			}
		}
		out = append(out, p)
	}
	for k := 0; k < most; k++ {
		var parts []string
		for _, r := range runs {
			if r.readings == nil {
				parts = append(parts, r.letters)
				continue
			}
			for _, nw := range r.readings[min(k, len(r.readings)-1)] {
				parts = append(parts, numberWords[nw])
			}
		}
		if plural {
			addVariant(strings.Join(parts[:len(parts)-1], " ") + " " + pluralSuffix(parts[len(parts)-2]))
		}
		addVariant(strings.Join(parts, " "))
	}
	return out
}

// compound splits w into at most parts dictionary words of >= 3 letters,
// preferring fewer parts and a longer first part.
func compound(w string, lookup func(string) string, parts int) string {
	const minLen = 3
	if parts < 2 || len(w) < 2*minLen {
		return ""
	}
	for i := len(w) - minLen; i >= minLen; i-- {
		head := lookup(w[:i])
		if head == "" {
			continue
		}
		if tail := lookup(w[i:]); tail != "" {
			return head + " " + tail
		}
	}
	if parts > 2 {
		for i := len(w) - 2*minLen; i >= minLen; i-- {
			head := lookup(w[:i])
			if head == "" {
				continue
			}
			if tail := compound(w[i:], lookup, parts-1); tail != "" {
				return head + " " + tail
			}
		}
	}
	return ""
}

// ltsRule maps a letter sequence to phones; rules are tried longest first.
var ltsRules = map[string]string{
	"tion": "SH AH N", "sion": "ZH AH N", "ture": "CH ER", "ough": "AO",
	"igh": "AY", "sch": "S K", "tch": "CH", "dge": "JH", "eau": "OW",
	"ch": "CH", "sh": "SH", "th": "TH", "ph": "F", "ck": "K", "ng": "NG",
	"qu": "K W", "wh": "W", "gh": "G", "kn": "N", "wr": "R",
	"ee": "IY", "ea": "IY", "ie": "IY", "oo": "UW", "ou": "AW", "ow": "OW",
	"ai": "EY", "ay": "EY", "ei": "EY", "ey": "EY", "oa": "OW", "oi": "OY",
	"oy": "OY", "au": "AO", "aw": "AO", "ue": "UW", "ew": "UW",
	"ar": "AA R", "or": "AO R", "er": "ER", "ir": "ER", "ur": "ER",
	"a": "AE", "b": "B", "c": "K", "d": "D", "e": "EH", "f": "F", "g": "G",
	"h": "HH", "i": "IH", "j": "JH", "k": "K", "l": "L", "m": "M", "n": "N",
	"o": "AA", "p": "P", "q": "K", "r": "R", "s": "S", "t": "T", "u": "AH",
	"v": "V", "w": "W", "x": "K S", "y": "IY", "z": "Z",
}

var longVowel = map[byte]string{'a': "EY", 'e': "IY", 'i': "AY", 'o': "OW", 'u': "UW"}

func isVowel(c byte) bool { return strings.IndexByte("aeiou", c) >= 0 }

// lts converts letters to phones with a small set of English spelling
// rules: digraphs, soft c/g, magic e (vowel-consonant-e), a silent final e,
// doubled consonants read once.
func lts(w string) string {
	w = strings.ReplaceAll(w, "'", "")
	var out []string
	emit := func(p string) {
		for _, ph := range strings.Fields(p) {
			if n := len(out); n > 0 && out[n-1] == ph && !strings.ContainsAny(ph, "AEIOU") {
				continue // doubled consonant
			}
			out = append(out, ph)
		}
	}
	for i := 0; i < len(w); {
		c := w[i]
		// silent final e after a consonant (but "be", "he" keep it)
		if c == 'e' && i == len(w)-1 && i >= 2 {
			i++
			continue
		}
		// soft c and g
		if (c == 'c' || c == 'g') && i+1 < len(w) && strings.IndexByte("eiy", w[i+1]) >= 0 {
			if c == 'c' {
				emit("S")
			} else {
				emit("JH")
			}
			i++
			continue
		}
		// magic e: vowel, one consonant, final e
		if isVowel(c) && i+2 == len(w)-1 && !isVowel(w[i+1]) && w[i+1] != 'r' && w[len(w)-1] == 'e' {
			emit(longVowel[c])
			i++
			continue
		}
		// y as a consonant at the start
		if c == 'y' && i == 0 {
			emit("Y")
			i++
			continue
		}
		matched := false
		for n := 4; n >= 1; n-- {
			if i+n > len(w) {
				continue
			}
			if p, ok := ltsRules[w[i:i+n]]; ok {
				emit(p)
				i += n
				matched = true
				break
			}
		}
		if !matched {
			i++
		}
	}
	return strings.Join(out, " ")
}
