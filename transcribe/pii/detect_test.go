package pii

import (
	"reflect"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
)

// detectCases are formatted sentences (as the textfmt stages write them)
// and every entity expected in them, in order.
var detectCases = []struct{ text, want string }{
	{"Hi, my name is Sarah johnson and my number is 555-1234.", "person_name:Sarah johnson | phone_number:555-1234"},
	{"Please email me at john.smith@example.com or visit www.example.com.", "email_address:john.smith@example.com | url:www.example.com"},
	{"Send it to ftp.example.org/files or http://example.com/a.", "url:ftp.example.org/files | url:http://example.com/a"},
	{"My credit card number is 4111111111111111, it expires 04/27 and the CVV is 123.", "credit_card_number:4111111111111111 | credit_card_expiration:04/27 | credit_card_cvv:123"},
	{"The number 4111111111111112 fails the Luhn check.", "number_sequence:4111111111111112"},
	{"My social security number is 123-45-6789.", "us_social_security_number:123-45-6789"},
	{"The code 666-45-6789 is not a valid SSN.", "number_sequence:666-45-6789"},
	{"I was born on January 5th, 1985 in Chicago, Illinois.", "date_of_birth:January 5th, 1985 | location:Chicago, Illinois"},
	{"The meeting is on Monday at 3:30 PM.", "date:Monday | time:3:30 PM"},
	{"We stayed from June 3rd to June 10th for two weeks.", "date_interval:June 3rd to June 10th | duration:two weeks"},
	{"Between 2019 and 2021 prices rose 10 percent.", "date_interval:2019 and 2021 | statistics:10 percent"},
	{"It costs $25 and the fee is 25 dollars.", "money_amount:$25 | money_amount:25 dollars"},
	{"The deal is worth $5 million.", "money_amount:$5 million"},
	{"She is 42 years old and he is aged 35.", "person_age:42 years old | person_age:35"},
	{"I work at Google as a software engineer.", "organization:Google | occupation:software engineer"},
	{"I have diabetes and I take metformin every day.", "medical_condition:diabetes | drug:metformin"},
	{"I had surgery for a broken arm last year.", "medical_process:surgery | injury:broken arm"},
	{"I had a concussion and a sprained ankle.", "injury:concussion | injury:sprained ankle"},
	{"My blood type is O negative.", "blood_type:O negative"},
	{"I'm a Gemini and a Democrat.", "zodiac_sign:Gemini | political_affiliation:Democrat"},
	{"I am a Scorpio. My star sign is Cancer.", "zodiac_sign:Scorpio | zodiac_sign:Cancer"},
	{"The rash turned into eczema after the chemotherapy.", "medical_condition:eczema | medical_process:chemotherapy"},
	{"I'm a registered independent.", "political_affiliation:independent"},
	{"I live at 123 Main Street, Springfield, Illinois 62704.", "location:123 Main Street, Springfield, Illinois 62704"},
	{"I live in Des Moines now.", "location:Des Moines"},
	{"I speak French and Spanish, I am French.", "language:French | language:Spanish | nationality:French"},
	{"She is Canadian and speaks Mandarin.", "nationality:Canadian | language:Mandarin"},
	{"I am a Christian and I'm married.", "religion:Christian | marital_status:married"},
	{"He is a Muslim and she is Jewish.", "religion:Muslim | religion:Jewish"},
	{"I'm single and my sister is divorced.", "marital_status:single | marital_status:divorced"},
	{"I identify as non-binary and my partner is female.", "gender_sexuality:non-binary | gender_sexuality:female"},
	{"My passport number is X1234567 and my driver's license is D7654321.", "passport_number:X1234567 | drivers_license:D7654321"},
	{"My account number is 12345678 and the routing number is 021000021.", "account_number:12345678 | banking_information:021000021"},
	{"My bank account is 00123456789 and my IBAN is GB29NWBK60161331926819.", "account_number:00123456789 | banking_information:GB29NWBK60161331926819"},
	{"My IP address is 192.168.1.1 and the file is report.pdf.", "ip_address:192.168.1.1 | filename:report.pdf"},
	{"The server is at 10.0.0.12 and the backup at 2001:db8::1.", "ip_address:10.0.0.12 | ip_address:2001:db8::1"},
	{"The file is called budget dot xlsx.", "filename:budget dot xlsx"},
	{"My username is jsmith42 and my password is sunshine.", "username:jsmith42 | password:sunshine"},
	{"Follow me at @jsmith on the app.", "username:@jsmith"},
	{"My PIN is 4821.", "password:4821"},
	{"PIN: 4821, username: jsmith.", "password:4821 | username:jsmith"},
	{"I forgot my password yesterday and my username too.", ""},
	{"About 45% of people, one in five people agree.", "statistics:45% | statistics:one in five"},
	{"Dr. Patel said to call 1-800-555-0199 tomorrow.", "person_name:Patel | phone_number:1-800-555-0199"},
	{"Call Dr. Nguyen at (555) 123-4567.", "person_name:Nguyen | phone_number:(555) 123-4567"},
	{"My Medicare number is 1EG4TE5MK73.", "healthcare_number:1EG4TE5MK73"},
	{"The VIN is 1HGCM82633A004352.", "vehicle_id:1HGCM82633A004352"},
	{"My license plate is 7ABC123.", "vehicle_id:7ABC123"},
	{"I'm six feet two inches tall with blue eyes.", "physical_attribute:six feet two inches tall | physical_attribute:blue eyes"},
	{"I have red hair and I weigh 150 pounds.", "physical_attribute:red hair | physical_attribute:150 pounds"},
	{"I'm gay and I vote Republican.", "gender_sexuality:gay | political_affiliation:Republican"},
	{"The Super Bowl was on February 2nd.", "event:Super Bowl | date:February 2nd"},
	{"The party is on Christmas and Thanksgiving.", "event:Christmas | event:Thanksgiving"},
	{"My order number is 48213 and the code is 0417.", "number_sequence:48213 | number_sequence:0417"},
	{"We'll be there for a couple of weeks, about half an hour.", "duration:a couple of weeks | duration:half an hour"},
	{"Will you call Mark tomorrow? Will Smith is an actor.", "person_name:Mark | person_name:Will Smith | occupation:actor"},
	{"My name is Kowalski.", "person_name:Kowalski"},
	{"Hello, I'm Zara Okonkwo and this is Ngozi.", "person_name:Zara Okonkwo | person_name:Ngozi"},
	{"April said she would come in May.", "date:May"},
	// Precision: ordinary sentences without entities.
	{"I will go there and may come back with a few things.", ""},
	{"We had one hundred and twelve people, three of them late.", ""},
	{"Turn left at the second light and park in the back.", ""},
}

