package openai

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/earshot-dev/earshot/transcribe"
)

// rawWord is one word as the engine wrote it (" Hello," "$3.50"), with
// times in milliseconds from the start of the request's audio and a
// confidence in 0..1.
type rawWord struct {
	text       string
	start, end int64
	conf       float64
}

// normalizeWords turns engine words into the words the transcribe
// contract asks for: lowercase, no punctuation, and — for English — numbers,
// money, percentages and clock times in spoken form ("$3.50" -> "three
// dollars and fifty cents"), which is what the Service's formatting stages
// (ITN) expect from a recognizer and turn back into written form.
// Non-speech annotations ("[BLANK_AUDIO]", "(music)", "*laughs*", "♪")
// are dropped. A word that becomes several takes the raw word's time,
// shared out by length. With keepPunct the sentence and clause
// punctuation that ended a raw word ends its last spoken word ("$3.50." ->
// "three dollars and fifty cents.").
func normalizeWords(raw []rawWord, english, keepPunct bool) []transcribe.Word {
	out := make([]transcribe.Word, 0, len(raw))
	closer := rune(0) // inside an annotation until this rune
	for i := 0; i < len(raw); i++ {
		w := raw[i]
		t := strings.TrimSpace(w.text)
		if closer != 0 {
			if strings.ContainsRune(t, closer) {
				closer = 0
			}
			continue
		}
		if c := annotationCloser(t); c != 0 {
			if !strings.ContainsRune(t[1:], c) {
				closer = c
			}
			continue
		}
		if isMusic(t) {
			continue
		}
		pieces := spoken(t, english)
		// "$5 million": the scale word belongs before the currency.
		if english && i+1 < len(raw) && len(pieces) > 1 && isCurrencyWord(pieces[len(pieces)-1]) {
			if next := strings.ToLower(trimEdges(strings.TrimSpace(raw[i+1].text))); isScale(next) {
				cur := pieces[len(pieces)-1]
				pieces = append(pieces[:len(pieces)-1], next, pluralCurrency(cur))
				w.end = max(w.end, raw[i+1].end)
				w.conf = (w.conf + raw[i+1].conf) / 2
				i++
			}
		}
		n := len(out)
		out = appendPieces(out, pieces, w)
		if keepPunct {
			if p := trailingPunct(t); p != "" && len(out) > 0 && len(out) > n {
				out[len(out)-1].Text += p
			}
		}
	}
	// A word split into pieces ("0!0" read as two words) shares its time
	// among them, so a later piece may start after the next word the
	// engine gave an overlapping time: keep starts in order.
	for i := 1; i < len(out); i++ {
		if out[i].Start < out[i-1].Start {
			out[i].Start = out[i-1].Start
			out[i].End = max(out[i].End, out[i].Start)
		}
	}
	return out
}

// appendPieces adds pieces as words sharing w's time by length.
func appendPieces(out []transcribe.Word, pieces []string, w rawWord) []transcribe.Word {
	if len(pieces) == 0 {
		return out
	}
	total := 0
	for _, p := range pieces {
		total += utf8.RuneCountInString(p)
	}
	span := w.end - w.start
	at := w.start
	done := 0
	for k, p := range pieces {
		done += utf8.RuneCountInString(p)
		end := w.start + int64(math.Round(float64(span)*float64(done)/float64(total)))
		if k == len(pieces)-1 {
			end = w.end
		}
		out = append(out, transcribe.Word{Text: p, Start: at, End: end, Confidence: w.conf})
		at = end
	}
	return out
}

// annotationCloser returns the rune that ends a non-speech annotation
// starting t ("[BLANK_AUDIO]", "(laughs)", "*music*"), or 0.
func annotationCloser(t string) rune {
	if t == "" {
		return 0
	}
	switch t[0] {
	case '[':
		return ']'
	case '(':
		return ')'
	case '<':
		return '>'
	case '*':
		if len(t) > 1 && t[1] != '*' {
			return '*'
		}
	}
	return 0
}

func isMusic(t string) bool {
	if t == "" {
		return false
	}
	for _, r := range t {
		if !strings.ContainsRune("♪♫♩♬🎵🎶", r) && !unicode.IsPunct(r) && !unicode.IsSpace(r) {
			return false
		}
	}
	return strings.ContainsAny(t, "♪♫♩♬🎵🎶")
}

// keepAtEdge are the symbols that carry meaning at a word's edge: money,
// percent, and the ones spoken as words ("C++", "&", "@name").
const keepAtEdge = "$€£¥%&+@"

