package pii

import (
	"strings"
)

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
		for j+n < len(r.t) && (isCode(r.t[j+n].core) || r.codeGroup(j, n)) && (n == 0 || !r.t[j+n-1].punct) && r.t[j+n].side == r.t[j].side {
			if d, ok := smallNumbers[r.k(j+n)]; ok && d <= 9 && !isDigits(r.k(j+n)) {
				digits = true // a digit spoken as a word inside the code
			}
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

// codeGroup reports whether word j+n can go on the code that starts at j
// although isCode refuses it: a group of two to four capital letters
// between code parts, as IBANs are written ("GB82 WEST 1234"), or a digit
// spoken as a word ("g b eight two").
func (r *run) codeGroup(j, n int) bool {
	k := j + n
	c := r.t[k].core
	if d, ok := smallNumbers[r.k(k)]; ok && d <= 9 && !isDigits(c) {
		return n > 0 || isCode(r.k(k+1))
	}
	if n == 0 || len(c) < 2 || len(c) > 4 || strings.ToUpper(c) != c || !isAlpha(strings.ToLower(c)) {
		return false
	}
	return k+1 < len(r.t) && isCode(r.t[k+1].core)
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
	{"banking_information", []string{"routing", "routing number", "iban", "i b a n", "swift", "bic", "sort code", "aba"}, codeValue(4), 3},
	{"healthcare_number", []string{"medicare", "medicaid", "health insurance", "insurance", "member id", "medical record", "mrn", "health card", "nhs", "policy number", "patient id"}, codeValue(5), 4},
	{"vehicle_id", []string{"vin", "v i n", "vehicle identification", "license plate", "plate number", "plate", "registration number"}, codeValue(4), 3},
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
