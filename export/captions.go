package export

import (
	"strconv"
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
// in order. No line is longer than r.lineChars runes unless it holds one word
// that is longer by itself, and such a word is a cue of its own.
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
			// Never split a word: an over-long one is a caption by itself.
			flush()
			cur = cue{start: w.Start, lines: [][]string{{text}}}
			setEnd(&cur, w.End)
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
// Text is plain UTF-8 with no HTML escaping; "-->" inside a word becomes
// "->". A transcript with no words gives "WEBVTT\n\n".
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
		b = appendLines(b, c.lines)
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
