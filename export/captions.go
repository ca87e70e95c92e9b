package export

import (
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/earshot-dev/earshot/transcribe"
)

// Default caption segmentation, used when chars_per_caption is 0 (or
// negative). The values follow common broadcast subtitle guidelines: at most
// two lines of about 40 characters, a cue on screen for at most 7 seconds, a
// new cue at every sentence end.
const (
	// DefaultLineChars is the most characters on one caption line.
	DefaultLineChars = 40
	// DefaultMaxLines is the most lines in one caption.
	DefaultMaxLines = 2
	// DefaultMaxCueMillis is the longest a caption may span, first word's
	// start to last word's end, unless it holds a single word.
	DefaultMaxCueMillis = 7000
)

// CaptionPauseMillis is the silence between two words that always starts a
// new caption, in both the default and the chars_per_caption segmentation: a
// caption is not kept on screen through a long silence.
const CaptionPauseMillis = 1500

// cue is one caption: the words it shows, broken into lines.
type cue struct {
	start, end int64
	lines      [][]string
}

// captionRules drive the segmenter.
type captionRules struct {
	lineChars     int   // most runes on one line
	maxLines      int   // most lines in one cue
	sentenceBreak bool  // a word ending a sentence ends the cue
	maxCueMillis  int64 // longest cue span; 0 means no limit
	pauseMillis   int64 // a gap this long starts a new cue
}

func rulesFor(charsPerCaption int) captionRules {
	if charsPerCaption > 0 {
		return captionRules{lineChars: charsPerCaption, maxLines: 1, pauseMillis: CaptionPauseMillis}
	}
	return captionRules{
		lineChars:     DefaultLineChars,
		maxLines:      DefaultMaxLines,
		sentenceBreak: true,
		maxCueMillis:  DefaultMaxCueMillis,
		pauseMillis:   CaptionPauseMillis,
	}
}

// segment groups the transcript's words into cues. Words whose text is empty
// after cleaning are left out; every other word appears in exactly one cue,
// in order, except that a word longer than r.lineChars runes is split
// (splitWord) into pieces that take a line each, in cues of their own. No
// line is longer than r.lineChars runes.
func segment(words []transcribe.Word, r captionRules) []cue {
	var (
		out     []cue
		cur     cue
		lineLen int
		prev    *transcribe.Word
		prevTxt string
	)
	flush := func() {
		if len(cur.lines) > 0 {
			if r.maxLines > 1 {
				cur.lines = balance(cur.lines, r.lineChars)
			}
			out = append(out, cur)
		}
		cur = cue{}
		lineLen = 0
	}
	for i := range words {
		w := &words[i]
		text := cleanText(w.Text)
		if text == "" {
			continue
		}
		n := utf8.RuneCountInString(text)
		if len(cur.lines) > 0 {
			switch {
			case !sameVoice(prev, w),
				w.Start-prev.End >= r.pauseMillis,
				r.sentenceBreak && endsSentence(prevTxt),
				r.maxCueMillis > 0 && w.End-cur.start > r.maxCueMillis:
				flush()
			}
		}
		switch {
		case n > r.lineChars:
			// An over-long word is split; its pieces fill captions of
			// their own, a line each.
			flush()
			for _, p := range splitWord(text, w.Start, w.End, r.lineChars) {
				if len(cur.lines) == r.maxLines {
					flush()
				}
				if len(cur.lines) == 0 {
					cur.start = p.start
				}
				cur.lines = append(cur.lines, []string{p.text})
				setEnd(&cur, p.end)
			}
			flush()
		case len(cur.lines) == 0:
			cur = cue{start: w.Start, lines: [][]string{{text}}}
			lineLen = n
		case lineLen+1+n <= r.lineChars:
			last := len(cur.lines) - 1
			cur.lines[last] = append(cur.lines[last], text)
			lineLen += 1 + n
		case len(cur.lines) < r.maxLines:
			cur.lines = append(cur.lines, []string{text})
			lineLen = n
		default:
			flush()
			cur = cue{start: w.Start, lines: [][]string{{text}}}
			lineLen = n
		}
		if len(cur.lines) > 0 {
			setEnd(&cur, w.End)
		}
		prev, prevTxt = w, text
	}
	flush()
	return out
}

