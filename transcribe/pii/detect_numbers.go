package pii

import (
	"regexp"
	"strconv"
	"strings"
)

// Numbers with units: money, statistics, ages, durations, times.

var smallNumbers = map[string]int{"zero": 0, "oh": 0, "one": 1, "two": 2, "three": 3, "four": 4,
	"five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
	"thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
	"nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
	"seventy": 70, "eighty": 80, "ninety": 90}

var numberWords = set(`zero one two three four five six seven eight nine ten eleven twelve
thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty
seventy eighty ninety hundred thousand million billion half`)

var reNumber = regexp.MustCompile(`^\d{1,3}(,\d{3})*(\.\d+)?$|^\d+(\.\d+)?$`)

// numberAt returns the length of a number at i: a written number
// ("25", "1,200", "2.5") or up to five number words ("forty two").
func (r *run) numberAt(i int) (n int, value int) {
	if i < 0 || i >= len(r.t) {
		return 0, -1
	}
	k := r.k(i)
	if reNumber.MatchString(k) {
		v, err := strconv.Atoi(strings.ReplaceAll(k, ",", ""))
		if err != nil {
			v = -1
		}
		// "5 million"
		if s := r.k(i + 1); !r.t[i].punct && (s == "million" || s == "billion" || s == "thousand") {
			return 2, -1
		}
		return 1, v
	}
	val := 0
	for n < 5 && numberWords[r.k(i+n)] && (n == 0 || !r.t[i+n-1].punct) {
		if v, ok := smallNumbers[r.k(i+n)]; ok {
			val += v
		} else {
			val = -1 << 30
		}
		n++
	}
	if val < 0 {
		val = -1
	}
	return n, val
}

var (
	currencyWords = set(`dollar dollars buck bucks euro euros pound pounds yen rupee rupees peso
pesos cent cents franc francs yuan`)
	durationUnits = set(`second seconds minute minutes hour hours day days week weeks month months
year years decade decades century centuries fortnight`)
	durationLead = set(`for about around over nearly almost past last next within after in`)
	ageCue       = set(`aged age`)
	beVerbs      = set(`i'm im i am he's she's he she is was turned turns turning`)
	weighCue     = set(`weigh weighs weighed weighing weight`)
)

