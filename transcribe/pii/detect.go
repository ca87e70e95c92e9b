package pii

import (
	"net"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/nyaruka/phonenumbers"
)

// Span is one detected entity: its type (one of transcribe.PIIPolicies())
// over the words [From, To) of the slice it was found in.
type Span struct {
	Type     string
	From, To int
}

// Detector finds entities in formatted words (the output of the textfmt
// stages: "$25", "555-1234", "john@example.com", "Sarah" with punctuation
// attached). It combines validated patterns, curated gazetteers and context
// cues; doc.go lists the method used for each entity type.
//
// The zero value is ready to use. A Detector is safe for concurrent use.
type Detector struct {
	// Region is the ISO 3166 region used to read phone numbers written
	// without a country code. Default "US".
	Region string
}

// Priorities decide between overlapping candidates: the higher wins, then
// the longer, then the earlier.
const (
	prioCue      = 90 // a value named by its cue ("my SSN is ...")
	prioPattern  = 80 // a self-validating pattern (e-mail, card with Luhn)
	prioInterval = 75
	prioAge      = 72
	prioNumeric  = 65 // money, dates, times, durations, statistics
	prioAddress  = 62
	prioName     = 55
	prioGaz      = 45
	prioWeak     = 30
	prioSequence = 10
)

type cand struct {
	typ      string
	from, to int
	prio     int
}

// run is the state of one detection.
type run struct {
	d     Detector
	ws    []transcribe.Word
	t     []tok
	cands []cand
}

func (r *run) add(typ string, from, to, prio int) {
	if from < 0 || to > len(r.t) || from >= to {
		return
	}
	for k := from + 1; k < to; k++ {
		if r.t[k].side != r.t[from].side {
			return
		}
	}
	r.cands = append(r.cands, cand{typ, from, to, prio})
}

// k returns the key of word i, or "" outside the words.
func (r *run) k(i int) string {
	if i < 0 || i >= len(r.t) {
		return ""
	}
	return r.t[i].key
}

// phraseAt reports whether the words at i spell phrase (space separated
// keys) without a clause boundary inside, and returns its length.
func (r *run) phraseAt(i int, phrase string) int {
	if p, _, _ := strings.Cut(phrase, " "); r.k(i) != p {
		return 0 // the common case, without splitting
	}
	ps := strings.Fields(phrase)
	for n, p := range ps {
		if r.k(i+n) != p || (n < len(ps)-1 && r.t[i+n].punct) {
			return 0
		}
	}
	return len(ps)
}

// Spans returns the entities in ws as non-overlapping spans in word order.
func (d Detector) Spans(ws []transcribe.Word) []Span {
	if len(ws) == 0 {
		return nil
	}
	if d.Region == "" {
		d.Region = "US"
	}
	r := &run{d: d, ws: ws, t: prepare(ws)}
	r.patterns()
	r.numbers()
	r.dates()
	r.cues()
	r.names()
	r.gazetteers()
	r.places()
	return r.resolve()
}

// Detect returns the entities in ws with their text (the words' text
// without the leading punctuation of the first word and the trailing
// punctuation of the last) and times (start of the first word, end of the
// last).
func (d Detector) Detect(ws []transcribe.Word) []transcribe.Entity {
	return Entities(ws, d.Spans(ws))
}

// Entities turns spans over ws into transcribe.Entity values.
func Entities(ws []transcribe.Word, spans []Span) []transcribe.Entity {
	out := make([]transcribe.Entity, 0, len(spans))
	for _, s := range spans {
		out = append(out, transcribe.Entity{EntityType: s.Type, Text: spanText(ws[s.From:s.To]),
			Start: ws[s.From].Start, End: ws[s.To-1].End})
	}
	return out
}

func spanText(ws []transcribe.Word) string {
	s := transcribe.JoinWords(ws)
	s = strings.TrimLeft(s, "\"'“‘¿¡[{")
	s = strings.TrimRight(s, ".,;:!?\"'”’…]}")
	if strings.HasPrefix(s, "(") && !strings.Contains(s, ")") {
		s = s[1:]
	}
	if strings.HasSuffix(s, ")") && !strings.Contains(s, "(") {
		s = s[:len(s)-1]
	}
	return s
}