// wordPiece is a part of a word too long for one caption line.
type wordPiece struct {
	text       string
	start, end int64
}

// splitWord cuts text, a cleaned word of more than limit runes (limit >= 1),
// into pieces of at most limit runes. A word with spaces inside ("New York"
// as one word) is cut at a space where one falls within the limit, and the
// space is dropped; otherwise the pieces are as even in length as the limit
// allows ("respectable" at 10 gives "respec", "table"), and a cut is moved
// back so that it does not separate a combining mark, a variation selector,
// an emoji modifier or a zero-width joiner from the character it belongs to
// (unless that would leave a piece empty). Each piece gets the share of the
// word's time that its runes are of the word's (a dropped space's share
// going to the piece after it), so the pieces' times follow on from each
// other from start to end.
func splitWord(text string, start, end int64, limit int) []wordPiece {
	rs := []rune(text)
	n := len(rs)
	dur := max(end-start, 0)
	at := func(i int) int64 { return start + dur*int64(i)/int64(n) }
	var out []wordPiece
	for pos := 0; pos < n; {
		from := pos // a dropped space's time goes to the piece after it
		for pos < n && rs[pos] == ' ' {
			pos++
		}
		if pos == n {
			break
		}
		rest := n - pos
		cut := n
		if rest > limit {
			cut = -1
			for i := pos + limit; i > pos; i-- {
				if rs[i] == ' ' {
					cut = i
					break
				}
			}
			if cut < 0 {
				pieces := (rest + limit - 1) / limit
				cut = pos + (rest+pieces-1)/pieces
				for c := cut; c > pos+1; c-- {
					if breakable(rs, c) {
						cut = c
						break
					}
				}
			}
		}
		out = append(out, wordPiece{text: string(rs[pos:cut]), start: at(from), end: at(cut)})
		pos = cut
	}
	return out
}

// breakable reports whether a line may break before rs[i]: not before a
// combining mark, a variation selector, an emoji skin-tone modifier or a
// zero-width joiner, nor after a zero-width joiner.
func breakable(rs []rune, i int) bool {
	r := rs[i]
	switch {
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc),
		r == '\u200d' || rs[i-1] == '\u200d',
		r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF,
		r >= 0x1F3FB && r <= 0x1F3FF:
		return false
	}
	return true
}

// setEnd sets the cue's end to the last word's end, never before its start
// (a malformed word with end < start must not give a backwards cue).
func setEnd(c *cue, end int64) {
	c.end = max(end, c.start)
}

// balance re-splits a two-line cue so the lines are as even as possible
// while each stays within limit; a greedy fill leaves the first line full
// and the second short.
func balance(lines [][]string, limit int) [][]string {
	if len(lines) != 2 {
		return lines
	}
	words := append(append([]string(nil), lines[0]...), lines[1]...)
	lens := make([]int, len(words))
	total := -1
	for i, w := range words {
		lens[i] = utf8.RuneCountInString(w)
		total += lens[i] + 1
	}
	best, bestWidth := -1, 0
	left := -1
	for k := 1; k < len(words); k++ { // first line is words[:k]
		left += lens[k-1] + 1
		right := total - left - 1
		if left > limit || right > limit {
			continue
		}
		if width := max(left, right); best < 0 || width < bestWidth {
			best, bestWidth = k, width
		}
	}
	if best < 0 {
		return lines
	}
	return [][]string{words[:best:best], words[best:]}
}

