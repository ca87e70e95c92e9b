package punctmodel

import (
	"regexp"
	"strings"
	"unicode"
)

// Token is one word of punctuated, cased text: its spoken form (Word,
// lower case, as a recognizer writes it), its written form (Form, with the
// writer's capitals) and the mark after it (Mark).
type Token struct {
	Word string
	Form string
	Mark Mark
	// Start reports that the token begins a sentence in the text (the first
	// word of a paragraph, after a sentence end or an opening quote), where
	// its capital says nothing about the word itself.
	Start bool
}

// abbreviations end with a period that does not end a sentence.
var abbreviations = map[string]bool{"mr": true, "mrs": true, "ms": true, "dr": true, "st": true, "messrs": true,
	"mme": true, "mlle": true, "jr": true, "sr": true, "prof": true, "rev": true, "capt": true, "col": true,
	"gen": true, "lt": true, "sgt": true, "vs": true, "etc": false, "no": false}

// Gutenberg returns the body of a Project Gutenberg e-text: the lines
// between its "*** START OF" and "*** END OF" markers (all of it when they
// are absent), with carriage returns removed.
func Gutenberg(s string) string {
	s = strings.ReplaceAll(s, "\r", "")
	if i := strings.Index(s, "*** START OF"); i >= 0 {
		if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
			s = s[i+j+1:]
		}
	}
	if i := strings.Index(s, "*** END OF"); i >= 0 {
		s = s[:i]
	} else if i := strings.Index(s, "End of the Project Gutenberg"); i >= 0 {
		s = s[:i]
	} else if i := strings.Index(s, "End of Project Gutenberg"); i >= 0 {
		s = s[:i]
	}
	return s
}

// Paragraphs splits text at blank lines and joins each paragraph's lines.
// Paragraphs that are not prose are dropped: headings (no lower-case
// letter), lines without a sentence-final mark at the end, and paragraphs
// of fewer than three words.
func Paragraphs(text string) []Paragraph {
	var out []Paragraph
	for _, p := range strings.Split(strings.ReplaceAll(text, "\r", ""), "\n\n") {
		p = strings.TrimSpace(p)
		speaker := ""
		if m := speakerLabel.FindStringSubmatch(p); m != nil {
			name := m[1] + m[2]
			if !abbreviations[strings.ToLower(name)] {
				speaker, p = strings.ToLower(name), p[len(strings.TrimSuffix(m[0], "[")):]
			}
		}
		p = stageDirection.ReplaceAllString(p, " ")
		p = strings.Join(strings.Fields(p), " ")
		if len(strings.Fields(p)) < 3 || !strings.ContainsFunc(p, unicode.IsLower) {
			continue
		}
		end := strings.TrimRight(p, "\"'”’)_]*")
		if end == "" || !strings.ContainsRune(".?!", rune(end[len(end)-1])) {
			continue
		}
		if strings.ContainsAny(p, "[]{}<>|#@=") || strings.Contains(p, "http") {
			continue
		}
		out = append(out, Paragraph{Speaker: speaker, Text: p})
	}
	return out
}

// Paragraph is one paragraph of prose; in a play, Speaker names who says
// it (the label before it, removed from Text).
type Paragraph struct {
	Speaker string
	Text    string
}

var (
	// speakerLabel is a play's "Algernon.  " or "HIGGINS. " before a
	// speech (a capitalised name of up to three words, a period, then two
	// spaces or a stage direction, or an all-capitals name).
	speakerLabel = regexp.MustCompile(`^([A-Z][A-Za-z'-]+(?: [A-Z][A-Za-z'-]+){0,2})\.(?:  +|\s*\[)|^([A-Z][A-Z'-]+(?: [A-Z][A-Z'-]+){0,2})\.\s`)
	// stageDirection is a play's "[Hands them on a salver.]".
	stageDirection = regexp.MustCompile(`\[[^\]]*\]`)
)

var quoteFold = strings.NewReplacer("“", `"`, "”", `"`, "‘", "'", "’", "'", "—", " -- ", "–", " -- ", "_", "", "*", "")

// Tokenize splits one paragraph of written text into tokens. Hyphenated
// words become separate words ("ill-disposed" is spoken "ill disposed");
// numbers become the word "<num>". The mark after each word is the
// strongest of the marks before the next word: "?" (a question), "." or
// "!" (a sentence end, unless the word is an abbreviation such as "Mr." or
// the next word goes on in lower case, as in `"Oh!" said she`, which counts
// as a comma), "," ";" ":" "--" "(" ")" (a comma). The paragraph's last
// word ends a sentence.
func Tokenize(paragraph string) []Token {
	s := quoteFold.Replace(paragraph)
	var toks []Token
	var between strings.Builder // marks since the last word
	start := true
	flush := func() {
		if len(toks) == 0 {
			between.Reset()
			return
		}
		b := between.String()
		between.Reset()
		last := &toks[len(toks)-1]
		switch {
		case strings.ContainsRune(b, '?'):
			last.Mark = Question
		case strings.ContainsAny(b, "!") || (strings.ContainsRune(b, '.') && !abbreviations[last.Word]):
			last.Mark = Period
		case strings.ContainsAny(b, ",;:()") || strings.Contains(b, "--"):
			last.Mark = Comma
		}
		if strings.ContainsRune(b, '"') && last.Mark == None {
			// A quotation opening or closing inside a sentence ("he said
			// "yes"") is heard as a short break.
			last.Mark = Comma
		}
		if last.Mark == Period || last.Mark == Question {
			start = true
		}
		if strings.ContainsRune(b, '"') && last.Mark != None {
			start = true // an opening quote after a mark starts a capitalised phrase
		}
	}
	rs := []rune(s)
	for i := 0; i < len(rs); {
		r := rs[i]
		if !isWordRune(r) {
			if r == '-' && i > 0 && i+1 < len(rs) && isWordRune(rs[i-1]) && isWordRune(rs[i+1]) {
				i++ // a hyphen inside a word: two spoken words, no mark
				continue
			}
			between.WriteRune(r)
			i++
			continue
		}
		j := i
		for j < len(rs) && (isWordRune(rs[j]) || (j > i && j+1 < len(rs) && inWord(rs[j-1], rs[j], rs[j+1]))) {
			j++
		}
		form := string(rs[i:j])
		flush()
		if len(toks) > 0 {
			prev := &toks[len(toks)-1]
			// "Oh!" said she: a sentence mark followed by a lower-case word
			// is a break inside the sentence.
			if (prev.Mark == Period || prev.Mark == Question) && unicode.IsLower(rs[i]) {
				prev.Mark = Comma
				start = false
			}
		}
		word := strings.ToLower(form)
		if strings.ContainsFunc(word, unicode.IsDigit) {
			word, form = NumberWord, NumberWord
		}
		toks = append(toks, Token{Word: word, Form: form, Start: start})
		start = false
		i = j
	}
	flush()
	if n := len(toks); n > 0 && toks[n-1].Mark != Question {
		toks[n-1].Mark = Period
	}
	return toks
}

// NumberWord stands for any word holding a digit ("$25", "3:30", "1811").
const NumberWord = "<num>"

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// inWord reports whether r, between prev and next, belongs to the word:
// an apostrophe between letters ("don't"), a separator between digits
// ("3,000", "2.5").
func inWord(prev, r, next rune) bool {
	switch r {
	case '\'':
		return isWordRune(prev) && isWordRune(next)
	case ',', '.', ':':
		return unicode.IsDigit(prev) && unicode.IsDigit(next)
	}
	return false
}
