package ner

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	leadPunct  = "\"'([{“‘¿¡"
	trailPunct = ".,;:!?\"')]}”’…"
)

// SplitPunct splits a transcript word into leading punctuation, core and
// trailing punctuation: "$25," -> "", "$25", ","; "(Sarah)" -> "(",
// "Sarah", ")". Package pii splits words the same way.
func SplitPunct(s string) (lead, core, trail string) {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !strings.ContainsRune(leadPunct, r) {
			break
		}
		i += n
	}
	j := len(s)
	for j > i {
		r, n := utf8.DecodeLastRuneInString(s[i:j])
		if !strings.ContainsRune(trailPunct, r) {
			break
		}
		j -= n
	}
	return s[:i], s[i:j], s[j:]
}

// split is SplitPunct for the tagger: "(Reuters)," -> "(", "Reuters",
// "),". A trailing "." stays on the core when the core has another "."
// ("U.S.") or is a single letter ("J."), as in abbreviations and
// initials.
func split(s string) (lead, core, trail string) {
	lead, core, trail = SplitPunct(s)
	if strings.HasPrefix(trail, ".") && core != "" && (strings.Contains(core, ".") || utf8.RuneCountInString(core) == 1) {
		core += "."
		trail = trail[1:]
	}
	return lead, core, trail
}

// shape maps letters to X/x, digits to d and collapses repeats:
// "McDonald" -> "XxXx", "1996-08-22" -> "d-d-d".
func shape(s string) string {
	var b strings.Builder
	var last rune
	for _, r := range s {
		c := r
		switch {
		case unicode.IsUpper(r):
			c = 'X'
		case unicode.IsLetter(r):
			c = 'x'
		case unicode.IsDigit(r):
			c = 'd'
		}
		if c != last {
			b.WriteRune(c)
			last = c
		}
	}
	return b.String()
}

// token is one word prepared for feature extraction.
type token struct {
	core, lower, shape, lead, trail string
	start                           bool // starts a sentence
	gaz                             []string
}

// prepare splits the words and finds lexicon matches, longest first.
func (m *Model) prepare(words []string, starts []bool) []token {
	ts := make([]token, len(words))
	for i, w := range words {
		if !m.Cased {
			w = strings.ToLower(w)
		}
		lead, core, trail := split(w)
		lower := strings.ToLower(core)
		if strings.HasSuffix(lower, "'s") && len(lower) > 2 {
			lower = lower[:len(lower)-2]
		}
		ts[i] = token{core: core, lower: lower, shape: shape(core), lead: lead, trail: trail}
		if starts != nil {
			ts[i].start = starts[i]
		} else if i == 0 {
			ts[i].start = true
		} else {
			ts[i].start = strings.ContainsAny(ts[i-1].trail, ".?!") && !strings.HasSuffix(ts[i-1].core, ".")
		}
	}
	for i := 0; i < len(ts); {
		n, classes := m.lexMatch(ts, i)
		if n == 0 {
			i++
			continue
		}
		for q := i; q < i+n; q++ {
			pos := "I"
			if q == i {
				pos = "B"
			}
			for _, c := range classes {
				ts[q].gaz = append(ts[q].gaz, c+pos)
			}
		}
		i += n
	}
	return ts
}

// lexMatch returns the length and classes of the longest lexicon entry
// starting at i (entries do not run over punctuation).
func (m *Model) lexMatch(ts []token, i int) (int, []string) {
	best, key := 0, ""
	var classes []string
	for n := 1; n <= m.lexMax && i+n <= len(ts); n++ {
		if n > 1 {
			if ts[i+n-2].trail != "" {
				break
			}
			key += " "
		}
		key += ts[i+n-1].lower
		if cs, ok := m.Lexicon[key]; ok {
			best, classes = n, cs
		}
	}
	return best, classes
}

// features returns the feature strings of every word.
func (m *Model) features(ts []token) [][]string {
	// Document evidence: a word seen capitalised inside a sentence
	// elsewhere is probably a name, wherever it is ("BRUSSELS" in a
	// heading, a name at the start of a sentence).
	capIn := map[string]bool{}
	if m.Cased {
		for _, t := range ts {
			if !t.start && t.shape != "" && t.shape[0] == 'X' && strings.Contains(t.shape, "x") {
				capIn[t.lower] = true
			}
		}
	}
	at := func(i int) *token {
		if i < 0 || i >= len(ts) {
			return nil
		}
		return &ts[i]
	}
	word := func(i int) string {
		if t := at(i); t != nil {
			return t.lower
		}
		if i < 0 {
			return "<s>"
		}
		return "</s>"
	}
	out := make([][]string, len(ts))
	for i, t := range ts {
		f := make([]string, 0, 48)
		add := func(parts ...string) { f = append(f, strings.Join(parts, "\x1f")) }
		add("b")
		add("w", t.lower)
		l := []rune(t.lower)
		for n := 1; n <= 4 && n <= len(l); n++ {
			add("p", string(l[:n]))
			add("s", string(l[len(l)-n:]))
		}
		add("w-1", word(i-1))
		add("w+1", word(i+1))
		add("w-2", word(i-2))
		add("w+2", word(i+2))
		add("w-1w", word(i-1), t.lower)
		add("ww+1", t.lower, word(i+1))
		add("tr", t.trail)
		add("ld", t.lead)
		if p := at(i - 1); p != nil {
			add("tr-1", p.trail)
		}
		if strings.ContainsAny(t.core, "0123456789") {
			add("digit")
		}
		if strings.Contains(t.core, "-") {
			add("hyph")
		}
		add("len", string(rune('0'+min(len(l), 9))))
		for _, g := range t.gaz {
			add("g", g)
		}
		for _, d := range []int{-1, 1} {
			if n := at(i + d); n != nil {
				for _, g := range n.gaz {
					add("g"+string(rune('1'+d)), g)
				}
			}
		}
		if m.Cased {
			add("W", t.core)
			add("sh", t.shape)
			st := "0"
			if t.start {
				st = "1"
			}
			add("st-sh", st, t.shape)
			if capIn[t.lower] {
				add("capin")
			}
			sh := func(i int) string {
				if t := at(i); t != nil {
					return t.shape
				}
				return "_"
			}
			add("sh-1", sh(i-1))
			add("sh+1", sh(i+1))
			add("sh-1sh", sh(i-1), t.shape)
			add("shsh+1", t.shape, sh(i+1))
			add("sh-1shsh+1", sh(i-1), t.shape, sh(i+1))
		} else if t.start {
			add("start")
		}
		out[i] = f
	}
	return out
}
