package pocketsphinx

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
)

// cmuPhones is the phone set of the en-us acoustic model (without SIL).
var cmuPhones = map[string]bool{}

func init() {
	for _, p := range strings.Fields("AA AE AH AO AW AY B CH D DH EH ER EY F G HH IH IY JH K L M N NG OW OY P R S SH T TH UH UW V W Y Z ZH") {
		cmuPhones[p] = true
	}
}

// checkARPA parses an ARPA model as sphinxbase's reader does and checks
// what that reader does not: the header's counts match the lines, words
// are single tokens, and every n-gram's words are unigrams (the reader
// maps an unknown one to word 0 without a word).
func checkARPA(t *testing.T, arpa string) {
	t.Helper()
	counts := map[int]int{}
	lines := map[int]int{}
	unigrams := map[string]bool{}
	order := 0
	for _, l := range strings.Split(arpa, "\n") {
		var n, c int
		switch {
		case l == "" || l == "\\data\\" || l == "\\end\\":
		case strings.HasPrefix(l, "ngram "):
			if _, err := fmt.Sscanf(l, "ngram %d=%d", &n, &c); err != nil {
				t.Fatalf("bad count line %q", l)
			}
			counts[n] = c
		case strings.HasSuffix(l, "-grams:"):
			if _, err := fmt.Sscanf(l, "\\%d-grams:", &order); err != nil {
				t.Fatalf("bad section %q", l)
			}
		default:
			f := strings.Fields(l)
			if len(f) != order+1 && len(f) != order+2 {
				t.Fatalf("%d-gram line %q has %d fields", order, l, len(f))
			}
			lines[order]++
			for _, w := range f[1 : order+1] {
				if order == 1 {
					if unigrams[w] {
						t.Fatalf("duplicate unigram %q", w)
					}
					unigrams[w] = true
				} else if !unigrams[w] {
					t.Fatalf("%d-gram %q uses %q, not a unigram:\n%s", order, l, w, arpa)
				}
			}
		}
	}
	for n, c := range counts {
		if lines[n] != c {
			t.Fatalf("header says ngram %d=%d, %d lines:\n%s", n, c, lines[n], arpa)
		}
	}
	if len(lines) != len(counts) {
		t.Fatalf("sections %v, counts %v", lines, counts)
	}
}

// FuzzBoostTerms: any term list parses without panicking into lowercase
// words whose generated pronunciations use only the model's phones, and the
// boost language model built from them is consistent even when some words
// cannot be pronounced.
func FuzzBoostTerms(f *testing.F) {
	for _, s := range []string{"Kubernetes", "AWS lambda", "k8s", "don't stop", "Café Noir", "", "''", "x1y2z3", "ŧħïş", "rhythm", "eye",
		"windows 11\nmp4\nk8s\ncovid-19\ngpt 4o", "term0\nterm19", "1080p 2024 007", "ŧħïş word\nword ŧħïş", "ABBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"} {
		f.Add(s)
	}
	dict := map[string]string{"ear": "IH R", "shot": "SH AA T", "word": "W ER D"}
	lookup := func(w string) string { return dict[w] }
	f.Fuzz(func(t *testing.T, list string) {
		p, err := parseBoost(strings.Split(list, "\n"), "high")
		if err != nil {
			t.Fatal(err)
		}
		if p == nil {
			return
		}
		var words []string
		for _, w := range p.words() {
			if w == "" || w != strings.ToLower(w) || strings.ContainsAny(w, " \t\n()<>[]") {
				t.Fatalf("bad word %q from %q", w, list)
			}
			prons := termPronunciations(w, p.acronyms[w], lookup)
			if len(prons) > maxProns {
				t.Fatalf("%d pronunciations of %q", len(prons), w)
			}
			for _, pron := range prons {
				phones := strings.Fields(pron)
				if len(phones) == 0 || len(phones) > maxPronPhones {
					t.Fatalf("pronunciation %q of %q: %d phones", pron, w, len(phones))
				}
				for _, ph := range phones {
					if !cmuPhones[ph] {
						t.Fatalf("pronunciation %q of %q has phone %q outside the model", pron, w, ph)
					}
				}
			}
			if len(prons) > 0 {
				words = append(words, w)
			}
		}
		checkARPA(t, p.arpa(words))
	})
}

