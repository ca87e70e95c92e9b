package pii

import (
	"strings"

	"github.com/earshot-dev/earshot/transcribe/pii/ner"
)

// prioTagger ranks the learned tagger's people, places and organisations
// above the gazetteer and given-name rules (it reads context, so
// "Washington" in "George Washington said" is a person, and it gives
// whole names) and below cue-named values ("my name is ..."), addresses
// and numeric types. A span of the lower-case model that holds a word
// written in lower case ranks one above: in partly cased recognizer text
// ("John smith") it is the whole name.
const prioTagger = prioName + 3

var nerTypes = map[string]string{"PER": "person_name", "LOC": "location", "ORG": "organization"}

// tagger adds the named-entity tagger's person_name, location and
// organization spans, reconciled with the gazetteers (see keepTagged).
// Words with casing (engine text) are read by the cased model; a
// lower-case model reads every text too, and its spans count where they
// hold a word the text writes in lower case (recognizer text, cased only
// in part by the Punctuator, or not at all).
func (r *run) tagger() {
	if r.d.RulesOnly {
		return
	}
	words := make([]string, len(r.ws))
	starts := make([]bool, len(r.ws))
	for i, w := range r.ws {
		words[i] = w.Text
		starts[i] = r.t[i].sentStart
	}
	cased := ner.HasCasing(words)
	rules := len(r.cands)
	var support []bool // words inside a span of the cased model
	if cased {
		if m, err := ner.Cased(); err == nil {
			support = make([]bool, len(words))
			for _, s := range m.Spans(words, starts) {
				if _, ok := nerTypes[s.Type]; ok {
					for k := s.From; k < s.To; k++ {
						support[k] = true
					}
				}
				r.addTagged(s, prioTagger)
			}
		}
	}
	defer func() {
		if support != nil {
			r.veto(rules, support)
		}
	}()
	m, err := ner.Lower()
	if err != nil {
		return // the embedded models are checked by their tests
	}
	for _, s := range m.Spans(words, starts) {
		if !cased {
			r.addTagged(s, prioTagger)
			continue
		}
		// A name the casing missed: a word in lower case that the
		// training text never writes so, in a name of two words or more
		// or next to a capitalised one ("John smith", "jane doe"); not
		// "the kitchen" or "the Bucharest stock exchange".
		lower, capital, ordinary := false, false, false
		for k := s.From; k < s.To; k++ {
			c := r.t[k].core
			if isAlpha(c) && c == strings.ToLower(c) {
				lower = true
				ordinary = ordinary || common[r.t[k].key] || m.Ordinary[c]
			}
			capital = capital || r.t[k].capital
		}
		if lower && !ordinary && (capital || s.To-s.From > 1) {
			r.addTagged(s, prioTagger+1)
		}
	}
}

// veto drops the weaker rule candidates for people and places (a given
// name or surname, a gazetteer place, a place after "from") that the
// cased model does not see as an entity where the text has casing: it
// read the context ("June 14-16", "a sharp drop", "the Hong Kong Open").
// Cue-named values, addresses and organisations stay.
func (r *run) veto(rules int, support []bool) {
	for k := rules; k < len(r.cands); k++ {
		c := r.cands[k]
		for q := c.from; q < c.to; q++ {
			support[q] = true // spans of the lower-case model kept above
		}
	}
	keep := r.cands[:0]
	for k, c := range r.cands {
		if k < rules && r.vetoable(c) {
			seen := false
			for q := c.from; q < c.to; q++ {
				seen = seen || support[q]
			}
			if !seen {
				continue
			}
		}
		keep = append(keep, c)
	}
	r.cands = keep
	r.gazFrom, r.gazTo = 0, 0
}

// vetoable: gazetteer places and "from X" places, and names from an
// ambiguous given name ("June", "Will"), a month or weekday, or a word
// written in lower case ("a sharp drop"). A known given name written as
// a name ("James") stays.
func (r *run) vetoable(c cand) bool {
	if c.prio >= prioTagger || c.prio == prioAddress {
		return false
	}
	switch c.typ {
	case "location":
		return true
	case "person_name":
		k := r.k(c.from)
		return givenAmb[k] || months[k] || weekdays[k] || !r.t[c.from].capital
	}
	return false
}

func (r *run) addTagged(s ner.Span, prio int) {
	typ, ok := nerTypes[s.Type]
	if !ok {
		return
	}
	if typ, ok = r.keepTagged(typ, s.From, s.To); ok {
		r.add(typ, s.From, s.To, prio)
	}
}

// keepTagged reconciles a tagged span with the curated gazetteers, which
// are more precise where they match: a gazetteer entry of another type
// over exactly these words wins ("Mandarin" is a language, "Google" an
// organisation); a span that cuts a gazetteer entry is dropped ("Wells"
// of "Wells Fargo"); a span made of entries of one type takes that type
// ("Denver Colorado"). A single word that is also an ordinary word at the
// start of a sentence ("Hello", "Good"), a cue word ("PIN", "SSN") or an
// ambiguous place after a determiner ("the China") is dropped.
func (r *run) keepTagged(typ string, from, to int) (string, bool) {
	// A name the name rules took is no organisation or place ("reach
	// Patricia at ...", "Garcia is from Mexico").
	for _, c := range r.cands[:r.gazFrom] {
		if c.typ == "person_name" && c.from == from && c.to == to && !r.knownPlaceAt(from) {
			return c.typ, true
		}
		// A longer name the name rules took from the same first word
		// ("Karen white", where the cased model ends the name at the
		// surname the casing missed) stays whole: the shorter tagged
		// span would cut it.
		if typ == "person_name" && c.typ == "person_name" && c.from == from && c.to > to {
			return "", false
		}
	}
	covered := make([]string, to-from)
	for _, c := range r.cands[r.gazFrom:r.gazTo] {
		if c.to <= from || c.from >= to {
			continue
		}
		// The tagger reads context where a place names a team or a
		// person ("CHICAGO 71 64", "Washington said").
		if c.from == from && c.to == to && c.typ != "location" {
			return c.typ, true
		}
		if c.from < from || c.to > to {
			return "", false
		}
		for k := c.from; k < c.to; k++ {
			covered[k-from] = c.typ
		}
	}
	if to-from > 1 && (covered[0] == "location" || covered[0] == "organization") {
		all := true
		for _, t := range covered {
			all = all && t == covered[0]
		}
		if all {
			typ = covered[0]
		}
	}
	if to-from == 1 {
		k := r.k(from)
		if common[k] && r.t[from].sentStart || notNames[k] || typ == "person_name" && determiners[r.k(from-1)] || strings.HasSuffix(k, "n't") || placeAmb[k] && determiners[r.k(from-1)] {
			return "", false
		}
	}
	return typ, true
}

var (
	placeAmb = set(ambiguousPlaces)
	// notNames are cue words written as acronyms and contractions the
	// tagger can take for names.
	notNames = set(`ssn pin vin cvv iban swift dob id dmv zip atm pc tv ok st i'm i'll i've i'd`)
)