// resolve picks non-overlapping candidates and merges neighbours.
func (r *run) resolve() []Span {
	cs := r.cands
	sort.SliceStable(cs, func(a, b int) bool {
		if cs[a].prio != cs[b].prio {
			return cs[a].prio > cs[b].prio
		}
		if la, lb := cs[a].to-cs[a].from, cs[b].to-cs[b].from; la != lb {
			return la > lb
		}
		return cs[a].from < cs[b].from
	})
	used := make([]bool, len(r.t))
	var out []Span
next:
	for _, c := range cs {
		for k := c.from; k < c.to; k++ {
			if used[k] {
				continue next
			}
		}
		for k := c.from; k < c.to; k++ {
			used[k] = true
		}
		out = append(out, Span{c.typ, c.from, c.to})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].From < out[b].From })
	// Merge "Springfield, Illinois" and "Monday, January 5th" into one.
	merged := out[:0]
	for _, s := range out {
		if n := len(merged); n > 0 {
			p := &merged[n-1]
			if p.To == s.From && p.Type == s.Type && (s.Type == "location" || s.Type == "date") && r.t[p.From].side == r.t[s.From].side {
				_, _, trail := splitPunct(r.ws[p.To-1].Text)
				if !strings.ContainsAny(trail, ".?!;") {
					p.To = s.To
					continue
				}
			}
		}
		merged = append(merged, s)
	}
	return merged
}

// ---------------------------------------------------------------------------
// Self-validating patterns: e-mail, URL, file name, IP address, digit runs
// (card numbers, SSNs, phone numbers, other sequences), VINs.

var (
	reEmail    = regexp.MustCompile(`^[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}$`)
	reURL      = regexp.MustCompile(`^(?i)(https?://)?(www\.)?[a-z0-9\-]+(\.[a-z0-9\-]+)*\.([a-z]{2,})(:\d+)?(/\S*)?$`)
	reFile     = regexp.MustCompile(`^(?i)[a-z0-9_\-]+(\.[a-z0-9_\-]+)*\.([a-z0-9]{1,4})$`)
	reUsername = regexp.MustCompile(`^@[A-Za-z0-9_.]{2,}$`)
	reVIN      = regexp.MustCompile(`^[A-HJ-NPR-Z0-9]{17}$`)
	reSSN      = regexp.MustCompile(`^(\d{3})-(\d{2})-(\d{4})$`)
	tldSet     = set(tlds)
	extSet     = set(fileExts)
)

func (r *run) patterns() {
	for i, t := range r.t {
		c := t.core
		switch {
		case reEmail.MatchString(c):
			r.add("email_address", i, i+1, prioPattern)
		case reUsername.MatchString(c):
			r.add("username", i, i+1, prioPattern)
		case strings.Contains(c, ".") && reFile.MatchString(c) && extSet[strings.ToLower(c[strings.LastIndexByte(c, '.')+1:])] && !strings.HasPrefix(strings.ToLower(c), "www."):
			r.add("filename", i, i+1, prioPattern)
		case isIP(c):
			r.add("ip_address", i, i+1, prioPattern)
		case strings.Contains(c, ".") && reURL.MatchString(c) && isURL(c):
			r.add("url", i, i+1, prioPattern)
		case reVIN.MatchString(c) && vinValid(c):
			r.add("vehicle_id", i, i+1, prioPattern)
		}
		// Spoken file names that ITN left alone: "report dot pdf".
		if r.k(i+1) == "dot" && extSet[r.k(i+2)] && !tldSet[r.k(i+2)] && isAlpha(t.key) && !t.punct && !r.t[i+1].punct {
			r.add("filename", i, i+3, prioPattern)
		}
		r.spokenIP(i)
	}
	r.digitRuns()
}

func isURL(c string) bool {
	m := reURL.FindStringSubmatch(c)
	if m == nil {
		return false
	}
	return m[1] != "" || m[2] != "" || tldSet[strings.ToLower(m[4])]
}

func isIP(c string) bool {
	if strings.Count(c, ".") == 3 {
		ip := net.ParseIP(c)
		return ip != nil && ip.To4() != nil
	}
	if strings.Count(c, ":") >= 2 {
		return net.ParseIP(c) != nil
	}
	return false
}

