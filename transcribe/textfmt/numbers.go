package textfmt

import (
	"strconv"
	"strings"
)

// Number words. Values are small enough that any phrase the parser accepts
// (scales strictly decreasing, at most trillions) fits in an int64.
var (
	unitWords = map[string]int64{"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4,
		"five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}
	teenWords = map[string]int64{"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
		"fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19}
	tensWords = map[string]int64{"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
		"sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
	decadeWords = map[string]int64{"twenties": 20, "thirties": 30, "forties": 40, "fifties": 50,
		"sixties": 60, "seventies": 70, "eighties": 80, "nineties": 90}
	scaleWords = map[string]int64{"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}

	ordUnitWords = map[string]int64{"first": 1, "second": 2, "third": 3, "fourth": 4,
		"fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9}
	ordTeenWords = map[string]int64{"tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
		"fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
		"nineteenth": 19}
	ordTensWords = map[string]int64{"twentieth": 20, "thirtieth": 30, "fortieth": 40,
		"fiftieth": 50, "sixtieth": 60, "seventieth": 70, "eightieth": 80, "ninetieth": 90}
	ordScaleWords = map[string]int64{"thousandth": 1e3, "millionth": 1e6, "billionth": 1e9}

	// digitWords are the words a spoken digit sequence (phone numbers,
	// codes) is made of; "oh" counts as zero inside a sequence.
	digitWords = map[string]byte{"zero": '0', "oh": '0', "one": '1', "two": '2', "three": '3',
		"four": '4', "five": '5', "six": '6', "seven": '7', "eight": '8', "nine": '9'}
)

type numKind int

const (
	kNone numKind = iota
	kUnit
	kTeen
	kTens
	kHundred
	kScale
)

// number is one parsed number phrase.
type number struct {
	val   int64
	frac  string // digits after "point", "" if none
	n     int    // tokens consumed, including "and", "a" and "point"
	words int    // number words consumed
	ord   bool   // ended on an ordinal word
	// scale is the value of the last scale word when the phrase ends with
	// one ("five million"), so that it can be written "5 million".
	scale int64
	// scaleAt is the index of that trailing scale word.
	scaleAt int
}

// isSubHundred reports whether w can follow "and" in "one hundred and ...".
func isSubHundred(w string) bool {
	if v, ok := unitWords[w]; ok {
		return v > 0
	}
	_, a := teenWords[w]
	_, b := tensWords[w]
	_, c := ordUnitWords[w]
	_, d := ordTeenWords[w]
	_, e := ordTensWords[w]
	return a || b || c || d || e
}

// parseNumber parses the longest number phrase starting at t[i], not
// reading t[lim:]. It accepts "twenty five", "one hundred and twelve",
// "a thousand", "two thousand twenty four", "twenty first", "three point
// five" and plain digit tokens ("25"). Two units in a row ("five five")
// or two tens in a row ("twenty twenty") end the phrase.
func parseNumber(t []string, i, lim int) (number, bool) {
	if i >= lim {
		return number{}, false
	}
	if d := t[i]; d != "" && len(d) <= 15 && allDigits(d) {
		v, err := strconv.ParseInt(d, 10, 64)
		if err != nil {
			return number{}, false
		}
		return number{val: v, n: 1, words: 1}, true
	}
	var total, chunk int64
	last := kNone
	lastScale := int64(1e15)
	res := number{}
	j := i
loop:
	for j < lim {
		w := t[j]
		if w == "a" && j == i && j+1 < lim && (t[j+1] == "hundred" || scaleWords[t[j+1]] > 0) {
			chunk, last = 1, kUnit
			j++
			continue
		}
		if w == "and" {
			if (last == kHundred || last == kScale) && j+1 < lim && isSubHundred(t[j+1]) {
				j++
				continue
			}
			break
		}
		ordWord := false
		switch {
		case isKey(unitWords, w) || isKey(ordUnitWords, w):
			v, ok := unitWords[w]
			if !ok {
				v, ordWord = ordUnitWords[w], true
			}
			switch {
			case last == kNone && v == 0 && !ordWord:
				chunk, last = 0, kUnit
				j++
				res.words++
				break loop // "zero" stands alone
			case last == kNone || last == kHundred || last == kScale || (last == kTens && v > 0):
				if v == 0 && last != kNone {
					break loop
				}
				chunk += v
				last = kUnit
			default:
				break loop
			}
		case isKey(teenWords, w) || isKey(ordTeenWords, w):
			v, ok := teenWords[w]
			if !ok {
				v, ordWord = ordTeenWords[w], true
			}
			if last != kNone && last != kHundred && last != kScale {
				break loop
			}
			chunk += v
			last = kTeen
		case isKey(tensWords, w) || isKey(ordTensWords, w):
			v, ok := tensWords[w]
			if !ok {
				v, ordWord = ordTensWords[w], true
			}
			if last != kNone && last != kHundred && last != kScale {
				break loop
			}
			chunk += v
			last = kTens
		case w == "hundred" || w == "hundredth":
			if (last != kUnit && last != kTeen) || chunk <= 0 || chunk >= 100 {
				break loop
			}
			chunk *= 100
			last = kHundred
			ordWord = w == "hundredth"
		case isKey(scaleWords, w) || isKey(ordScaleWords, w):
			s, ok := scaleWords[w]
			if !ok {
				s, ordWord = ordScaleWords[w], true
			}
			if chunk <= 0 || s >= lastScale {
				break loop
			}
			total += chunk * s
			chunk = 0
			last, lastScale = kScale, s
			res.scale, res.scaleAt = s, j
		default:
			break loop
		}
		if last != kScale {
			res.scale = 0
		}
		res.words++
		j++
		if ordWord {
			res.ord = true
			break
		}
	}
	if res.words == 0 {
		return number{}, false
	}
	res.val = total + chunk
	// Decimals: "three point one four".
	if !res.ord && j+1 < lim && t[j] == "point" {
		var frac []byte
		k := j + 1
		for k < lim {
			d, ok := digitWords[t[k]]
			if !ok {
				break
			}
			frac = append(frac, d)
			k++
		}
		if len(frac) > 0 {
			res.frac = string(frac)
			res.scale = 0
			j = k
		}
	}
	res.n = j - i
	return res, true
}

func isKey[V any](m map[string]V, k string) bool {
	_, ok := m[k]
	return ok
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// formatInt writes v in digits, with thousands separators when commas is
// true.
func formatInt(v int64, commas bool) string {
	s := strconv.FormatInt(v, 10)
	if !commas || len(s) <= 3 || v < 0 {
		return s
	}
	var b strings.Builder
	pre := len(s) % 3
	if pre > 0 {
		b.WriteString(s[:pre])
	}
	for k := pre; k < len(s); k += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[k : k+3])
	}
	return b.String()
}

// ordinalSuffix returns "st", "nd", "rd" or "th" for v.
func ordinalSuffix(v int64) string {
	if v%100 >= 11 && v%100 <= 13 {
		return "th"
	}
	switch v % 10 {
	case 1:
		return "st"
	case 2:
		return "nd"
	case 3:
		return "rd"
	}
	return "th"
}