func TestDetect(t *testing.T) {
	for _, c := range detectCases {
		if got := detect(t, c.text); got != c.want {
			t.Errorf("%q\n got: %s\nwant: %s", c.text, got, c.want)
		}
	}
}

// TestDetectCoversEveryType checks that each of the 44 entity types is
// found by at least one case of detectCases.
func TestDetectCoversEveryType(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range detectCases {
		for _, e := range (Detector{}).Detect(words(c.text)) {
			seen[e.EntityType] = true
		}
	}
	for _, typ := range transcribe.PIIPolicies() {
		if !seen[typ] {
			t.Errorf("no detectCases example of %s", typ)
		}
	}
	for typ := range seen {
		if !contains(transcribe.PIIPolicies(), typ) {
			t.Errorf("detector emitted unknown type %q", typ)
		}
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func TestDetectTimesAndText(t *testing.T) {
	ws := words("Call (555) 123-4567, Sarah.")
	es := Detector{}.Detect(ws)
	if len(es) != 2 {
		t.Fatalf("got %s", show(es))
	}
	if e := es[0]; e.Start != ws[1].Start || e.End != ws[2].End || e.Text != "(555) 123-4567" {
		t.Errorf("phone entity %+v", e)
	}
	if e := es[1]; e.Text != "Sarah" || e.Start != ws[3].Start || e.End != ws[3].End {
		t.Errorf("name entity %+v", e)
	}
}

func TestDetectSpeakersNotJoined(t *testing.T) {
	ws := words("my name is Sarah Johnson")
	a, b := "A", "B"
	for i := range ws {
		ws[i].Speaker = &a
	}
	ws[4].Speaker = &b
	es := Detector{}.Detect(ws)
	if show(es) != "person_name:Sarah" {
		t.Errorf("a name spans a change of speaker: %s", show(es))
	}
}

func TestDetectEmpty(t *testing.T) {
	if es := (Detector{}).Detect(nil); len(es) != 0 {
		t.Errorf("entities in no words: %v", es)
	}
	ws := []transcribe.Word{{Text: ""}, {Text: "..."}, {Text: "$"}, {Text: "@"}, {Text: "(("}}
	_ = Detector{}.Detect(ws)
}

func TestLuhnAndSSN(t *testing.T) {
	for _, c := range []struct {
		d  string
		ok bool
	}{{"4111111111111111", true}, {"4111111111111112", false}, {"378282246310005", true}, {"79927398713", true}} {
		if luhn(c.d) != c.ok {
			t.Errorf("luhn(%s) = %v", c.d, !c.ok)
		}
	}
	for _, c := range []struct {
		d  string
		ok bool
	}{{"123456789", true}, {"000456789", false}, {"666456789", false}, {"923456789", false}, {"123006789", false}, {"123450000", false}, {"12345678", false}} {
		if ssnValid(c.d) != c.ok {
			t.Errorf("ssnValid(%s) = %v", c.d, !c.ok)
		}
	}
	if !vinValid("1HGCM82633A004352") || vinValid("1HGCM82634A004352") {
		t.Error("VIN check digit")
	}
}

func TestGazetteerEntriesWellFormed(t *testing.T) {
	for k := range gaz {
		if k != strings.TrimSpace(k) || k != strings.ToLower(k) || strings.Contains(k, "_") {
			t.Errorf("bad gazetteer key %q", k)
		}
	}
}

// TestGuessedCasing: capitals format_text guessed are read in lower case
// (the spans are those of the lower-cased words), the entities keep the
// words' text, and the stages set it for a job whose engine wrote no
// casing.
func TestGuessedCasing(t *testing.T) {
	t.Parallel()
	// As format_text cases a recognizer's words: "US" and the name, not
	// the organisations.
	ws := words("the department of justice and the securities and exchange commission said Christopher wray assistant US attorney general")
	lower := make([]transcribe.Word, len(ws))
	for i, w := range ws {
		lower[i] = w
		lower[i].Text = strings.ToLower(w.Text)
	}
	got := Detector{GuessedCasing: true}.Spans(ws)
	if want := (Detector{}).Spans(lower); !reflect.DeepEqual(got, want) {
		t.Errorf("guessed casing: spans %v, want the lower-cased words' %v", got, want)
	}
	if len(got) == 0 {
		t.Fatal("no entity found")
	}
	if got, want := show(Entities(ws, got)), "organization:department of justice | organization:securities and exchange commission | person_name:Christopher wray | occupation:attorney"; got != want {
		t.Errorf("guessed casing: %s, want %s (the entities keep the words' text)", got, want)
	}
	for _, c := range []struct {
		job  *transcribe.Job
		want bool
	}{
		{nil, false},
		{&transcribe.Job{}, true},
		{&transcribe.Job{Written: transcribe.Written{Punctuation: true, Casing: true}}, false},
	} {
		if g := (Detector{}).ForJob(c.job).GuessedCasing; g != c.want {
			t.Errorf("ForJob(%+v).GuessedCasing = %v, want %v", c.job, g, c.want)
		}
	}
}
