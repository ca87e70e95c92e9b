package summary

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/pii"
)

// A Generator's answer is untrusted text from another server: the stages
// check it before storing it (checkGenerated, checkChapter) and redact it
// like the transcript (redactGenerated).

// answerLimit bounds a generated summary of one type: at most lines
// lines (bullets) of at most lineRunes characters, and at most runes
// characters in all. The prompt asks for 3 to 7 bullets, 5 to 12 verbose
// bullets, a gist of at most six words, one sentence or one paragraph; the
// limits leave room for a model that writes a little more, not for one
// that writes pages.
type answerLimit struct{ lines, lineRunes, runes int }

var answerLimits = map[transcribe.SummaryType]answerLimit{
	transcribe.SummaryBullets:        {lines: 10, lineRunes: 400, runes: 3000},
	transcribe.SummaryBulletsVerbose: {lines: 16, lineRunes: 600, runes: 6000},
	transcribe.SummaryGist:           {lines: 1, lineRunes: 100, runes: 100},
	transcribe.SummaryHeadline:       {lines: 1, lineRunes: 300, runes: 300},
	transcribe.SummaryParagraph:      {lines: 1, lineRunes: 2000, runes: 2000},
}

// Limits of a generated chapter's texts, in characters.
const (
	maxChapterGistRunes     = 100
	maxChapterHeadlineRunes = 300
	maxChapterSummaryRunes  = 1500
	// answerSlack is how much longer than the text it summarizes an answer
	// may be (a headline of a two-word transcript is still a sentence).
	answerSlack = 200
	// maxGeneratedGistWords is the longest gist accepted (the prompt asks
	// for at most six words).
	maxGeneratedGistWords = 10
)

var (
	// markup is what a plain-text answer never holds: HTML or XML tags and
	// comments, Markdown links and images, code spans and fences, bold and
	// underline marks. "[PERSON_NAME]" (a redaction) is no link: a link's
	// "(" follows its "]" directly.
	markup = regexp.MustCompile("<[A-Za-z/!?][^<>]*>|\\]\\([^)]*\\)|`|\\*\\*|__")
)

// unsafeRune reports a character that a plain-text answer never holds:
// control characters other than newline and tab (a terminal escape, a
// carriage return that overwrites a line) and the bidirectional overrides
// and isolates that reorder what a reader sees.
func unsafeRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case unicode.IsControl(r), r == utf8.RuneError:
		return true
	case r == 0x061C, r == 0x200E, r == 0x200F, r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// checkText refuses text that is not plain: markup or unsafe characters.
func checkText(what, s string) error {
	if m := markup.FindString(s); m != "" {
		return fmt.Errorf("%w: %s holds markup %q", ErrGenerated, what, m)
	}
	if i := strings.IndexFunc(s, unsafeRune); i >= 0 || !utf8.ValidString(s) {
		return fmt.Errorf("%w: %s holds a control or bidi character", ErrGenerated, what)
	}
	return nil
}

// checkGenerated checks and tidies a Generator's summary of a text of
// inRunes characters: not empty, plain text, bullets as "- " lines, no
// more lines or characters than answerLimits allows for the type, and no
// longer than the text plus answerSlack.
func checkGenerated(typ transcribe.SummaryType, s string, inRunes int) (string, error) {
	lim, ok := answerLimits[typ]
	if !ok {
		lim = answerLimits[transcribe.SummaryBullets]
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return "", fmt.Errorf("%w: empty", ErrGenerated)
	}
	if err := checkText(string(typ), s); err != nil {
		return "", err
	}
	var lines []string
	if typ == transcribe.SummaryBullets || typ == transcribe.SummaryBulletsVerbose {
		for _, l := range strings.Split(s, "\n") {
			if l = strings.TrimSpace(l); strings.HasPrefix(l, "- ") && len(l) > 2 {
				lines = append(lines, l)
			}
		}
		if len(lines) == 0 {
			return "", fmt.Errorf("%w: no \"- \" bullet lines", ErrGenerated)
		}
	} else {
		lines = []string{strings.Join(strings.Fields(s), " ")}
		if typ == transcribe.SummaryGist && len(strings.Fields(s)) > maxGeneratedGistWords {
			return "", fmt.Errorf("%w: a gist of %d words", ErrGenerated, len(strings.Fields(s)))
		}
	}
	if len(lines) > lim.lines {
		return "", fmt.Errorf("%w: %d lines for %s (at most %d)", ErrGenerated, len(lines), typ, lim.lines)
	}
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > lim.lineRunes {
			return "", fmt.Errorf("%w: a line of %d characters for %s (at most %d)", ErrGenerated, n, typ, lim.lineRunes)
		}
	}
	s = strings.Join(lines, "\n")
	if n, most := utf8.RuneCountInString(s), min(lim.runes, inRunes+answerSlack); n > most {
		return "", fmt.Errorf("%w: %d characters for %s of %d characters (at most %d)", ErrGenerated, n, typ, inRunes, most)
	}
	return s, nil
}

// checkChapter checks a generated chapter of a text of inRunes
// characters: three plain one-line texts, none empty, within their
// limits.
func checkChapter(c ChapterText, inRunes int) (ChapterText, error) {
	one := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	c.Gist, c.Headline, c.Summary = one(c.Gist), one(c.Headline), one(c.Summary)
	if c.Gist == "" || c.Headline == "" || c.Summary == "" {
		return c, fmt.Errorf("%w: chapter with an empty gist, headline or summary", ErrGenerated)
	}
	for _, f := range []struct {
		what  string
		s     string
		limit int
	}{
		{"chapter gist", c.Gist, maxChapterGistRunes},
		{"chapter headline", c.Headline, min(maxChapterHeadlineRunes, inRunes+answerSlack)},
		{"chapter summary", c.Summary, min(maxChapterSummaryRunes, inRunes+answerSlack)},
	} {
		if err := checkText(f.what, f.s); err != nil {
			return c, err
		}
		if n := utf8.RuneCountInString(f.s); n > f.limit {
			return c, fmt.Errorf("%w: %s of %d characters (at most %d)", ErrGenerated, f.what, n, f.limit)
		}
	}
	if n := len(strings.Fields(c.Gist)); n > maxGeneratedGistWords {
		return c, fmt.Errorf("%w: chapter gist of %d words", ErrGenerated, n)
	}
	return c, nil
}

// redactGenerated redacts a generated text as the transcript's words were
// when redact_pii is on: the same detector (package pii), the
// transcript's redact_pii_policies and redact_pii_sub. The Generator only
// ever saw redacted text, but a model can still write a name, number or
// address of its own (made up, or rebuilt from context); it is redacted
// before it is stored. Each line is redacted alone, keeping its "- "
// bullet mark.
func redactGenerated(t *transcribe.Transcript, s string) string {
	if !transcribe.IsTrue(t.RedactPII) {
		return s
	}
	sub := pii.SubHash
	if t.RedactPIISub != nil {
		sub = string(*t.RedactPIISub)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		mark := ""
		if rest, ok := strings.CutPrefix(l, "- "); ok {
			mark, l = "- ", rest
		}
		var ws []transcribe.Word
		for k, f := range strings.Fields(l) {
			ws = append(ws, transcribe.Word{Text: f, Start: int64(k) * 400, End: int64(k)*400 + 300, Confidence: 1})
		}
		ws, _ = pii.Redact(ws, pii.Detector{}.Spans(ws), t.RedactPIIPolicies, sub)
		parts := make([]string, len(ws))
		for k, w := range ws {
			parts[k] = w.Text
		}
		lines[i] = mark + strings.Join(parts, " ")
	}
	return strings.Join(lines, "\n")
}