// trimEdges removes punctuation and symbols (quotes, commas, full stops,
// apostrophes...) from both ends of t, keeping those of keepAtEdge.
func trimEdges(t string) string {
	return strings.TrimFunc(t, func(r rune) bool {
		if strings.ContainsRune(keepAtEdge, r) {
			return false
		}
		return unicode.IsPunct(r) || unicode.IsSymbol(r) || unicode.IsSpace(r) || unicode.Is(unicode.Cf, r)
	})
}

var (
	// $1,234.56% and friends: currency, integer with or without thousands
	// separators, decimals, and a percent, ordinal or decade suffix.
	numberRE = regexp.MustCompile(`^([$€£¥])?(-)?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(%|st|nd|rd|th|s|'s)?$`)
	clockRE  = regexp.MustCompile(`^(\d{1,2}):(\d{2})$`)
	groupsRE = regexp.MustCompile(`^\d+(?:-\d+)+$`)
)

// spoken returns the words of one engine word in the contract's form.
func spoken(t string, english bool) []string {
	t = strings.NewReplacer("’", "'", "‘", "'", "ʼ", "'").Replace(t)
	t = strings.ToLower(trimEdges(t))
	if t == "" {
		return nil
	}
	if english && strings.ContainsAny(t, "0123456789") {
		if p, ok := spokenNumber(t); ok {
			return p
		}
	}
	var out []string
	var b strings.Builder
	flush := func() {
		s := strings.Trim(b.String(), "'")
		b.Reset()
		if s == "" {
			return
		}
		if english && isDigits(s) {
			out = append(out, cardinalString(s)...)
			return
		}
		out = append(out, s)
	}
	rs := []rune(t)
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r):
			if english && i > 0 && (unicode.IsDigit(r) != unicode.IsDigit(rs[i-1])) && b.Len() > 0 && (unicode.IsLetter(rs[i-1]) || unicode.IsDigit(rs[i-1])) {
				flush() // "mp3" -> "mp" "three"
			}
			b.WriteRune(r)
		case r == '\'':
			b.WriteRune(r)
		default:
			flush()
			if english {
				switch r {
				case '@':
					out = append(out, "at")
				case '&':
					out = append(out, "and")
				case '+':
					out = append(out, "plus")
				case '%':
					out = append(out, "percent")
				case '.':
					// "example.com", "node.js": a dot between two names is spoken.
					if a, b := runLen(rs, i-1, -1), runLen(rs, i+1, 1); a > 0 && b > 0 && max(a, b) >= 2 {
						out = append(out, "dot")
					}
				}
			}
		}
	}
	flush()
	return out
}

// runLen counts letters and digits from rs[i] in direction dir.
func runLen(rs []rune, i, dir int) int {
	n := 0
	for ; i >= 0 && i < len(rs) && (unicode.IsLetter(rs[i]) || unicode.IsDigit(rs[i])); i += dir {
		n++
	}
	return n
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// spokenNumber handles a whole token that is a number, money, a
// percentage, an ordinal, a decade, a clock time or hyphenated digit
// groups (a phone number).
func spokenNumber(t string) ([]string, bool) {
	if m := clockRE.FindStringSubmatch(t); m != nil {
		h, _ := strconv.Atoi(m[1])
		mm, _ := strconv.Atoi(m[2])
		if h > 24 || mm > 59 {
			return nil, false
		}
		out := cardinal(uint64(h))
		switch {
		case mm == 0:
		case mm < 10:
			out = append(append(out, "oh"), cardinal(uint64(mm))...)
		default:
			out = append(out, cardinal(uint64(mm))...)
		}
		return out, true
	}
	if groupsRE.MatchString(t) {
		var out []string
		for _, g := range strings.Split(t, "-") {
			out = append(out, digitByDigit(g)...)
		}
		return out, true
	}
	m := numberRE.FindStringSubmatch(t)
	if m == nil {
		return nil, false
	}
	cur, neg, intPart, frac, suffix := m[1], m[2], strings.ReplaceAll(m[3], ",", ""), m[4], m[5]
	grouped := strings.Contains(m[3], ",")
	var out []string
	if neg != "" {
		out = append(out, "minus")
	}
	switch {
	case suffix == "s" || suffix == "'s":
		if cur != "" || frac != "" {
			return nil, false
		}
		n, err := strconv.ParseUint(intPart, 10, 64)
		if err != nil {
			return nil, false
		}
		ws := yearOrCardinal(intPart, n, grouped)
		ws[len(ws)-1] = plural(ws[len(ws)-1])
		return append(out, ws...), true
	case suffix == "st" || suffix == "nd" || suffix == "rd" || suffix == "th":
		if cur != "" || frac != "" {
			return nil, false
		}
		ws := cardinalString(intPart)
		ws[len(ws)-1] = ordinalWord(ws[len(ws)-1])
		return append(out, ws...), true
	}
	n, err := strconv.ParseUint(intPart, 10, 64)
	big := err != nil || len(intPart) > 15
	switch {
	case cur == "$" && len(frac) == 3 && !big:
		// "$3.50": three dollars and fifty cents.
		cents, _ := strconv.Atoi(frac[1:])
		out = append(out, cardinal(n)...)
		out = append(out, currencyName(cur, n == 1))
		if cents > 0 {
			out = append(append(append(out, "and"), cardinal(uint64(cents))...), plural2("cent", cents == 1))
		}
	case cur != "" || suffix == "%" || frac != "" || grouped || big:
		out = append(out, cardinalString(intPart)...)
		if frac != "" {
			out = append(append(out, "point"), digitByDigit(frac[1:])...)
		}
		if cur != "" {
			out = append(out, currencyName(cur, n == 1 && frac == ""))
		}
		if suffix == "%" {
			out = append(out, "percent")
		}
	default:
		out = append(out, yearOrCardinal(intPart, n, false)...)
	}
	return out, true
}

// yearOrCardinal speaks a four-digit number from 1100 to 2099 written
// without separators as a year ("nineteen ninety nine", "twenty oh five"),
// which ITN writes back without a thousands separator; anything else as a
// cardinal.
func yearOrCardinal(s string, n uint64, grouped bool) []string {
	if !grouped && len(s) == 4 && n >= 1100 && n <= 2099 && n != 2000 {
		hi, lo := n/100, n%100
		out := cardinal(hi)
		switch {
		case lo == 0:
			return append(out, "hundred")
		case lo < 10:
			return append(append(out, "oh"), cardinal(lo)...)
		}
		return append(out, cardinal(lo)...)
	}
	return cardinalString(s)
}

// cardinalString speaks a string of digits: a number with a leading zero
// or too long for words digit by digit, otherwise as a cardinal.
func cardinalString(s string) []string {
	if len(s) > 1 && s[0] == '0' || len(s) > 15 {
		return digitByDigit(s)
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return digitByDigit(s)
	}
	return cardinal(n)
}

var smallNumbers = [...]string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
	"ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"}

