package pii

import (
	"net"
	"regexp"
	"strconv"
	"strings"

	"github.com/nyaruka/phonenumbers"
)

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

// spokenIP reads "192 dot 168 dot one dot 1" and octets spoken digit by
// digit ("one nine two dot zero dot two dot four four").
func (r *run) spokenIP(i int) {
	j := i
	for part := 0; part < 4; part++ {
		v, n := r.octetAt(j)
		if n == 0 || v > 255 {
			return
		}
		j += n - 1
		if part < 3 {
			if r.k(j+1) != "dot" {
				return
			}
			j += 2
		}
	}
	r.add("ip_address", i, j+1, prioPattern)
}

// octetAt reads one part of a spoken IP address at j: a number, or up to
// three digits spoken one by one; it returns the value and the words.
func (r *run) octetAt(j int) (int, int) {
	v, ok := octet(r.k(j))
	if !ok {
		return 0, 0
	}
	if !isDigits(r.k(j)) && v < 10 && !r.t[j].punct {
		n := 1
		for n < 3 && j+n < len(r.t) && !r.t[j+n-1].punct {
			d, ok := smallNumbers[r.k(j+n)]
			if !ok || d > 9 {
				break
			}
			v = v*10 + d
			n++
		}
		return v, n
	}
	return v, 1
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