// goForwardPath is real speech from Debian's pocketsphinx-testdata, "go
// forward ten meters", 16 kHz 16-bit little-endian raw. A file that is
// there already: fuzzing workers synthesizing audio at once would race.
const goForwardPath = "/usr/share/pocketsphinx/test/data/goforward.raw"

func goForward(t testing.TB) []int16 {
	t.Helper()
	b, err := os.ReadFile(goForwardPath)
	if err != nil {
		t.Fatalf("%v (install the Debian package pocketsphinx-testdata)", err)
	}
	s := make([]int16, len(b)/2)
	for i := range s {
		s[i] = int16(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return s
}

// FuzzBoostRecognize boosts arbitrary word_boost lists (one term per line)
// on the real library: parseBoost refuses a list only with a
// *transcribe.ParamError, and applyBoost, scoring every frequent word after
// every boosted word in the boosted language model (the lookups that
// crashed before the fix) and decoding real speech never fail or crash.
//
// The native part runs only while fuzzing (go test -fuzz; CI does): the
// fuzzing engine runs inputs in worker processes and reports a crash with
// its input, whereas in a plain go test run a crash would kill the test
// binary (TestWordBoostCrashRegression covers the known crashers in child
// processes). The engine also fails any input that takes 10 s, so the
// decoder is made once per worker, outside f.Fuzz, and reused: unlike
// Recognize, which retires a decoder whose dictionary a request extended,
// the added words pile up across inputs, a harsher test of the same code.
func FuzzBoostRecognize(f *testing.F) {
	for _, s := range []string{
		strings.Join(seq("", 1, 20), "\n"),
		strings.Join(seq("term", 0, 19), "\n"),
		"windows 11\nmp4\nk8s\ncovid-19\ngpt 4o\npython 3.12\nh264\nweb3\n5g\nipv6",
		"go forward\nten meters\n10m\nAWS",
	} {
		f.Add(s, uint8(1))
	}
	var d *decoder
	var sc *lmScorer
	var audio []int16
	if fl := flag.Lookup("test.fuzz"); fl != nil && fl.Value.String() != "" {
		cfg := Config{}.withDefaults()
		l, err := loadLib(cfg.LibraryPath)
		if err != nil {
			f.Fatal(err)
		}
		if d, err = newDecoder(l, cfg.files(), nil); err != nil {
			f.Fatal(err)
		}
		f.Cleanup(d.free)
		sc = newLMScorer(f)
		audio = goForward(f)[:SampleRate*3/5] // "go"
	}
	f.Fuzz(func(t *testing.T, list string, param uint8) {
		terms := strings.Split(list, "\n")
		bp := []string{"low", "default", "high", "extreme"}[param%4]
		p, err := parseBoost(terms, bp)
		if err != nil {
			var pe *transcribe.ParamError
			if !errors.As(err, &pe) {
				t.Fatalf("parseBoost error %v is not a *ParamError", err)
			}
			return
		}
		if p == nil {
			return
		}
		checkARPA(t, p.arpa(p.words()))
		if d == nil {
			return
		}
		if err := d.applyBoost(p); err != nil {
			t.Fatalf("applyBoost(%q): %v", terms, err)
		}
		defer d.clearBoost()
		if d.l.psGetLm(d.ps, boostSearch) == 0 {
			return // nothing could be boosted
		}
		sc.scoreAll(t, d, p.words())
		s, err := newSession(d)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.feed(audio); err != nil {
			t.Fatal(err)
		}
		ws, err := s.finish()
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range ws {
			if w.Text == "" || w.End < w.Start {
				t.Fatalf("bad word %+v", w)
			}
		}
	})
}
