package pii

import "strings"

// Lexicon returns the gazetteers the named-entity tagger (package
// transcribe/pii/ner) reads as features: each lower-case phrase with its
// classes (given, given-ambiguous, surname, title, location,
// organization, nationality). The tagger's models store the lexicon they
// were trained with, so a change here takes effect when they are
// retrained (go run ./internal/cmd/trainner).
func Lexicon() map[string][]string {
	m := map[string][]string{}
	add := func(class, list string) {
		for _, f := range strings.Fields(list) {
			k := strings.ReplaceAll(strings.TrimPrefix(f, "?"), "_", " ")
			for _, c := range m[k] {
				if c == class {
					k = ""
				}
			}
			if k != "" {
				m[k] = append(m[k], class)
			}
		}
	}
	add("given", givenNames)
	add("givenamb", ambiguousNames)
	add("surname", surnames)
	add("title", titles)
	add("location", locations)
	add("organization", organizations)
	add("nationality", nationalities)
	add("nationality", bothLangNat)
	return m
}
