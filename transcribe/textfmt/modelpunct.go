package textfmt

import (
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/textfmt/punctmodel"
)

// jitterMs is the least taken off every gap before the model sees it:
// pocketsphinx (and synthetic word times) leave gaps of a few 10 ms frames
// between words spoken without a pause.
const jitterMs = 30

// pauseFloor returns what is taken off every gap of one channel before the
// model sees it: jitterMs, or the median gap when that is longer. Most
// gaps between words carry no mark (about 85 % in read text), so the
// median is the gap an engine leaves between words spoken without a
// pause: pocketsphinx leaves none (the held-out recordings' median is 0
// ms), while engines or callers that give every word a fixed share of the
// time leave the same gap everywhere ("she is forty two years old" with 50
// ms after each word), which says nothing about marks. The model learnt
// that any pause is strong evidence of a mark, so such gaps must not reach
// it as pauses.
func pauseFloor(gaps []int64) int64 {
	if len(gaps) == 0 {
		return jitterMs
	}
	s := slices.Clone(gaps)
	slices.Sort(s)
	return max(jitterMs, s[(len(s)-1)/2])
}

// modelPunctuate places the model's marks on the words of one channel: a
// change of speaker or channel and a pause of sentencePause or more always
// end a sentence; a gap inside a number, date, address, name, spelled word
// or spoken e-mail address never takes a mark otherwise (see holdGaps).
// Words that already end with punctuation keep theirs.
func modelPunctuate(m *punctmodel.Model, ws []transcribe.Word, sentencePause time.Duration) []transcribe.Word {
	words := make([]string, len(ws))
	raw := make([]int64, len(ws)) // the pause after each word, as timed
	for i, w := range ws {
		words[i] = punctmodel.Normalize(w.Text)
		if i+1 < len(ws) {
			raw[i] = max(0, ws[i+1].Start-w.End)
		}
	}
	floor := pauseFloor(raw[:len(ws)-1])
	t := norms(ws)
	hold := holdGaps(m, t, words, func(i int) bool { return raw[i] > floor })
	gaps := make([]punctmodel.Gap, len(ws))
	for i := 0; i+1 < len(ws); i++ {
		// A pause of SentencePause or more ends a sentence, as with the
		// pause rules (few sentence ends reach it, but nearly all that
		// reach it are sentence ends).
		turn := !sameSide(ws[i], ws[i+1]) || time.Duration(raw[i])*time.Millisecond >= sentencePause
		gaps[i] = punctmodel.Gap{PauseMs: max(0, raw[i]-floor), Turn: turn, Hold: hold[i]}
	}
	marks := m.Marks(words, gaps)
	start := 0
	for i, mk := range marks {
		if !mk.EndsSentence() && !endsSentence(ws[i].Text) {
			continue
		}
		// Without a question classifier, the question rules catch short
		// questions the model calls statements ("what time is it"); with
		// it they cost more than they gain (recognized development
		// speech, question F1 0.372 without them, 0.291 with them).
		first := start
		for first < i && (fillers[t[first]] || leadIns[t[first]]) {
			first++
		}
		if mk == punctmodel.Period && m.Questions() == nil && isQuestion(t[first:i+1]) {
			marks[i] = punctmodel.Question
		}
		start = i + 1
	}
	for i, mk := range marks {
		if mk == punctmodel.None || hasPunct(ws[i].Text) || ws[i].Text == "" {
			continue
		}
		forced := i+1 == len(ws) || gaps[i].Turn
		// The model learnt from books, where fillers are rare: it never
		// marks a filler unless the end is forced.
		if !forced && fillers[t[i]] {
			continue
		}
		paused := gaps[i].PauseMs > 0
		prev := i - 1 // the word before, fillers skipped
		for prev >= 0 && fillers[t[prev]] {
			prev--
		}
		if mk.EndsSentence() && !forced && !paused && (prev < 0 || endsSentence(ws[prev].Text)) && (leadIns[t[i]] || introWords[t[i]]) {
			// A lone lead-in is not a sentence: "so what time is it",
			// "okay, what time is it".
			if !introWords[t[i]] || i+2 >= len(ws) {
				continue
			}
			mk = punctmodel.Comma
		}
		if mk == punctmodel.Comma && i+1 == len(ws) {
			continue
		}
		ws[i].Text += mk.String()
	}
	return ws
}

// addressLeads are words after which a title that ends a sentence or a
// clause is said to someone ("help me governor.", "yes doctor,"), rather
// than named ("the doctor.", "became president."). Found on the
// development book (TestDevNames).
var addressLeads = set("you me us yes no yeah please thanks here now well oh hello hi morning evening night sorry")

// addressTitles are titles that, said to someone ("yes, doctor."), are
// written with a capital, as names are (not "sir" or "madam").
var addressTitles = set("doctor professor governor captain general colonel major sergeant lieutenant senator president judge officer nurse")

// trueCase raises the letters of names, places and acronyms the model
// knows, on the words of one channel.
func trueCase(m *punctmodel.Model, ws []transcribe.Word) []transcribe.Word {
	words := make([]string, len(ws))
	for i, w := range ws {
		words[i] = punctmodel.Normalize(w.Text)
	}
	for i, form := range m.Case(words) {
		if form == "" && i > 0 && addressTitles[words[i]] && (strings.HasSuffix(ws[i-1].Text, ",") || addressLeads[words[i-1]]) {
			// A title said to someone, set off by commas or ending the
			// sentence, is written as a name: "thank you, Doctor.", and
			// after the words that lead to one, with no comma before it:
			// "thank you doctor." -> "thank you Doctor.", "no
			// governor." -> "no Governor.".
			if _, punct := trailingPunct(ws[i].Text); punct != "" {
				form = capitalize(words[i])
			}
		}
		if form == "" || isAddress(ws[i].Text) {
			continue
		}
		body, punct := trailingPunct(ws[i].Text)
		if strings.EqualFold(body, form) {
			ws[i].Text = raiseTo(body, form) + punct
		}
	}
	return ws
}

// raiseTo returns s with the letters that are upper case in form raised
// (never lowered).
func raiseTo(s, form string) string {
	rs, fs := []rune(s), []rune(form)
	if len(rs) != len(fs) {
		return s
	}
	for i := range rs {
		if unicode.IsUpper(fs[i]) {
			rs[i] = unicode.ToUpper(rs[i])
		}
	}
	return string(rs)
}
