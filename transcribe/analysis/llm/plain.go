package llm

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A summary is plain text: the API's summary and chapters are strings
// that clients print or put in a page as text. Models (or a hostile
// server) may answer in HTML or Markdown; plain keeps the words and drops
// the markup.

var (
	// Elements whose content is no text at all.
	htmlCode = regexp.MustCompile(`(?is)<(script|style|head|template|iframe|object|svg|math)\b.*?(?:</(?:script|style|head|template|iframe|object|svg|math)\s*>|\z)`)
	htmlNote = regexp.MustCompile(`(?s)<!--.*?(?:-->|\z)|<!\[CDATA\[.*?(?:\]\]>|\z)|<[!?][^<>]*>`)
	// A list item starts a "- " line; block elements and <br> end a line.
	htmlItem  = regexp.MustCompile(`(?i)<li\b[^<>]*>`)
	htmlBlock = regexp.MustCompile(`(?i)</?(?:p|div|br|ul|ol|li|h[1-6]|tr|table|section|article|blockquote|pre|hr)\b[^<>]*>`)
	htmlTag   = regexp.MustCompile(`</?[A-Za-z][A-Za-z0-9:-]*(?:\s[^<>]*)?/?>`)
	// Markdown: images and links keep their text, code spans their code.
	mdImage = regexp.MustCompile(`!\[([^\]\n]*)\]\([^)\n]*\)`)
	mdLink  = regexp.MustCompile(`\[([^\]\n]*)\]\([^)\n]*\)`)
	mdCode  = regexp.MustCompile("`+")
)

// plain returns s without HTML or Markdown markup, control characters
// (other than newline and tab; a carriage return not before a newline is a
// space) or
// bidirectional overrides: script and style elements, comments and tags
// removed (a list item becomes a "- " line, a block element a line
// break), Markdown images and links replaced by their text, code marks,
// bold and underline marks removed. '#' is kept: it is also what hash
// redaction writes ("#####").
func plain(s string) string {
	s = strings.ToValidUTF8(s, "")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\r':
			return ' '
		case r == '\n' || r == '\t':
			return r
		case unicode.IsControl(r), r == utf8.RuneError,
			r == 0x061C, r == 0x200E, r == 0x200F, r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
			return -1
		}
		return r
	}, s)
	// Again until nothing changes: removing one tag can join the pieces
	// of another ("<scr<b>ipt>").
	for range 8 {
		prev := s
		s = htmlCode.ReplaceAllString(s, "")
		s = htmlNote.ReplaceAllString(s, "")
		s = htmlItem.ReplaceAllString(s, "\n- ")
		s = htmlBlock.ReplaceAllString(s, "\n")
		s = htmlTag.ReplaceAllString(s, "")
		s = mdImage.ReplaceAllString(s, "$1")
		s = mdLink.ReplaceAllString(s, "$1")
		s = mdCode.ReplaceAllString(s, "")
		s = strings.ReplaceAll(s, "**", "")
		s = strings.ReplaceAll(s, "__", "")
		if s == prev {
			break
		}
	}
	// Nested deeper than the passes: no angle brackets, no link syntax.
	if htmlTag.MatchString(s) || htmlNote.MatchString(s) {
		s = strings.NewReplacer("<", "", ">", "").Replace(s)
	}
	if mdLink.MatchString(s) {
		s = strings.ReplaceAll(s, "](", "] (")
	}
	return s
}
