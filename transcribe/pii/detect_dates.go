package pii

import (
	"regexp"
	"strconv"
	"strings"
)

// Dates and times.

var (
	months    = set(`january february march april may june july august september october november december jan feb mar apr jun jul aug sep sept oct nov dec`)
	weekdays  = set(`monday tuesday wednesday thursday friday saturday sunday`)
	yearCue   = set(`in since until till by from of year during before after around circa between`)
	monthCue  = set(`in since until till of early late mid last next this by during`)
	reDay     = regexp.MustCompile(`^(\d{1,2})(st|nd|rd|th)?$`)
	reYear    = regexp.MustCompile(`^(1[89]|20)\d\d$`)
	reNumDate = regexp.MustCompile(`^(\d{1,2})/(\d{1,2})/(\d{2}|\d{4})$|^\d{4}-\d{2}-\d{2}$`)
	reMMYY    = regexp.MustCompile(`^(0?[1-9]|1[0-2])/(\d{2}|\d{4})$`)
	reClock   = regexp.MustCompile(`^([01]?\d|2[0-3]):[0-5]\d$`)
	reHour    = regexp.MustCompile(`^(1[0-2]|0?[1-9])$`)
	ampm      = set(`am pm a.m p.m`)
	birthCue  = set(`born birth birthday dob birthdate`)
)

func (r *run) dayAt(i int) bool {
	m := reDay.FindStringSubmatch(r.k(i))
	if m == nil {
		return false
	}
	v, _ := strconv.Atoi(m[1])
	return v >= 1 && v <= 31
}

func (r *run) dates() {
	for i, t := range r.t {
		k := t.key
		switch {
		case months[k]:
			from, end := i, i+1
			if !t.punct && r.dayAt(end) {
				end++
			}
			if (!r.t[end-1].punct || strings.HasSuffix(r.ws[end-1].Text, ",") && end > i+1) && reYear.MatchString(r.k(end)) {
				end++
			}
			// "the 5th of May"; "12 August 1974" (day first)
			switch {
			case r.k(i-1) == "of" && r.dayAt(i-2) && !r.t[i-2].punct:
				from = i - 2
			case end == i+2 && reYear.MatchString(r.k(i+1)) && r.dayAt(i-1) && !r.t[i-1].punct:
				from = i - 1
			case end == i+1 && r.dayAt(i-1) && !r.t[i-1].punct && !r.dayAt(i+1):
				from = i - 1
			}
			// A month alone ("April said ...") needs a cue: "in April".
			if end == i+1 && from == i && !monthCue[r.k(i-1)] {
				continue
			}
			r.add("date", from, end, prioNumeric)
		case weekdays[k] || (strings.HasSuffix(k, "s") && weekdays[strings.TrimSuffix(k, "s")]):
			r.add("date", i, i+1, prioNumeric)
		case reNumDate.MatchString(t.core):
			r.add("date", i, i+1, prioNumeric)
		case reYear.MatchString(k) && yearCue[r.k(i-1)] && !r.t[i-1].punct:
			r.add("date", i, i+1, prioNumeric-1)
		case reClock.MatchString(t.core):
			end := i + 1
			if !t.punct && ampm[r.k(end)] {
				end++
			}
			r.add("time", i, end, prioNumeric)
		case reHour.MatchString(k) && !t.punct && ampm[r.k(i+1)]:
			r.add("time", i, i+2, prioNumeric)
		case reHour.MatchString(k) && !t.punct && (r.k(i+1) == "o'clock" || r.k(i+1) == "oclock"):
			r.add("time", i, i+2, prioNumeric)
		case (k == "noon" || k == "midnight") && (r.k(i-1) == "at" || r.k(i-1) == "by" || r.k(i-1) == "until"):
			r.add("time", i, i+1, prioNumeric)
		}
	}
	// Intervals: "from <date> to <date>", "between <date> and <date>",
	// "<date> to <date>".
	byStart := map[int]cand{}
	for _, c := range r.cands {
		if c.typ == "date" || c.typ == "time" {
			if o, ok := byStart[c.from]; !ok || c.to > o.to {
				byStart[c.from] = c
			}
		}
	}
	for _, a := range byStart {
		if a.typ == "date" && (r.near(a.from, 5, birthCue) || r.phraseAt(a.from-3, "date of birth") > 0) {
			r.add("date_of_birth", a.from, a.to, prioCue-1)
		}
		lead := r.k(a.from - 1)
		joins := "to until till through thru"
		if lead == "between" {
			joins = "and"
		}
		if !strings.Contains(" "+joins+" ", " "+r.k(a.to)+" ") {
			continue
		}
		b, ok := byStart[a.to+1]
		if !ok && a.typ == "date" && reYear.MatchString(r.k(a.to+1)) {
			b, ok = cand{"date", a.to + 1, a.to + 2, prioNumeric}, true
		}
		if !ok || b.typ != a.typ {
			continue
		}
		if a.typ == "time" && lead != "from" && lead != "between" {
			continue
		}
		if a.typ == "date" {
			r.add("date_interval", a.from, b.to, prioInterval)
		}
	}

}
