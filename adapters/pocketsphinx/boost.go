package pocketsphinx

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"sort"
	"strings"
	"unicode"
	"unsafe"

	"github.com/earshot-dev/earshot/transcribe"
)

// Interpolation weights of the boost language model per boost_param. The
// boost model gives each term a unigram probability of about 1/(terms+1),
// so even the low weight lifts a rare word by orders of magnitude.
var boostWeights = map[string]float32{
	"low":     0.01,
	"default": 0.03,
	"high":    0.1,
}

// boostPlan is a parsed word boost: phrases of lowercase words.
type boostPlan struct {
	phrases [][]string
	weight  float32
	// acronyms are words given in capitals ("AWS"): when missing from the
	// dictionary they are spelled letter by letter.
	acronyms map[string]bool
}

// maxBoostTerms bounds the terms of one request (the spec allows 1000
// word_boost entries plus keyterms).
const maxBoostTerms = 2000

// parseBoost normalises terms to lowercase words (letters, digits and
// apostrophes) and picks the weight. No usable terms gives nil.
func parseBoost(terms []string, param string) (*boostPlan, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	if param == "" {
		param = "default"
	}
	w, ok := boostWeights[param]
	if !ok {
		return nil, &transcribe.ParamError{Field: "boost_param", Reason: fmt.Sprintf("must be low, default or high, got %q", param)}
	}
	if len(terms) > maxBoostTerms {
		return nil, &transcribe.ParamError{Field: "word_boost", Reason: fmt.Sprintf("at most %d terms", maxBoostTerms)}
	}
	p := &boostPlan{weight: w, acronyms: map[string]bool{}}
	seen := map[string]bool{}
	for _, t := range terms {
		t = foldASCII(t)
		for _, f := range strings.Fields(t) {
			if len(f) >= 2 && f == strings.ToUpper(f) && strings.IndexFunc(f, unicode.IsLetter) >= 0 {
				for _, w := range splitWords(f) {
					p.acronyms[w] = true
				}
			}
		}
		words := splitWords(t)
		if len(words) == 0 {
			continue
		}
		k := strings.Join(words, " ")
		if seen[k] {
			continue
		}
		seen[k] = true
		p.phrases = append(p.phrases, words)
	}
	if len(p.phrases) == 0 {
		return nil, nil
	}
	return p, nil
}

// asciiFold maps accented Latin letters to their ASCII equivalents.
var asciiFold = strings.NewReplacer(
	"à", "a", "á", "a", "â", "a", "ã", "a", "ä", "a", "å", "a", "æ", "ae",
	"ç", "c", "è", "e", "é", "e", "ê", "e", "ë", "e", "ì", "i", "í", "i",
	"î", "i", "ï", "i", "ñ", "n", "ò", "o", "ó", "o", "ô", "o", "õ", "o",
	"ö", "o", "ø", "o", "ù", "u", "ú", "u", "û", "u", "ü", "u", "ý", "y",
	"ÿ", "y", "ß", "ss", "œ", "oe",
	"À", "A", "Á", "A", "Â", "A", "Ã", "A", "Ä", "A", "Å", "A", "Æ", "AE",
	"Ç", "C", "È", "E", "É", "E", "Ê", "E", "Ë", "E", "Ì", "I", "Í", "I",
	"Î", "I", "Ï", "I", "Ñ", "N", "Ò", "O", "Ó", "O", "Ô", "O", "Õ", "O",
	"Ö", "O", "Ø", "O", "Ù", "U", "Ú", "U", "Û", "U", "Ü", "U", "Ý", "Y",
	"’", "'", "‘", "'",
)

func foldASCII(s string) string { return asciiFold.Replace(s) }

