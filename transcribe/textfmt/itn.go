package textfmt

import (
	"context"
	"strconv"
	"strings"

	"github.com/earshot-dev/earshot/transcribe"
)

// ITN is the inverse text normalisation stage of format_text: it rewrites
// spoken forms of numbers, money, percentages, times, dates, years, digit
// sequences (phone numbers), e-mail addresses and web addresses into their
// written forms. Each written token replaces the words it was read from and
// takes their time span (start of the first, end of the last) and their
// mean confidence. Words of different speakers or channels are never
// merged.
//
// The zero value is ready to use and safe for concurrent use.
type ITN struct {
	// SpellOutBelow: plain cardinals and ordinals spoken as a single word
	// below this value stay words ("one of them", "the first time"), as
	// common style guides write them. Money, percentages, times, dates and
	// digit sequences always use digits. Default (0): 10. Negative: every
	// number becomes digits.
	SpellOutBelow int64
}

// Name returns "format_text".
func (ITN) Name() string { return "format_text" }

// Enabled reports whether format_text is on (the default).
func (ITN) Enabled(p *transcribe.TranscriptParams) bool { return formatText(p) }

func formatText(p *transcribe.TranscriptParams) bool {
	return p == nil || p.FormatText == nil || *p.FormatText
}

// Apply rewrites job.Transcript.Words.
func (s ITN) Apply(ctx context.Context, job *transcribe.Job) error {
	if job == nil || job.Transcript == nil {
		return nil
	}
	job.Transcript.Words = s.Format(job.Transcript.Words)
	return ctx.Err()
}

// piece is one written token replacing words [from, to).
type piece struct {
	text     string
	from, to int
}

type itnRun struct {
	ws      []transcribe.Word
	t       []string // norm of each word
	segEnd  []int    // end of the same-speaker/channel run containing i
	below   int64
	prevOut string // norm of the last emitted token's text
}

// Format returns the words with spoken forms rewritten, each channel on
// its own. The input slice is not modified.
func (s ITN) Format(ws []transcribe.Word) []transcribe.Word {
	return perChannel(ws, s.format)
}

func (s ITN) format(ws []transcribe.Word) []transcribe.Word {
	if len(ws) == 0 {
		return ws
	}
	below := s.SpellOutBelow
	if below == 0 {
		below = 10
	}
	r := &itnRun{ws: ws, t: norms(ws), segEnd: make([]int, len(ws)), below: below}
	r.segEnd[len(ws)-1] = len(ws)
	for i := len(ws) - 2; i >= 0; i-- {
		if sameSide(ws[i], ws[i+1]) {
			r.segEnd[i] = r.segEnd[i+1]
		} else {
			r.segEnd[i] = i + 1
		}
	}
	out := make([]transcribe.Word, 0, len(ws))
	matchers := []func(int, int) []piece{r.email, r.url, r.twentyFourSeven, r.clock, r.date, r.year, r.digits, r.number}
	for i := 0; i < len(ws); {
		lim := r.segEnd[i]
		var ps []piece
		if r.t[i] != "" {
			for _, m := range matchers {
				if ps = m(i, lim); ps != nil {
					break
				}
			}
		}
		if !validPieces(ps, i, lim) {
			out = append(out, ws[i])
			r.prevOut = r.t[i]
			i++
			continue
		}
		for _, p := range ps {
			out = append(out, mergeWords(ws, p.from, p.to, p.text))
		}
		r.prevOut = norm(ps[len(ps)-1].text)
		i = ps[len(ps)-1].to
	}
	return out
}

// validPieces checks that ps covers [i, k) contiguously for some k <= lim.
func validPieces(ps []piece, i, lim int) bool {
	if len(ps) == 0 {
		return false
	}
	at := i
	for _, p := range ps {
		if p.from != at || p.to <= p.from || p.to > lim || p.text == "" {
			return false
		}
		at = p.to
	}
	return true
}

// at returns t[i], or "" past lim.
func (r *itnRun) at(i, lim int) string {
	if i < 0 || i >= lim {
		return ""
	}
	return r.t[i]
}

