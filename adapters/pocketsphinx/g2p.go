package pocketsphinx

import "strings"

// Pronunciations for words missing from the dictionary (the 0.8+5prealpha
// library has no grapheme-to-phoneme model). pronounce tries, in order:
//
//   - digits: each digit as its spoken name ("k8s" -> K EY T S);
//   - acronyms (no vowel letter): the letter names ("gpt" -> JH IY P IY T IY);
//   - compounds: the word split into two or three dictionary words of at
//     least three letters ("earshot" -> ear + shot), fewest parts first;
//   - letter-to-sound rules (lts).

var letterNames = map[byte]string{
	'a': "EY", 'b': "B IY", 'c': "S IY", 'd': "D IY", 'e': "IY", 'f': "EH F",
	'g': "JH IY", 'h': "EY CH", 'i': "AY", 'j': "JH EY", 'k': "K EY", 'l': "EH L",
	'm': "EH M", 'n': "EH N", 'o': "OW", 'p': "P IY", 'q': "K Y UW", 'r': "AA R",
	's': "EH S", 't': "T IY", 'u': "Y UW", 'v': "V IY", 'w': "D AH B AH L Y UW",
	'x': "EH K S", 'y': "W AY", 'z': "Z IY",
}

var digitNames = [10]string{
	"Z IH R OW", "W AH N", "T UW", "TH R IY", "F AO R",
	"F AY V", "S IH K S", "S EH V AH N", "EY T", "N AY N",
}

// pronounce returns a pronunciation for w (lowercase) in the model's
// phone set, or "" when none can be made.
func (d *decoder) pronounce(w string) string {
	return pronounce(w, d.lookup)
}

// pronounceTerm is pronounce, spelling words given as acronyms.
func (d *decoder) pronounceTerm(w string, acronym bool) string {
	if acronym {
		if p := spell(w); p != "" {
			return p
		}
	}
	return d.pronounce(w)
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

func pronounce(w string, lookup func(string) string) string {
	if w == "" {
		return ""
	}
	if p := lookup(w); p != "" {
		return p
	}
	// Split letters from digits.
	if strings.IndexAny(w, "0123456789") >= 0 {
		var parts []string
		run := ""
		flush := func() {
			if run != "" {
				if p := pronounce(run, lookup); p != "" {
					parts = append(parts, p)
				}
				run = ""
			}
		}
		for i := 0; i < len(w); i++ {
			c := w[i]
			if c >= '0' && c <= '9' {
				flush()
				parts = append(parts, digitNames[c-'0'])
				continue
			}
			run += string(c)
		}
		flush()
		return strings.Join(parts, " ")
	}
	for i := 0; i < len(w); i++ {
		if w[i] == '\'' {
			continue
		}
		if w[i] < 'a' || w[i] > 'z' {
			return "" // not ASCII letters: no rules for it
		}
	}
	if !strings.ContainsAny(w, "aeiouy") {
		return spell(strings.ReplaceAll(w, "'", ""))
	}
	if p := compound(w, lookup, 3); p != "" {
		return p
	}
	return lts(w)
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
