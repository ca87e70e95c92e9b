package textfmt

import "testing"

func TestProfanityFilter(t *testing.T) {
	f := ProfanityFilter{}
	cases := map[string]string{
		"shit":         "s***",
		"Shit.":        "S***.",
		"fucking,":     "f******,",
		"bullshit":     "b*******",
		"shitty":       "s*****",
		"asshole":      "a******",
		"motherfucker": "m***********",
		"assess":       "assess",
		"class":        "class",
		"passion":      "passion",
		"assume":       "assume",
		"butter":       "butter",
		"cocktail":     "cocktail",
		"Scunthorpe":   "Scunthorpe",
		"analysis":     "analysis",
		"therapist":    "therapist",
		"muffin":       "muffin",
		"hello":        "hello",
		"$25":          "$25",
		"":             "",
	}
	for in, want := range cases {
		if got := f.Censor(in); got != want {
			t.Errorf("Censor(%q) = %q, want %q", in, got, want)
		}
	}
	g := ProfanityFilter{Extra: []string{"frak"}, Allow: []string{"crap"}}
	if g.Censor("frakking") != "f*******" || g.Censor("crap") != "crap" {
		t.Errorf("Extra/Allow: %q %q", g.Censor("frakking"), g.Censor("crap"))
	}
}
