package pii

// Places beyond the gazetteer: street addresses and "I live in X".

var (
	streetSuffix = set(`street st avenue ave road rd boulevard blvd lane ln drive dr court ct way
place pl parkway pkwy highway hwy circle terrace square`)
	unitWords    = set(`apartment apt suite unit`)
	strongSuffix = set(`street st avenue ave road rd boulevard blvd parkway pkwy highway hwy lane`)
	streetPrep   = set(`on at to from near down up along off of`)
	liveCues     = []string{"live in", "lives in", "living in", "live at", "lives at", "live on", "lives on", "moved to", "move to", "grew up in", "born in", "located in", "based in", "from", "visiting", "address is"}
)

func (r *run) places() {
	for i := range r.t {
		// "<number> <Name ...> Street"
		for n := 1; n <= 3; n++ {
			s := i + n
			if s >= len(r.t) || !streetSuffix[r.k(s)] || (r.k(s) == "dr" && r.nameish(s+1)) {
				continue
			}
			ok := true
			for q := i; q < s; q++ {
				if r.t[q].punct || r.t[q].side != r.t[i].side || !(isAlpha(r.t[q].core) || reDay.MatchString(r.k(q))) || common[r.k(q)] {
					ok = false
				}
			}
			if !ok {
				continue
			}
			from := i
			if p := i - 1; p >= 0 && !r.t[p].punct && isDigits(r.t[p].core) && len(r.t[p].core) <= 6 {
				from = p
			}
			// A house number the formatter left in words ("one oak street").
			for from == i || from < i && !isDigits(r.t[from].core) {
				p := from - 1
				if p < 0 || p < i-4 || r.t[p].punct || !numberWords[r.k(p)] {
					break
				}
				from = p
			}
			// Without a house number the street needs a capitalised name
			// or a street preposition and a street-only suffix: "on Oak
			// Street", not "the long drive".
			if from == i {
				named := r.t[i].capital && !r.t[i].sentStart
				if !named && !(streetPrep[r.k(i-1)] && strongSuffix[r.k(s)]) {
					continue
				}
			}
			end := s + 1
			if !r.t[s].punct && unitWords[r.k(end)] {
				if m := codeValue(1)(r, end+1); m > 0 {
					end += 1 + m
				} else if _, v := r.numberAt(end + 1); v >= 0 {
					end += 2
				}
			}
			r.add("location", from, end, prioAddress)
			break
		}
		// "I live in Springfield", "moved to Des Moines".
		for _, cue := range liveCues {
			n := r.phraseAt(i, cue)
			if n == 0 || r.t[i+n-1].punct {
				continue
			}
			j := i + n
			end := j
			for end < len(r.t) && end-j < 3 && isAlpha(r.t[end].core) && !common[r.k(end)] && !numberWords[r.k(end)] && !r.isOtherGaz(end) && !given[r.k(end)] && (end == j || !r.t[end-1].punct) {
				end++
			}
			// An unknown word is a place when written as one (capitalised)
			// or followed by a known place: "in Des Moines", "in ames,
			// Iowa"; not "I live in fear".
			if end > j && (r.t[j].capital && !r.t[j].sentStart || r.knownPlaceAt(end)) {
				r.add("location", j, end, prioWeak)
			}
		}
	}
	// A ZIP code right after a state: "Springfield, Illinois 62704".
	for _, c := range append([]cand(nil), r.cands...) {
		if c.typ == "location" && !r.t[c.to-1].punct && c.to < len(r.t) && zipValue(r, c.to) == 1 {
			r.add("location", c.from, c.to+1, c.prio+1)
		}
	}
}