// SRT renders the transcript's words as SubRip captions: cues numbered from
// 1, times as HH:MM:SS,mmm (hours grow past two digits when needed), the cue
// text plain UTF-8 with no byte-order mark and no HTML escaping, a blank line
// between cues and a final newline. A transcript with no words gives an
// empty body.
//
// charsPerCaption > 0 limits each caption to one line of at most that many
// characters (runes); 0 or less selects the default segmentation (see
// DefaultLineChars). See the package documentation for the segmentation
// rules. t may be nil (no captions).
func SRT(t *transcribe.Transcript, charsPerCaption int) []byte {
	if t == nil {
		return []byte{}
	}
	cues := segment(t.Words, rulesFor(charsPerCaption))
	b := make([]byte, 0, 64*len(cues))
	for i, c := range cues {
		if i > 0 {
			b = append(b, '\n')
		}
		b = strconv.AppendInt(b, int64(i+1), 10)
		b = append(b, '\n')
		b = appendSRTTime(b, c.start)
		b = append(b, " --> "...)
		b = appendSRTTime(b, c.end)
		b = append(b, '\n')
		b = appendLines(b, c.lines)
	}
	return b
}

// VTT renders the transcript's words as WebVTT captions: a "WEBVTT" line and
// a blank line, then cues without identifiers, times as MM:SS.mmm (the
// spec's form), a blank line between cues. From one hour on, times carry an
// hours field (01:15:02.000), as the WebVTT standard requires: players
// reject minutes above 59.
// Text is UTF-8 with the two characters WebVTT cue text reserves escaped
// (& as &amp;, < as &lt;; > needs none), so players show "R&D at <Acme>" as
// it was said rather than taking <Acme> for a tag; chars_per_caption
// counts the characters as spoken. "-->" inside a word becomes "->". A
// transcript with no words gives "WEBVTT\n\n".
//
// charsPerCaption works as for SRT. t may be nil (no cues).
func VTT(t *transcribe.Transcript, charsPerCaption int) []byte {
	var cues []cue
	if t != nil {
		cues = segment(t.Words, rulesFor(charsPerCaption))
	}
	b := make([]byte, 0, 8+64*len(cues))
	b = append(b, "WEBVTT\n\n"...)
	for i, c := range cues {
		if i > 0 {
			b = append(b, '\n')
		}
		b = appendVTTTime(b, c.start)
		b = append(b, " --> "...)
		b = appendVTTTime(b, c.end)
		b = append(b, '\n')
		b = appendLinesEscaped(b, c.lines)
	}
	return b
}

// appendLinesEscaped is appendLines with WebVTT's escapes.
func appendLinesEscaped(b []byte, lines [][]string) []byte {
	for _, line := range lines {
		for j, w := range line {
			if j > 0 {
				b = append(b, ' ')
			}
			for i := 0; i < len(w); i++ {
				switch w[i] {
				case '&':
					b = append(b, "&amp;"...)
				case '<':
					b = append(b, "&lt;"...)
				default:
					b = append(b, w[i])
				}
			}
		}
		b = append(b, '\n')
	}
	return b
}

func appendLines(b []byte, lines [][]string) []byte {
	for _, line := range lines {
		for j, w := range line {
			if j > 0 {
				b = append(b, ' ')
			}
			b = append(b, w...)
		}
		b = append(b, '\n')
	}
	return b
}

// appendSRTTime appends HH:MM:SS,mmm. Negative times are shown as 0.
func appendSRTTime(b []byte, ms int64) []byte {
	ms = max(ms, 0)
	b = pad(b, ms/3_600_000, 2)
	b = append(b, ':')
	b = pad(b, ms/60_000%60, 2)
	b = append(b, ':')
	b = pad(b, ms/1000%60, 2)
	b = append(b, ',')
	return pad(b, ms%1000, 3)
}

// appendVTTTime appends MM:SS.mmm, or HH:MM:SS.mmm from one hour on.
func appendVTTTime(b []byte, ms int64) []byte {
	ms = max(ms, 0)
	if ms >= 3_600_000 {
		b = pad(b, ms/3_600_000, 2)
		b = append(b, ':')
	}
	b = pad(b, ms/60_000%60, 2)
	b = append(b, ':')
	b = pad(b, ms/1000%60, 2)
	b = append(b, '.')
	return pad(b, ms%1000, 3)
}

// pad appends v (>= 0) in decimal with at least width digits.
func pad(b []byte, v int64, width int) []byte {
	var tmp [20]byte
	s := strconv.AppendInt(tmp[:0], v, 10)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}