// splitWords lowercases s and splits it into words of letters, digits and
// inner apostrophes; hyphens and other punctuation separate words.
func splitWords(s string) []string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'')
	})
	var out []string
	for _, w := range f {
		w = strings.Trim(w, "'")
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

// words returns the distinct words of all phrases, sorted.
func (p *boostPlan) words() []string {
	set := map[string]bool{}
	for _, ph := range p.phrases {
		for _, w := range ph {
			set[w] = true
		}
	}
	out := make([]string, 0, len(set))
	for w := range set {
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}

// arpa renders the boost language model over words: a unigram for every
// word (equal probability) and a bigram for each pair of neighbours inside
// a phrase, so multi-word terms are favoured as a whole. Pairs with a word
// outside words (one that could not be pronounced) are left out: the
// library's ARPA reader silently maps an unknown word of an n-gram to word
// 0. The header's counts match the lines written.
func (p *boostPlan) arpa(words []string) string {
	type pair struct{ a, b string }
	known := make(map[string]bool, len(words))
	for _, w := range words {
		known[w] = true
	}
	var bigrams []pair
	seen := map[pair]bool{}
	for _, ph := range p.phrases {
		for i := 0; i+1 < len(ph); i++ {
			bg := pair{ph[i], ph[i+1]}
			if known[bg.a] && known[bg.b] && !seen[bg] {
				seen[bg] = true
				bigrams = append(bigrams, bg)
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\\data\\\nngram 1=%d\n", len(words)+2)
	if len(bigrams) > 0 {
		fmt.Fprintf(&b, "ngram 2=%d\n", len(bigrams))
	}
	n := float64(len(words) + 1)
	lp := -math.Log10(n)
	b.WriteString("\n\\1-grams:\n")
	fmt.Fprintf(&b, "%.4f </s>\n", lp)
	fmt.Fprintf(&b, "-99.0000 <s> 0.0000\n")
	for _, w := range words {
		fmt.Fprintf(&b, "%.4f %s 0.0000\n", lp, w)
	}
	if len(bigrams) > 0 {
		b.WriteString("\n\\2-grams:\n")
		for _, bg := range bigrams {
			fmt.Fprintf(&b, "-0.3010 %s %s\n", bg.a, bg.b)
		}
	}
	b.WriteString("\n\\end\\\n")
	return b.String()
}

// applyBoost biases d's search toward the plan's terms:
//
//  1. words missing from the dictionary are added with ps_add_word (with
//     up to two alternate pronunciations, "11(2)"), after the default
//     search is removed so that no n-gram search exists while they are
//     added (see "Word boost" in doc.go: adding them to the base model's
//     trie is what crashed); the decoder is then retired after the
//     request;
//  2. a small ARPA model of the terms is read and interpolated with the
//     base model (ngram_model_set_init, weights 1-w and w);
//  3. the set becomes a temporary search that clearBoost removes,
//     restoring the base model on a decoder that was not extended.
func (d *decoder) applyBoost(p *boostPlan) error {
	all := p.words()
	type entry struct {
		word  string
		prons []string
	}
	var add []entry
	words := make([]string, 0, len(all))
	for _, w := range all {
		if d.lookup(w) != "" {
			words = append(words, w)
		} else if prons := d.spareProns(w); len(prons) > 0 {
			// A cmudict entry left out of the decoder's dictionary (the
			// language model does not know it): added with its own
			// pronunciations.
			add = append(add, entry{w, prons[:min(len(prons), maxProns)]})
		} else if prons := d.pronounceTerm(w, p.acronyms[w]); len(prons) > 0 {
			add = append(add, entry{w, prons})
		}
	}
	if len(add) > 0 {
		// ps_add_word puts the word into the language model of every
		// n-gram search (pocketsphinx.c: ngram_model_add_word on the
		// search's set, which passes it on to the base trie model). The
		// trie's bit-packed n-gram arrays only hold word ids up to the
		// vocabulary it was read with, and its lookups run off their
		// range for a larger id: SIGSEGV in ps_process_raw. With no
		// n-gram search in the decoder the words only reach the
		// dictionary; the boosted search below is created afterwards
		// and finds them in the boost model alone. The decoder is
		// retired after the request (release), so it never needs its
		// default search again.
		d.extended = true
		d.l.psUnsetSearch(d.ps, boostSearch)
		d.l.psUnsetSearch(d.ps, defaultSearch)
		for _, e := range add {
			if d.l.psAddWord(d.ps, e.word, e.prons[0], 0) < 0 {
				continue
			}
			words = append(words, e.word)
			for i, pr := range e.prons[1:] {
				d.l.psAddWord(d.ps, fmt.Sprintf("%s(%d)", e.word, i+2), pr, 0)
			}
		}
	}
	if len(words) == 0 {
		if d.extended {
			return d.restoreDefault()
		}
		return nil
	}
	sort.Strings(words)
	f, err := os.CreateTemp("", "earshot-boost-*.arpa")
	if err != nil {
		return fmt.Errorf("pocketsphinx: word boost: %w", err)
	}
	path := f.Name()
	defer os.Remove(path)
	_, err = f.WriteString(p.arpa(words))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("pocketsphinx: word boost: %w", err)
	}
	blm := d.l.ngramModelRead(d.cfg, path, ngramARPA, d.lmath)
	if blm == 0 {
		return fmt.Errorf("pocketsphinx: word boost: cannot read boost language model")
	}
	models := [2]uintptr{d.lm, blm}
	n1, n2 := append([]byte("base"), 0), append([]byte("boost"), 0)
	// names is Go memory holding Go pointers handed to C: pin what it
	// points to (the cgo pointer rules purego follows).
	var pin runtime.Pinner
	pin.Pin(&n1[0])
	pin.Pin(&n2[0])
	names := [2]*byte{&n1[0], &n2[0]}
	weights := [2]float32{1 - p.weight, p.weight}
	set := d.l.ngramModelSetInit(d.cfg, unsafe.Pointer(&models[0]), unsafe.Pointer(&names[0]), unsafe.Pointer(&weights[0]), 2)
	runtime.KeepAlive(&models)
	runtime.KeepAlive(&names)
	runtime.KeepAlive(&weights)
	pin.Unpin()
	if set == 0 {
		d.l.ngramModelFree(blm)
		return fmt.Errorf("pocketsphinx: word boost: cannot build interpolated language model")
	}
	// Debian's sphinxbase retains the submodels in ngram_model_set_init
	// (older releases took ownership instead): either way the set must end
	// up holding one reference to each, released when it is freed.
	if d.l.refs(blm) > 1 {
		d.l.ngramModelFree(blm)
	} else {
		d.l.ngramModelRetain(d.lm)
	}
	// The search takes its own reference; the set owns the two models.
	rc := d.l.psSetLm(d.ps, boostSearch, set)
	d.l.ngramModelFree(set)
	if rc != 0 {
		return fmt.Errorf("pocketsphinx: word boost: cannot create boosted search")
	}
	if d.l.psSetSearch(d.ps, boostSearch) != 0 {
		d.l.psUnsetSearch(d.ps, boostSearch)
		return fmt.Errorf("pocketsphinx: word boost: cannot activate boosted search")
	}
	return nil
}

// clearBoost restores the base search and frees the boosted one.
func (d *decoder) clearBoost() {
	d.l.psSetSearch(d.ps, defaultSearch)
	if d.l.psUnsetSearch(d.ps, boostSearch) == 0 && d.l.mallocTrim != nil {
		d.l.mallocTrim(0)
	}
}

// restoreDefault installs the base model as the default search again,
// after applyBoost removed it and then found nothing to boost.
func (d *decoder) restoreDefault() error {
	if d.l.psGetLm(d.ps, defaultSearch) == 0 && d.l.psSetLm(d.ps, defaultSearch, d.lm) != 0 {
		return fmt.Errorf("pocketsphinx: word boost: cannot restore the base language model")
	}
	if d.l.psSetSearch(d.ps, defaultSearch) != 0 {
		return fmt.Errorf("pocketsphinx: word boost: cannot restore the base search")
	}
	return nil
}

// lookup returns the dictionary pronunciation of w, or "".
func (d *decoder) lookup(w string) string {
	return d.l.cString(d.l.psLookupWord(d.ps, w))
}

// spareProns returns the pronunciations of w among the dictionary entries
// left out of d's dictionary (dict.go), or nil.
func (d *decoder) spareProns(w string) []string {
	ix, err := loadSpare(d.spare)
	if err != nil {
		return nil
	}
	return ix.prons(w)
}

// lookupAny is lookup in the whole model dictionary: d's own, then the
// entries left out of it.
func (d *decoder) lookupAny(w string) string {
	if p := d.lookup(w); p != "" {
		return p
	}
	if ps := d.spareProns(w); len(ps) > 0 {
		return ps[0]
	}
	return ""
}
