package pocketsphinx

import (
	"strings"
	"testing"
)

// cmuPhones is the phone set of the en-us acoustic model (without SIL).
var cmuPhones = map[string]bool{}

func init() {
	for _, p := range strings.Fields("AA AE AH AO AW AY B CH D DH EH ER EY F G HH IH IY JH K L M N NG OW OY P R S SH T TH UH UW V W Y Z ZH") {
		cmuPhones[p] = true
	}
}

// FuzzBoostTerms: any term list parses without panicking into lowercase
// words whose generated pronunciations use only the model's phones.
func FuzzBoostTerms(f *testing.F) {
	for _, s := range []string{"Kubernetes", "AWS lambda", "k8s", "don't stop", "Café Noir", "", "''", "x1y2z3", "ŧħïş", "rhythm", "eye"} {
		f.Add(s)
	}
	dict := map[string]string{"ear": "IH R", "shot": "SH AA T"}
	lookup := func(w string) string { return dict[w] }
	f.Fuzz(func(t *testing.T, term string) {
		p, err := parseBoost([]string{term}, "high")
		if err != nil {
			t.Fatal(err)
		}
		if p == nil {
			return
		}
		for _, w := range p.words() {
			if w == "" || w != strings.ToLower(w) || strings.ContainsAny(w, " \t\n") {
				t.Fatalf("bad word %q from %q", w, term)
			}
			pron := pronounce(w, lookup)
			if p.acronyms[w] {
				if s := spell(w); s != "" {
					pron = s
				}
			}
			for _, ph := range strings.Fields(pron) {
				if !cmuPhones[ph] {
					t.Fatalf("pronunciation %q of %q has phone %q outside the model", pron, w, ph)
				}
			}
		}
		_ = p.arpa(p.words())
	})
}
