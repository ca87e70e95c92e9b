package pii

import (
	"strings"
	"testing"
)

// taggerCases are issue 23's findings on a recorded interview (a full
// name came back as the first name alone; a country written as an
// acronym was missed) in sentences of that kind, with names outside the
// gazetteers. Each is read as engine text (cased) and as recognizer text
// (lower case).
var taggerCases = []struct{ text, cased, lower string }{
	{"Yesterday Jacinda Ardern met officials from the UAE in Dubai.",
		"person_name:Jacinda Ardern | location:UAE | location:Dubai",
		"person_name:jacinda | location:uae | location:dubai"},
	{"The interview with Ketanji Brown Jackson was recorded in the UK by the BBC.",
		"person_name:Ketanji Brown Jackson | location:UK | organization:BBC",
		"person_name:ketanji brown jackson | location:uk | organization:bbc"},
	{"Emmanuel Macron said the EU would respond, and the U.S. agreed.",
		"person_name:Emmanuel Macron | organization:EU | location:U.S",
		"person_name:emmanuel macron | organization:eu | location:u.s"},
	{"Dr. Miles Dyson works at Cyberdyne Systems in Sunnyvale.",
		"person_name:Miles Dyson | organization:Cyberdyne Systems | location:Sunnyvale",
		"person_name:miles dyson"},
}

func TestTaggerNamesAndAcronyms(t *testing.T) {
	t.Parallel()
	for _, c := range taggerCases {
		if got := detect(t, c.text); got != c.cased {
			t.Errorf("%q\n got: %s\nwant: %s", c.text, got, c.cased)
		}
		l := strings.ToLower(c.text)
		if got := detect(t, l); got != c.lower {
			t.Errorf("%q\n got: %s\nwant: %s", l, got, c.lower)
		}
	}
}

// TestTaggerReconciled checks the gazetteers' word where they are more
// precise than the tagger, and the tagger's where it reads context.
func TestTaggerReconciled(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ text, want string }{
		// An organisation of the gazetteer is no place.
		{"I work at Google in New York.", "organization:Google | location:New York"},
		// A region after a place is part of it; two places stay two.
		{"She moved to Chicago, Illinois last year.", "location:Chicago, Illinois"},
		{"The match is at The Oval, London on Friday.", "location:The Oval | location:London | date:Friday"},
		// Context makes a place name a person, and a month no name.
		{"George Washington crossed the Delaware.", "person_name:George Washington | location:Delaware"},
		{"Sales rose in June and fell in July.", "date:June | date:July"},
		// A name the casing missed in recognizer text.
		{"This is John smith calling.", "person_name:John smith"},
	} {
		if got := detect(t, c.text); got != c.want {
			t.Errorf("%q\n got: %s\nwant: %s", c.text, got, c.want)
		}
	}
}

// TestRulesOnly checks that RulesOnly leaves the tagger out: the rules
// alone know no "Jacinda Ardern".
func TestRulesOnly(t *testing.T) {
	t.Parallel()
	got := show(Detector{RulesOnly: true}.Detect(words("Yesterday Jacinda Ardern met officials in Dubai.")))
	if got != "location:Dubai" {
		t.Errorf("rules only: %s", got)
	}
}