// spokenIP reads "192 dot 168 dot one dot 1".
func (r *run) spokenIP(i int) {
	j := i
	for part := 0; part < 4; part++ {
		v, ok := octet(r.k(j))
		if !ok || v > 255 {
			return
		}
		if part < 3 {
			if r.k(j+1) != "dot" {
				return
			}
			j += 2
		}
	}
	r.add("ip_address", i, j+1, prioPattern)
}

func octet(k string) (int, bool) {
	if isDigits(k) && len(k) <= 3 {
		v, _ := strconv.Atoi(k)
		return v, true
	}
	v, ok := smallNumbers[k]
	return v, ok
}

// vinValid checks the ISO 3779 check digit (position 9) of a North
// American VIN.
func vinValid(v string) bool {
	const letters = "ABCDEFGHJKLMNPRSTUVWXYZ"
	values := [...]int{1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 7, 9, 2, 3, 4, 5, 6, 7, 8, 9}
	weights := [...]int{8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2}
	if len(v) != 17 {
		return false
	}
	sum, digits := 0, 0
	for i := 0; i < 17; i++ {
		c := v[i]
		n := 0
		if c >= '0' && c <= '9' {
			n = int(c - '0')
			digits++
		} else if k := strings.IndexByte(letters, c); k >= 0 {
			n = values[k]
		} else {
			return false
		}
		sum += n * weights[i]
	}
	check := byte('0' + sum%11)
	if sum%11 == 10 {
		check = 'X'
	}
	return v[8] == check && digits >= 5
}

// luhn reports whether a digit string passes the Luhn check.
func luhn(d string) bool {
	sum, dbl := 0, false
	for i := len(d) - 1; i >= 0; i-- {
		n := int(d[i] - '0')
		if dbl {
			n *= 2
			if n > 9 {
				n -= 9
			}
		}
		sum += n
		dbl = !dbl
	}
	return sum%10 == 0
}

// ssnValid applies the SSA rules: area not 000, 666 or 9xx; group not 00;
// serial not 0000.
func ssnValid(d string) bool {
	if len(d) != 9 {
		return false
	}
	area, group, serial := d[:3], d[3:5], d[5:]
	return area != "000" && area != "666" && area[0] != '9' && group != "00" && serial != "0000"
}

// digitRun is a maximal run of adjacent words that are written digits
// ("555-123-4567", "4111 1111 1111 1111", "(555) 123-4567").
type digitRun struct {
	from, to int
	digits   string
	dashed   bool // has separators, as written phone numbers and SSNs do
}

func (r *run) runAt(i int) (digitRun, bool) {
	d, ok := digitsOf(r.t[i].core)
	if !ok || strings.HasPrefix(r.t[i].core, "$") {
		return digitRun{}, false
	}
	dr := digitRun{from: i, to: i + 1, digits: d, dashed: strings.ContainsAny(r.t[i].core, "-()")}
	for j := i + 1; j < len(r.t) && !r.t[j-1].punct && r.t[j].side == r.t[i].side; j++ {
		d, ok := digitsOf(r.t[j].core)
		if !ok || strings.Contains(r.t[j].core, ",") {
			break
		}
		dr.digits += d
		dr.to = j + 1
		dr.dashed = dr.dashed || strings.ContainsAny(r.t[j].core, "-()")
	}
	return dr, true
}

func (r *run) digitRuns() {
	for i := 0; i < len(r.t); {
		dr, ok := r.runAt(i)
		if !ok {
			i++
			continue
		}
		r.classifyRun(dr)
		i = dr.to
	}
}

func (r *run) classifyRun(dr digitRun) {
	d := dr.digits
	core := r.t[dr.from].core
	switch {
	case len(d) >= 13 && len(d) <= 19 && luhn(d):
		r.add("credit_card_number", dr.from, dr.to, prioPattern)
		return
	case dr.to-dr.from == 1 && reSSN.MatchString(core) && ssnValid(d):
		r.add("us_social_security_number", dr.from, dr.to, prioPattern)
		return
	case strings.Contains(core, "/") || strings.Contains(core, "."):
		return // dates and decimals are read elsewhere
	}
	if r.isPhone(dr) {
		r.add("phone_number", dr.from, dr.to, prioPattern-5)
		return
	}
	// Other identifying digit strings: long ones, ones with a leading
	// zero, and written with separators. Plain quantities are not.
	if (len(d) >= 5 || (len(d) >= 3 && d[0] == '0') || (dr.dashed && len(d) >= 4)) && !strings.Contains(core, ",") {
		r.add("number_sequence", dr.from, dr.to, prioSequence)
	}
}