// Context words after which a number reads as a year or a time.
var (
	yearContext = set("in since of year years from by until till before after during circa back early late mid")
	timeContext = set("at by around until till before after from since about to")
	tlds        = set("com net org edu gov io co uk us ca de fr au ai app dev info biz me tv ly in eu")
	// notAddress are words that never start an e-mail or web address
	// ("email me at example dot com" is not me@example.com).
	notAddress = set("me us him her them you it i we they is was be are am here there home work " +
		"look the a an and or to at in on of for with from by this that my your our their his its")
	addressJoiners = map[string]string{"dot": ".", "underscore": "_", "dash": "-", "hyphen": "-"}
)

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

func isLabel(w string) bool {
	if w == "" || w == "dot" || w == "at" || w == "slash" {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// domain reads label ("dot" label)+ ending in a known top-level domain,
// starting at i. It returns the written domain and the index after it.
func (r *itnRun) domain(i, lim int) (string, int) {
	if !isLabel(r.at(i, lim)) {
		return "", -1
	}
	labels := []string{r.t[i]}
	j, end := i+1, -1
	for r.at(j, lim) == "dot" && isLabel(r.at(j+1, lim)) {
		labels = append(labels, r.t[j+1])
		j += 2
		if tlds[r.t[j-1]] {
			end = j
		}
	}
	if end < 0 {
		return "", -1
	}
	return strings.Join(labels[:(end-i+1)/2], "."), end
}

// email matches "john at example dot com", "john dot smith at example
// dot co dot uk" and "sarah seven five at example dot com".
func (r *itnRun) email(i, lim int) []piece {
	if !isLabel(r.at(i, lim)) || notAddress[r.t[i]] {
		return nil
	}
	user := r.t[i]
	j := i + 1
	for {
		// "sarah seven five at ..." -> "sarah75@": digits spoken one by
		// one run on in the user name.
		if v, ok := unitWords[r.at(j, lim)]; ok && r.at(j, lim) != "oh" {
			user += strconv.FormatInt(v, 10)
			j++
			continue
		}
		sep, ok := addressJoiners[r.at(j, lim)]
		if !ok || !isLabel(r.at(j+1, lim)) {
			break
		}
		user += sep + r.t[j+1]
		j += 2
	}
	if r.at(j, lim) != "at" {
		return nil
	}
	dom, end := r.domain(j+1, lim)
	if end < 0 {
		return nil
	}
	return []piece{{user + "@" + dom, i, end}}
}

// url matches "w w w dot example dot com", "www dot example dot com" and
// "example dot com", with optional "slash word" path parts.
func (r *itnRun) url(i, lim int) []piece {
	j, prefix := i, ""
	switch {
	case r.at(i, lim) == "www" && r.at(i+1, lim) == "dot":
		j, prefix = i+2, "www."
	case r.at(i, lim) == "w" && r.at(i+1, lim) == "w" && r.at(i+2, lim) == "w" && r.at(i+3, lim) == "dot":
		j, prefix = i+4, "www."
	default:
		if notAddress[r.at(i, lim)] {
			return nil
		}
	}
	dom, end := r.domain(j, lim)
	if end < 0 {
		return nil
	}
	text := prefix + dom
	for r.at(end, lim) == "slash" && isLabel(r.at(end+1, lim)) {
		text += "/" + r.t[end+1]
		end += 2
	}
	return []piece{{text, i, end}}
}

// twentyFourSeven matches "twenty four seven" -> "24/7".
func (r *itnRun) twentyFourSeven(i, lim int) []piece {
	if r.at(i, lim) == "twenty" && r.at(i+1, lim) == "four" && r.at(i+2, lim) == "seven" && !isKey(unitWords, r.at(i+3, lim)) {
		return []piece{{"24/7", i, i + 3}}
	}
	return nil
}

// hourAt reads an hour (1-12) as one word at i.
func (r *itnRun) hourAt(i, lim int) (int64, bool) {
	w := r.at(i, lim)
	if v, ok := unitWords[w]; ok && v > 0 {
		return v, true
	}
	if v, ok := teenWords[w]; ok && v <= 12 {
		return v, true
	}
	if allDigits(w) && len(w) <= 2 {
		v, _ := strconv.ParseInt(w, 10, 64)
		return v, v >= 1 && v <= 12
	}
	return 0, false
}

// minuteAt reads the minutes of a clock time at i: "oh five", "fifteen",
// "thirty", "forty five". It returns the minutes and the words read.
func (r *itnRun) minuteAt(i, lim int) (int64, int) {
	w := r.at(i, lim)
	if w == "oh" || w == "o" {
		if v, ok := unitWords[r.at(i+1, lim)]; ok && v > 0 {
			return v, 2
		}
		return 0, 0
	}
	if v, ok := teenWords[w]; ok {
		return v, 1
	}
	if v, ok := tensWords[w]; ok && v <= 50 {
		if u, ok := unitWords[r.at(i+1, lim)]; ok && u > 0 {
			return v + u, 2
		}
		return v, 1
	}
	return 0, 0
}

// ampmAt reads "a m", "p m", "am", "pm" (and "a.m." forms) at i.
func (r *itnRun) ampmAt(i, lim int) (string, int) {
	switch w := r.at(i, lim); w {
	case "am", "pm":
		return strings.ToUpper(w), 1
	case "a", "p":
		if r.at(i+1, lim) == "m" {
			return strings.ToUpper(w) + "M", 2
		}
	}
	return "", 0
}

// clock matches times: "three thirty p m" -> "3:30" "PM", "seven o'clock"
// -> "7" "o'clock", "ten a m" -> "10" "AM", and "at seven fifteen" ->
// "7:15" after a time preposition.
func (r *itnRun) clock(i, lim int) []piece {
	h, ok := r.hourAt(i, lim)
	if !ok {
		return nil
	}
	j := i + 1
	switch {
	case r.at(j, lim) == "o'clock" || r.at(j, lim) == "oclock":
		return []piece{{strconv.FormatInt(h, 10), i, j}, {"o'clock", j, j + 1}}
	case r.at(j, lim) == "o" && r.at(j+1, lim) == "clock":
		return []piece{{strconv.FormatInt(h, 10), i, j}, {"o'clock", j, j + 2}}
	}
	m, mn := r.minuteAt(j, lim)
	// "three twenty five dollars" is money, not a time.
	if mn > 0 && (isMoneyWord(r.at(j+mn, lim)) || isScaleish(r.at(j+mn, lim))) {
		return nil
	}
	ap, an := r.ampmAt(j+mn, lim)
	text := strconv.FormatInt(h, 10)
	if mn > 0 {
		text += ":" + twoDigits(m)
	}
	switch {
	case an > 0:
		return []piece{{text, i, j + mn}, {ap, j + mn, j + mn + an}}
	case mn > 0 && timeContext[r.prevOut]:
		return []piece{{text, i, j + mn}}
	}
	return nil
}

func isMoneyWord(w string) bool {
	switch w {
	case "dollar", "dollars", "buck", "bucks", "cent", "cents", "percent", "per":
		return true
	}
	return false
}

func isScaleish(w string) bool { return w == "hundred" || isKey(scaleWords, w) || w == "point" }

func twoDigits(v int64) string {
	if v < 10 {
		return "0" + strconv.FormatInt(v, 10)
	}
	return strconv.FormatInt(v, 10)
}

// Months by spoken name.
var months = set("january february march april may june july august september october november december")

// date matches a month followed by a day and optionally a year: "january
// fifth" -> "january" "5th"; "march third twenty twenty four" -> "march"
// "3rd," "2024"; "may twenty twenty" -> "may" "2020". A day spoken as an
// ordinal keeps its suffix ("5th"), one spoken as a cardinal does not
// ("january five" -> "5"). Casing capitalises the month.
func (r *itnRun) date(i, lim int) []piece {
	if !months[r.at(i, lim)] {
		return nil
	}
	month := piece{r.ws[i].Text, i, i + 1}
	if y, n := r.yearAt(i+1, lim); n > 0 {
		return []piece{month, {y, i + 1, i + 1 + n}}
	}
	d, ok := parseNumber(r.t, i+1, lim)
	if !ok || d.frac != "" || d.val < 1 || d.val > 31 || d.scale != 0 {
		return nil
	}
	end := i + 1 + d.n
	if isMoneyWord(r.at(end, lim)) || isScaleish(r.at(end, lim)) {
		return nil
	}
	day := strconv.FormatInt(d.val, 10)
	if d.ord {
		day += ordinalSuffix(d.val)
	}
	ps := []piece{month, {day, i + 1, end}}
	if y, n := r.yearAt(end, lim); n > 0 {
		ps[1].text += ","
		return append(ps, piece{y, end, end + n})
	}
	if yn, ok := parseNumber(r.t, end, lim); ok && !yn.ord && yn.frac == "" && yn.val >= 1000 && yn.val <= 2999 && yn.words > 1 {
		ps[1].text += ","
		return append(ps, piece{strconv.FormatInt(yn.val, 10), end, end + yn.n})
	}
	return ps
}

// yearAt reads a year spoken in pairs at i: "nineteen ninety nine",
// "twenty twenty four", "twenty oh five", "nineteen hundred". It returns
// the written year and the number of words.
func (r *itnRun) yearAt(i, lim int) (string, int) {
	w := r.at(i, lim)
	first, ok := teenWords[w]
	if !ok {
		if w != "twenty" {
			return "", 0
		}
		first = 20
	}
	if first < 11 {
		return "", 0
	}
	j := i + 1
	var second int64
	n := 0
	switch x := r.at(j, lim); {
	case x == "hundred":
		second, n = 0, 1
	case x == "oh" || x == "o":
		if v, ok := unitWords[r.at(j+1, lim)]; ok && v > 0 {
			second, n = v, 2
		}
	case isKey(teenWords, x):
		second, n = teenWords[x], 1
	case isKey(decadeWords, x):
		// "nineteen eighties" -> "1980s"
		return strconv.FormatInt(first*100+decadeWords[x], 10) + "s", 2
	case isKey(tensWords, x):
		second, n = tensWords[x], 1
		if u, ok := unitWords[r.at(j+1, lim)]; ok && u > 0 {
			second, n = second+u, 2
		}
	}
	if n == 0 {
		return "", 0
	}
	next := r.at(j+n, lim)
	if isScaleish(next) || isMoneyWord(next) {
		return "", 0
	}
	return strconv.FormatInt(first*100+second, 10), 1 + n
}

// year matches a paired year where it cannot be anything else: always for
// "nineteen ..." and "twenty ...", and for other centuries after a year
// context word ("in", "since", "of", ...).
func (r *itnRun) year(i, lim int) []piece {
	y, n := r.yearAt(i, lim)
	if n == 0 {
		return nil
	}
	if w := r.t[i]; w != "nineteen" && w != "twenty" && !yearContext[r.prevOut] && !months[r.prevOut] {
		return nil
	}
	return []piece{{y, i, i + n}}
}

// digits matches three or more single-digit words as a digit sequence:
// seven digits are written 555-1234, ten 555-123-4567, eleven starting
// with one 1-555-123-4567, other lengths as plain digits. "oh" counts as
// zero except at the start.
func (r *itnRun) digits(i, lim int) []piece {
	if r.at(i, lim) == "oh" {
		return nil
	}
	var ds []byte
	j := i
	for j < lim {
		d, ok := digitWords[r.t[j]]
		if !ok {
			break
		}
		ds = append(ds, d)
		j++
	}
	// "five five two hundred": the last digit belongs to the number after.
	if len(ds) > 0 && isScaleish(r.at(j, lim)) {
		ds, j = ds[:len(ds)-1], j-1
	}
	if len(ds) < 3 {
		return nil
	}
	s := string(ds)
	switch {
	case len(s) == 7:
		s = s[:3] + "-" + s[3:]
	case len(s) == 10:
		s = s[:3] + "-" + s[3:6] + "-" + s[6:]
	case len(s) == 11 && s[0] == '1':
		s = "1-" + s[1:4] + "-" + s[4:7] + "-" + s[7:]
	}
	return []piece{{s, i, j}}
}

// number matches money ("twenty five dollars" -> "$25", "three dollars and
// fifty cents" -> "$3.50"), percentages ("ten percent" -> "10%"), ordinals
// ("twenty first" -> "21st") and cardinals ("one hundred and twelve" ->
// "112", "five million" -> "5" "million").
func (r *itnRun) number(i, lim int) []piece {
	nm, ok := parseNumber(r.t, i, lim)
	if !ok {
		return nil
	}
	end := i + nm.n
	digits := r.numText(nm)
	switch w := r.at(end, lim); {
	case w == "dollar" || w == "dollars" || w == "buck" || w == "bucks":
		if nm.ord {
			return nil
		}
		stop := end + 1
		cents := ""
		k := stop
		if r.at(k, lim) == "and" {
			k++
		}
		if c, ok := parseNumber(r.t, k, lim); ok && !c.ord && c.frac == "" && c.val < 100 {
			if cw := r.at(k+c.n, lim); cw == "cent" || cw == "cents" {
				cents = twoDigits(c.val)
				stop = k + c.n + 1
			}
		}
		if nm.frac != "" && cents == "" {
			cents = (nm.frac + "0")[:2]
			if len(nm.frac) > 2 {
				cents = nm.frac
			}
			digits = formatInt(nm.val, true)
		}
		if nm.scale >= 1e6 && nm.frac == "" && cents == "" {
			// "five million dollars" -> "$5" "million" "dollars" reads worse
			// than "$5 million"; keep the scale word as its own token.
			return []piece{{"$" + digits, i, nm.scaleAt}, {r.ws[nm.scaleAt].Text, nm.scaleAt, stop}}
		}
		text := "$" + digits
		if cents != "" {
			text += "." + cents
		}
		return []piece{{text, i, stop}}
	case w == "percent" || (w == "per" && r.at(end+1, lim) == "cent"):
		if nm.ord {
			return nil
		}
		stop := end + 1
		if w == "per" {
			stop++
		}
		if nm.scale >= 1e6 {
			digits = formatInt(nm.val, true)
		}
		return []piece{{digits + "%", i, stop}}
	}
	if nm.words == 1 && r.t[i] == "a" {
		return nil // "a hundred", "a million thanks"
	}
	if nm.words == 1 && nm.frac == "" && nm.val < r.below && nm.val >= 0 && !allDigits(r.t[i]) {
		// Small numbers read better as words, except an ordinal day
		// before "of <month>" ("the fifth of may").
		if !(nm.ord && r.at(end, lim) == "of" && months[r.at(end+1, lim)]) {
			return nil
		}
	}
	if nm.ord {
		return []piece{{strconv.FormatInt(nm.val, 10) + ordinalSuffix(nm.val), i, end}}
	}
	if nm.scale >= 1e6 && nm.frac == "" {
		return []piece{{digits, i, nm.scaleAt}, {r.ws[nm.scaleAt].Text, nm.scaleAt, end}}
	}
	if allDigits(r.t[i]) && nm.n == 1 {
		return nil // already written in digits
	}
	return []piece{{digits, i, end}}
}

// numText writes a parsed cardinal: digits with thousands separators, a
// four-digit year-like value without them after a year context word
// ("in two thousand twenty four" -> "2024"), decimals after a point, and
// the part before a trailing "million"/"billion" alone.
func (r *itnRun) numText(nm number) string {
	v := nm.val
	if nm.scale >= 1e6 && nm.frac == "" && !nm.ord {
		v /= nm.scale
	}
	commas := v >= 1000
	if v >= 1000 && v <= 2999 && (yearContext[r.prevOut] || months[r.prevOut]) {
		commas = false
	}
	s := formatInt(v, commas)
	if nm.frac != "" {
		s += "." + nm.frac
	}
	return s
}