var tensWords = [...]string{"", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"}

var scaleWords = [...]string{"", "thousand", "million", "billion", "trillion"}

func digitByDigit(s string) []string {
	out := make([]string, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			out = append(out, smallNumbers[s[i]-'0'])
		}
	}
	return out
}

// cardinal speaks n (below 10^15) in words: 1234 -> "one thousand two
// hundred thirty four".
func cardinal(n uint64) []string {
	if n == 0 {
		return []string{"zero"}
	}
	var groups []uint64
	for m := n; m > 0; m /= 1000 {
		groups = append(groups, m%1000)
	}
	var out []string
	for g := len(groups) - 1; g >= 0; g-- {
		v := groups[g]
		if v == 0 {
			continue
		}
		if v >= 100 {
			out = append(out, smallNumbers[v/100], "hundred")
			v %= 100
		}
		switch {
		case v >= 20:
			out = append(out, tensWords[v/10])
			if v%10 != 0 {
				out = append(out, smallNumbers[v%10])
			}
		case v > 0:
			out = append(out, smallNumbers[v])
		}
		if g > 0 && g < len(scaleWords) {
			out = append(out, scaleWords[g])
		}
	}
	return out
}

func ordinalWord(w string) string {
	switch w {
	case "one":
		return "first"
	case "two":
		return "second"
	case "three":
		return "third"
	case "five":
		return "fifth"
	case "eight":
		return "eighth"
	case "nine":
		return "ninth"
	case "twelve":
		return "twelfth"
	}
	if strings.HasSuffix(w, "y") {
		return w[:len(w)-1] + "ieth"
	}
	return w + "th"
}

func plural(w string) string {
	switch {
	case strings.HasSuffix(w, "y"):
		return w[:len(w)-1] + "ies"
	case strings.HasSuffix(w, "x"):
		return w + "es"
	}
	return w + "s"
}

func plural2(w string, one bool) string {
	if one {
		return w
	}
	return plural(w)
}

func currencyName(sign string, one bool) string {
	switch sign {
	case "$":
		return plural2("dollar", one)
	case "€":
		return plural2("euro", one)
	case "£":
		return plural2("pound", one)
	}
	return "yen"
}

func isCurrencyWord(w string) bool {
	switch w {
	case "dollar", "dollars", "euro", "euros", "pound", "pounds", "yen":
		return true
	}
	return false
}

func pluralCurrency(w string) string {
	if w == "yen" || strings.HasSuffix(w, "s") {
		return w
	}
	return w + "s"
}

func isScale(w string) bool {
	switch w {
	case "thousand", "million", "billion", "trillion":
		return true
	}
	return false
}