// isPhone reports a digit run that phonenumbers reads as a possible number
// and that is written as one (separators, a leading +, or 10/11 digits).
func (r *run) isPhone(dr digitRun) bool {
	d := dr.digits
	if len(d) < 7 || len(d) > 15 {
		return false
	}
	text := ""
	for k := dr.from; k < dr.to; k++ {
		text += r.t[k].core + " "
	}
	plus := strings.HasPrefix(strings.TrimSpace(text), "+")
	if !dr.dashed && !plus && len(d) != 10 && !(len(d) == 11 && d[0] == '1') {
		return false
	}
	num, err := phonenumbers.Parse(text, r.d.Region)
	if err != nil {
		return false
	}
	return phonenumbers.IsPossibleNumber(num)
}

// ---------------------------------------------------------------------------
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

// ---------------------------------------------------------------------------
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
			// "the 5th of May"
			if r.k(i-1) == "of" && r.dayAt(i-2) && !r.t[i-2].punct {
				from = i - 2
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

// ---------------------------------------------------------------------------
// Values named by a cue: "my social security number is ...".

type cueRule struct {
	typ   string
	cues  []string
	value func(r *run, j int) int // length of the value at j, 0 if none
	gap   int                     // filler words allowed between cue and value
}

var fillers = set(`number numbers no num is was are my the it's its it of code date on in be will for
card a an id # : as please that would be reads read`)

// codeValue reads a run of identifier parts with at least min characters
// and at least one digit.
func codeValue(min int) func(r *run, j int) int {
	return func(r *run, j int) int {
		n, chars, digits := 0, 0, false
		for j+n < len(r.t) && isCode(r.t[j+n].core) && (n == 0 || !r.t[j+n-1].punct) && r.t[j+n].side == r.t[j].side {
			// a lone letter that is a word ("a", "i") only inside a run
			if len(r.t[j+n].core) == 1 && !hasDigit(r.t[j+n].core) && n == 0 && !isCode(r.k(j+1)) {
				break
			}
			chars += len(r.t[j+n].core)
			digits = digits || hasDigit(r.t[j+n].core)
			n++
		}
		for n > 0 && !hasDigit(r.t[j+n-1].core) && len(r.t[j+n-1].core) == 1 && (r.k(j+n-1) == "a" || r.k(j+n-1) == "i") {
			n--
		}
		if chars < min || !digits {
			return 0
		}
		return n
	}
}

// digitValue reads a digit run whose digit count is within [lo, hi].
func digitValue(lo, hi int) func(r *run, j int) int {
	return func(r *run, j int) int {
		dr, ok := r.runAt(j)
		if !ok || len(dr.digits) < lo || len(dr.digits) > hi || strings.Contains(r.t[j].core, ",") {
			return 0
		}
		return dr.to - dr.from
	}
}

// wordValue reads the next single word (a password, a user name).
func wordValue(r *run, j int) int {
	if j >= len(r.t) || r.t[j].core == "" {
		return 0
	}
	if dr, ok := r.runAt(j); ok {
		return dr.to - dr.from
	}
	return 1
}

// expiryValue reads an expiry date: "04/27", "April 2027", "04 27".
func expiryValue(r *run, j int) int {
	if reMMYY.MatchString(r.t[j].core) {
		return 1
	}
	if months[r.k(j)] {
		n := 1
		if !r.t[j].punct && (reYear.MatchString(r.k(j+1)) || r.dayAt(j+1)) {
			n++
			if !r.t[j+1].punct && reYear.MatchString(r.k(j+2)) {
				n++
			}
		}
		return n
	}
	if dr, ok := r.runAt(j); ok && (len(dr.digits) == 4 || len(dr.digits) == 6) {
		return dr.to - dr.from
	}
	return 0
}

// zipValue reads a US ZIP code.
func zipValue(r *run, j int) int {
	c := r.t[j].core
	if len(c) == 5 && isDigits(c) || len(c) == 10 && isDigits(c[:5]) && c[5] == '-' && isDigits(c[6:]) {
		return 1
	}
	return 0
}

var cueRules = []cueRule{
	{"us_social_security_number", []string{"social security", "social", "ssn", "s s n"}, digitValue(9, 9), 3},
	{"credit_card_number", []string{"credit card", "debit card", "card number", "card"}, digitValue(12, 19), 3},
	{"credit_card_cvv", []string{"cvv", "cvc", "cvv2", "c v v", "security code", "verification code", "csc", "card verification"}, digitValue(3, 4), 3},
	{"credit_card_expiration", []string{"expires", "expire", "expired", "expiration", "expiry", "exp", "expiring", "valid thru", "valid through", "valid until"}, expiryValue, 4},
	{"passport_number", []string{"passport"}, codeValue(6), 3},
	{"drivers_license", []string{"driver's license", "drivers license", "driver license", "driving license", "driver's licence", "driving licence", "license number", "licence number", "dl"}, codeValue(5), 3},
	{"account_number", []string{"account", "acct", "account number", "bank account", "checking account", "savings account"}, codeValue(4), 3},
	{"banking_information", []string{"routing", "routing number", "iban", "swift", "bic", "sort code", "aba"}, codeValue(4), 3},
	{"healthcare_number", []string{"medicare", "medicaid", "health insurance", "insurance", "member id", "medical record", "mrn", "health card", "nhs", "policy number", "patient id"}, codeValue(5), 4},
	{"vehicle_id", []string{"vin", "vehicle identification", "license plate", "plate number", "plate", "registration number"}, codeValue(4), 3},
	{"username", []string{"username", "user name", "user id", "login", "handle", "screen name"}, wordValue, 2},
	{"password", []string{"password", "passcode", "pin", "passphrase", "pin code"}, wordValue, 2},
	{"phone_number", []string{"phone", "telephone", "cell", "mobile", "number", "call me at", "reach me at", "call", "fax", "extension"}, digitValue(7, 15), 3},
	{"location", []string{"zip", "zip code", "postal code", "postcode"}, zipValue, 2},
}

func (r *run) cues() {
	for _, rule := range cueRules {
		for i := range r.t {
			for _, cue := range rule.cues {
				n := r.phraseAt(i, cue)
				if n == 0 {
					continue
				}
				j := i + n
				if rule.typ == "password" || rule.typ == "username" {
					// the value is the word after "is", "was" or ":"
					// ("my password is sunshine", "PIN: 4821"), not
					// "I forgot my password yesterday".
					named := strings.HasSuffix(r.ws[j-1].Text, ":")
					for g := 0; g < rule.gap+1 && (r.k(j) == "is" || r.k(j) == "was" || r.k(j) == "name" || r.k(j) == "number" || r.k(j) == "will" || r.k(j) == "be"); g++ {
						named = named || r.k(j) == "is" || r.k(j) == "was" || r.k(j) == "be"
						j++
					}
					if m := rule.value(r, j); named && m > 0 && j < len(r.t) && !r.t[j-1].punct || named && m > 0 && strings.HasSuffix(r.ws[j-1].Text, ":") {
						r.add(rule.typ, j, j+m, prioCue)
					}
					break
				}
				for g := 0; g <= rule.gap && j < len(r.t); g++ {
					if !r.t[j-1].punct || r.t[j-1].core == "" || strings.HasSuffix(r.ws[j-1].Text, ":") || strings.HasSuffix(r.ws[j-1].Text, ",") {
						if m := rule.value(r, j); m > 0 {
							prio := prioCue
							if rule.typ == "phone_number" || rule.typ == "location" {
								prio = prioPattern - 2
							}
							r.add(rule.typ, j, j+m, prio)
							break
						}
					}
					if !fillers[r.k(j)] {
						break
					}
					j++
				}
				break
			}
		}
	}
	// Expiry dates take over the date they name.
}

// ---------------------------------------------------------------------------
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

// ---------------------------------------------------------------------------
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

// ---------------------------------------------------------------------------
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
