package openai

import "fmt"

// An answer can only hold as much as the audio it is for. Speech runs at
// two to four words a second (fast speech and auctioneers reach about
// seven); whisper.cpp with a random-weight model was recorded answering 17
// short "words" a second (adapters/whispercpp/testdata); a whisper.cpp verbose_json spends under 1 KB a second of speech
// on its tokens, segments and text. An answer past these bounds is not a
// transcript but a broken or hostile engine, and decoding it whole could
// take gigabytes (30 MB of "a a a ..." is 15 million words), so it is
// refused with an engine error before it is decoded.
const (
	// MaxWordsPerSecond and ExtraWords bound the words of an answer:
	// at most MaxWordsPerSecond × seconds of audio + ExtraWords.
	MaxWordsPerSecond = 20
	ExtraWords        = 50
	// bytesPerSecond and extraBytes bound an answer's size by its audio
	// (and Config.MaxResponseBytes bounds it always).
	bytesPerSecond = 64 << 10
	extraBytes     = 1 << 20
	// valuesPerWord bounds the JSON values and the words inside strings
	// that the pre-scan counts, per word allowed: a whisper.cpp token is
	// an object of about eight members, and the text repeats every word
	// in the segments' and the whole text.
	valuesPerWord = 40
)

// answerBounds are the limits of one answer.
type answerBounds struct {
	bytes  int64 // body size
	values int64 // JSON values and words in strings (countValues); 0: none
	words  int   // merged words; 0: none
	ms     int64 // the audio's length, -1 when unknown
}

// boundsFor returns the limits for audio of ms milliseconds (-1 or 0 when
// unknown: only maxBytes).
func boundsFor(ms int64, maxBytes int64) answerBounds {
	if ms <= 0 {
		return answerBounds{bytes: maxBytes, ms: -1}
	}
	words := int64(MaxWordsPerSecond)*ms/1000 + ExtraWords
	return answerBounds{
		bytes:  min(maxBytes, extraBytes+bytesPerSecond*ms/1000),
		values: words * valuesPerWord,
		words:  int(words),
		ms:     ms,
	}
}

func (b answerBounds) audio() string { return fmt.Sprintf("%.1f s of audio", float64(b.ms)/1000) }

// countValues counts, without decoding or allocating, the JSON values of
// body (commas and opened containers outside strings) plus the words
// inside its strings, stopping once the count passes limit. It is what
// decoding would allocate for, so a body within the limit decodes into
// memory in proportion to its audio.
func countValues(body []byte, limit int64) int64 {
	var n int64
	inStr, esc, inWord := false, false, false
	for _, c := range body {
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc, inWord = true, false // "a\na": an escape may separate words
			case c == '"':
				inStr, inWord = false, false
			case c == ' ' || c == '\t' || c == '\n' || c == '\r':
				inWord = false
			default:
				if !inWord {
					inWord = true
					n++
				}
			}
		} else {
			switch c {
			case '"':
				inStr = true
			case ',', '[', '{':
				n++
			}
		}
		if n > limit {
			return n
		}
	}
	return n
}
