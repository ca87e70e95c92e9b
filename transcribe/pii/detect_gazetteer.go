package pii

import (
	"strings"
)

// Gazetteer types.

type gazEntry struct {
	typ string
	amb bool
}

var gaz, gazMax = buildGaz()

func buildGaz() (map[string][]gazEntry, int) {
	m := map[string][]gazEntry{}
	maxN := 1
	add := func(typ, list string) {
		for _, f := range strings.Fields(list) {
			amb := strings.HasPrefix(f, "?")
			k := strings.TrimSuffix(strings.ReplaceAll(strings.TrimPrefix(f, "?"), "_", " "), ".")
			if n := len(strings.Fields(k)); n > maxN {
				maxN = n
			}
			m[k] = append(m[k], gazEntry{typ, amb})
		}
	}
	add("organization", organizations)
	add("medical_condition", medicalConditions)
	add("injury", injuries)
	add("medical_process", medicalProcesses)
	add("drug", drugs)
	add("blood_type", bloodTypes)
	add("zodiac_sign", zodiacSigns)
	add("location", locations)
	add("nationality", nationalities)
	add("language", languages)
	add("religion", religions)
	add("occupation", occupations)
	add("political_affiliation", political)
	add("gender_sexuality", genderSexuality)
	add("marital_status", maritalStatus)
	add("event", events)
	add("physical_attribute", physicalAttributes)
	for _, f := range strings.Fields(ambiguousPlaces) {
		es := []gazEntry{{"location", true}}
		for _, e := range m[f] {
			if e.typ != "location" {
				es = append(es, e)
			}
		}
		m[f] = es
	}
	for _, f := range strings.Fields(bothLangNat) {
		m[f] = append(m[f], gazEntry{"language", false}, gazEntry{"nationality", false})
	}
	return m, maxN
}

var (
	zodiacCue   = set(`sign zodiac horoscope star astrology astrological`)
	politicsCue = set(`vote voted voter voters votes registered party political politically`)
	genderCue   = set(`i'm am is identify identifies gender sex sexuality as are patient`)
	maritalCue  = set(`i'm am is are we're currently status`)
	langCue     = set(`speak speaks spoke speaking fluent learn learning learned study studying studied translate translated language native in taught teach write`)
	bloodCue    = set(`blood type`)
	orgCue      = set(`at for with from joined join`)
	langAfter   = set(`language speaker speakers class classes lessons teacher translation`)
)

// window reports whether a key in cues occurs within n words of [from, to).
func (r *run) window(from, to, n int, cues map[string]bool) bool {
	for k := from - n; k < to+n; k++ {
		if (k < from || k >= to) && cues[r.k(k)] {
			return true
		}
	}
	return false
}

func (r *run) gazetteers() {
	for i := range r.t {
		// Grow the phrase while it is a prefix of some entry; keep the
		// matches, then try them longest first.
		var ends []int
		key := ""
		for n := 1; n <= gazMax && i+n <= len(r.t); n++ {
			if n > 1 {
				if r.t[i+n-2].punct || r.t[i+n-1].side != r.t[i].side {
					break
				}
				key += " "
			}
			key += r.k(i + n - 1)
			if _, ok := gaz[key]; ok {
				ends = append(ends, n)
			}
			if !gazPrefix[key] {
				break
			}
		}
		for k := len(ends) - 1; k >= 0; k-- {
			n := ends[k]
			if typ := r.pickGaz(gaz[strings.Join(keysOf(r, i, n), " ")], i, i+n); typ != "" {
				r.add(typ, i, i+n, prioGaz+n)
				break
			}
		}
	}
}

func keysOf(r *run, i, n int) []string {
	ks := make([]string, n)
	for q := range ks {
		ks[q] = r.k(i + q)
	}
	return ks
}

// gazPrefix holds every proper word prefix of a multi-word gazetteer entry.
var gazPrefix = func() map[string]bool {
	m := map[string]bool{}
	for k := range gaz {
		ws := strings.Fields(k)
		for n := 1; n < len(ws); n++ {
			m[strings.Join(ws[:n], " ")] = true
		}
	}
	return m
}()

// pickGaz chooses the type of a gazetteer match from its context.
func (r *run) pickGaz(es []gazEntry, from, to int) string {
	// An ambiguous reading with its cue wins: "my star sign is Cancer".
	for _, e := range es {
		if e.amb && e.typ != "location" {
			if t := r.ambiguous(e, from, to); t != "" {
				return t
			}
		}
	}
	// Nationality or language: "speaks French" vs "a French citizen".
	var lang, nat bool
	for _, e := range es {
		lang = lang || e.typ == "language"
		nat = nat || e.typ == "nationality"
	}
	if lang && nat {
		if r.window(from, from, 3, langCue) || langAfter[r.k(to)] {
			return "language"
		}
		return "nationality"
	}
	for _, e := range es {
		if !e.amb {
			if e.typ == "blood_type" && len(r.k(from)) <= 2 && r.k(from) != "ab" && r.k(from) != "o" && !r.window(from, to, 5, bloodCue) {
				continue
			}
			if e.typ == "organization" && (r.k(from) == "target" || r.k(from) == "shell" || r.k(from) == "chase" || r.k(from) == "apple" || r.k(from) == "amazon" || r.k(from) == "visa" || r.k(from) == "ford" || r.k(from) == "who" || r.k(from) == "abc") && !r.t[from].capital && !orgCue[r.k(from-1)] {
				continue
			}
			if e.typ == "occupation" && (r.k(to) == "license" || r.k(to) == "licence" || r.k(to) == "seat") {
				continue
			}
			if e.typ == "occupation" && titleSet[r.k(from)] && (r.nameish(to) && !r.t[from].punct) {
				continue // "Doctor Patel" is a title
			}
			return e.typ
		}
		if t := r.ambiguous(e, from, to); t != "" || e.typ == "location" && given[r.k(from)] {
			return t
		}
	}
	return ""
}

var (
	determiners = set(`the a an some my your our his her their this that these those`)
	// personNouns may follow an attribute that describes a person
	// ("a single mother", "a straight guy").
	personNouns = set(`and but now again too mom mother dad father parent parents woman women man men guy guys
person people friend friends couple`)
)

// standsAlone reports whether the word before to ends its phrase: a
// clause boundary, the end, or a word that keeps it about a person ("I'm
// single and ...", "a single mother"), not "a single page".
func (r *run) standsAlone(to int) bool {
	return to >= len(r.t) || r.t[to-1].punct || personNouns[r.k(to)]
}

// ambiguous returns the type of an ambiguous gazetteer entry when its
// context cue is there, else "".
func (r *run) ambiguous(e gazEntry, from, to int) string {
	{
		switch e.typ {
		case "zodiac_sign":
			if r.window(from, to, 4, zodiacCue) {
				return e.typ
			}
		case "political_affiliation":
			if r.window(from, to, 4, politicsCue) {
				return e.typ
			}
		case "gender_sexuality":
			if r.window(from, from, 3, genderCue) && r.standsAlone(to) {
				return e.typ
			}
		case "marital_status":
			if r.window(from, from, 3, maritalCue) && r.standsAlone(to) {
				return e.typ
			}
		case "location":
			if placePrep[r.k(from-1)] || r.t[from].capital && !r.t[from].sentStart && !given[r.k(from)] && !determiners[r.k(from-1)] {
				return e.typ
			}
		}
	}
	return ""
}
