package pii

// Person names.

var (
	given      = set(givenNames)
	givenAmb   = set(ambiguousNames)
	surnameSet = set(surnames)
	titleSet   = set(titles)
	common     = set(commonWords)
	namingCues = []string{"my name is", "my name's", "name is", "name's", "named", "first name is", "last name is", "surname is"}
	placePrep  = set(`in from to at near visit visited visiting across around outside inside toward towards throughout of via moved live lives living lived based born grew`)
)

// nameish reports whether word i can continue a name.
func (r *run) nameish(i int) bool {
	if i >= len(r.t) {
		return false
	}
	t := r.t[i]
	if !isAlpha(t.core) {
		return false
	}
	return surnameSet[t.key] || given[t.key] || (t.capital && !t.sentStart && !common[t.key] && !months[t.key] && !weekdays[t.key])
}

// extendName extends a name starting at i (already accepted) over
// following name words, up to four words.
func (r *run) extendName(i int, loose bool) int {
	end := i + 1
	for end < len(r.t) && end-i < 4 && !r.t[end-1].punct && r.t[end].side == r.t[i].side {
		// "William Johnson William": a given name after a surname starts
		// another name.
		if end > i+1 && surnameSet[r.k(end-1)] && !given[r.k(end-1)] && given[r.k(end)] {
			break
		}
		if r.nameish(end) || (loose && end == i+1 && isAlpha(r.t[end].core) && !common[r.k(end)] && !numberWords[r.k(end)] && len(r.k(end)) > 2 && !r.isOtherGaz(end)) {
			end++
			continue
		}
		break
	}
	return end
}

func (r *run) isOtherGaz(i int) bool {
	_, ok := gaz[r.k(i)]
	return ok || months[r.k(i)] || weekdays[r.k(i)]
}

func (r *run) names() {
	for i, t := range r.t {
		k := t.key
		// Naming cues: the word after is a name whatever it is.
		for _, cue := range namingCues {
			n := r.phraseAt(i, cue)
			if n == 0 || r.t[i+n-1].punct {
				continue
			}
			j := i + n
			if j < len(r.t) && isAlpha(r.t[j].core) && !common[r.k(j)] && !numberWords[r.k(j)] {
				r.add("person_name", j, r.extendName(j, true), prioName+10)
			}
		}
		// Titles: "Dr. Patel", "Mrs. Smith".
		if titleSet[k] && i+1 < len(r.t) && isAlpha(r.t[i+1].core) && (surnameSet[r.k(i+1)] || given[r.k(i+1)] || r.t[i+1].capital) && !common[r.k(i+1)] {
			r.add("person_name", i+1, r.extendName(i+1, false), prioName+5)
		} else if titleSet[k] && !t.punct && i+2 < len(r.t) && givenAmb[r.k(i+1)] && !r.t[i+1].punct {
			// "doctor miles dyson": a title and a name that is also a word
			// ("miles", "will") need a surname after them.
			if end := r.extendName(i+1, true); end > i+2 {
				r.add("person_name", i+1, end, prioName+5)
			}
		}
		// Known given names, with following surnames.
		switch {
		case given[k]:
			if placeOnly[k] && placePrep[r.k(i-1)] {
				continue
			}
			// "a Christian", "in Jordan": another type unless a surname follows.
			if _, other := gaz[k]; other && (t.punct || !surnameSet[r.k(i+1)]) {
				continue
			}
			r.add("person_name", i, r.extendName(i, false), prioName)
		case givenAmb[k] && (t.capital && !t.sentStart || surnameSet[r.k(i+1)] && !t.punct):
			r.add("person_name", i, r.extendName(i, false), prioName)
		case (givenAmb[k] || r.t[i].capital && !r.t[i].sentStart && !common[k] && !r.isOtherGaz(i)) && r.k(i-1) == "me" && r.k(i-2) == "call":
			r.add("person_name", i, r.extendName(i, false), prioName)
		case r.t[i].capital && !r.t[i].sentStart && isAlpha(r.t[i].core) && !common[k] && !r.isOtherGaz(i) && !titleSet[k] &&
			(r.k(i-1) == "i'm" || r.k(i-1) == "is" && r.k(i-2) == "this" || r.k(i-1) == "meet" || r.k(i-1) == "dear"):
			// "I'm Zara", "this is Okonkwo", "meet Priyanka".
			r.add("person_name", i, r.extendName(i, false), prioName)
		case givenAmb[k] && (r.k(i-1) == "i'm" || r.k(i-1) == "this" && r.k(i-2) == "hi"):
			r.add("person_name", i, r.extendName(i, false), prioName)
		case surnameSet[k] && !wordSurnames[k] && !given[k]:
			// A family name that is no English word ("Rodriguez") is a name
			// on its own; other types (organisations) win.
			r.add("person_name", i, r.extendName(i, false), prioGaz-1)
		}
	}
}

// wordSurnames are family names that are also English words or places;
// they need a given name or title before them.
var wordSurnames = set(`white brown green young king long wood ward bell cook price hill hall ford gray
grant rose reed james jordan lee wells banks black bush church fox frost hunt lane little love mills
moon moss park pope rice rich ross shaw stone street swan waters webb west wolf woods baker carter
cole graham hayes howard hughes kelly knight lewis long martin morgan murray nelson perry powell
russell scott washington wallace parker turner cooper fisher foster ellis hamilton gordon griffin
sanders long dixon butler rogers bailey bennett barnes brooks myers meyer mitchell morris thomas
johnson jackson taylor wright walker allen adams clark collins evans harris miller moore owens
phillips roberts simmons stewart sullivan thompson watson williams wilson jones smith davis
anderson richardson robinson henderson campbell edwards kennedy`)

// knownPlaceAt reports whether a gazetteer location starts at i.
func (r *run) knownPlaceAt(i int) bool {
	for _, e := range gaz[r.k(i)] {
		if e.typ == "location" && !e.amb {
			return true
		}
	}
	return false
}

// placeOnly are given names that are also places; after a place
// preposition they are places.
var placeOnly = set(`georgia virginia austin jordan charlotte victoria florence paris washington
phoenix savannah dallas houston`)