func (r *run) numbers() {
	for i, t := range r.t {
		c := t.core
		// Money written by ITN: "$25", "$3.50", "$5" "million".
		if strings.HasPrefix(c, "$") || strings.HasPrefix(c, "€") || strings.HasPrefix(c, "£") {
			if _, ok := digitsOf(strings.NewReplacer("$", "", "€", "", "£", "", ",", "").Replace(c)); ok {
				end := i + 1
				if s := r.k(end); !t.punct && (s == "million" || s == "billion" || s == "thousand") {
					end++
				}
				r.add("money_amount", i, end, prioNumeric)
			}
			continue
		}
		if strings.HasSuffix(c, "%") {
			r.add("statistics", i, i+1, prioNumeric)
			continue
		}
		n, v := r.numberAt(i)
		if n == 0 || (i > 0 && r.isNumberTail(i)) {
			continue
		}
		end := i + n
		if r.t[end-1].punct {
			r.numberAlone(i, end, v)
			continue
		}
		next := r.k(end)
		switch {
		case currencyWords[next] && !((next == "pound" || next == "pounds") && r.near(i, 4, weighCue)):
			r.add("money_amount", i, end+1, prioNumeric)
		case (next == "pound" || next == "pounds" || next == "lbs" || next == "kilos" || next == "kilograms") && r.near(i, 4, weighCue):
			r.add("physical_attribute", i, end+1, prioNumeric)
		case next == "percent" || next == "per" && r.k(end+1) == "cent":
			stop := end + 1
			if next == "per" {
				stop++
			}
			r.add("statistics", i, stop, prioNumeric)
		case next == "out" && r.k(end+1) == "of":
			if m, _ := r.numberAt(end + 2); m > 0 {
				r.add("statistics", i, end+2+m, prioNumeric)
			}
		case (next == "year" || next == "years") && !r.t[end].punct && r.k(end+1) == "old":
			r.add("person_age", i, end+2, prioAge)
		case strings.HasPrefix(next, "year-old") || next == "years-old":
			r.add("person_age", i, end+1, prioAge)
		case (next == "feet" || next == "foot") && !r.t[end].punct:
			// height: "six feet two (inches) (tall)"
			stop := end + 1
			if m, _ := r.numberAt(stop); m > 0 {
				stop += m
				if s := r.k(stop); s == "inches" || s == "inch" {
					stop++
				}
			}
			if r.k(stop) == "tall" {
				stop++
			}
			r.add("physical_attribute", i, stop, prioNumeric)
		case durationUnits[next]:
			if s := r.k(end + 1); s == "old" || (s == "of" && r.k(end+2) == "age") {
				break
			}
			r.add("duration", i, end+1, prioNumeric)
		default:
			r.numberAlone(i, end, v)
		}
	}
	// "a year", "an hour", "half an hour" after a duration preposition.
	for i := range r.t {
		if !durationLead[r.k(i)] || r.t[i].punct {
			continue
		}
		j := i + 1
		if r.k(j) == "half" && (r.k(j+1) == "an" || r.k(j+1) == "a") {
			if durationUnits[r.k(j+2)] {
				r.add("duration", j, j+3, prioNumeric)
			}
			continue
		}
		if (r.k(j) == "a" || r.k(j) == "an" || r.k(j) == "several" || r.k(j) == "few") && durationUnits[r.k(j+1)] {
			r.add("duration", j, j+2, prioNumeric)
		}
		if r.k(j) == "a" && (r.k(j+1) == "couple" || r.k(j+1) == "few") && r.k(j+2) == "of" && durationUnits[r.k(j+3)] {
			r.add("duration", j, j+4, prioNumeric)
		}
	}
	// "one in five"
	for i := range r.t {
		if n, _ := r.numberAt(i); n == 1 && r.k(i+1) == "in" {
			if m, v := r.numberAt(i + 2); m > 0 && v >= 2 && r.k(i+2) != "a" {
				if s := r.k(i + 2 + m); s == "people" || s == "adults" || s == "children" || s == "patients" || s == "americans" || s == "cases" || r.t[i+1+m].punct {
					r.add("statistics", i, i+2+m, prioNumeric)
				}
			}
		}
	}
}

// isNumberTail reports whether word i continues a number started before it.
func (r *run) isNumberTail(i int) bool {
	if r.t[i-1].punct {
		return false
	}
	p := r.k(i - 1)
	return numberWords[p] && numberWords[r.k(i)]
}

// numberAlone handles a number with no unit after it: an age after "aged"
// or "I'm", otherwise nothing.
func (r *run) numberAlone(i, end, v int) {
	if v < 1 || v > 120 {
		return
	}
	p := r.k(i - 1)
	switch {
	case ageCue[p] || (p == "of" && r.k(i-2) == "age") || (p == "is" && r.k(i-2) == "age"):
		r.add("person_age", i, end, prioAge)
	case p == "turned" || p == "turns" || p == "turning":
		r.add("person_age", i, end, prioAge)
	case beVerbs[p] && (r.t[end-1].punct || end >= len(r.t) || r.k(end) == "and" || r.k(end) == "now"):
		if p == "is" || p == "was" {
			// "she is 42." needs a person before the verb
			if q := r.k(i - 2); q != "she" && q != "he" && q != "son" && q != "daughter" && q != "mother" && q != "father" && q != "wife" && q != "husband" {
				return
			}
		}
		r.add("person_age", i, end, prioAge)
	}
}

// near reports whether a word within n words before i is in cues.
func (r *run) near(i, n int, cues map[string]bool) bool {
	for k := i - 1; k >= 0 && k >= i-n; k-- {
		if cues[r.k(k)] {
			return true
		}
	}
	return false
}
