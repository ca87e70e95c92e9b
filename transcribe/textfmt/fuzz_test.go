package textfmt

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/earshot-dev/earshot/transcribe"
)

// FuzzFormat runs the whole pipeline on arbitrary words and pauses and
// checks that it never panics, that every kept word's time span is inside
// one output word, that output times are monotonic and that no word is
// empty or has invalid UTF-8 it did not have before.
func FuzzFormat(f *testing.F) {
	seeds := []string{
		"my name is sarah and i paid twenty five dollars at three thirty p m",
		"um so what time is it uh it is ten a m in new york",
		"john dot smith at example dot com or w w w dot example dot co dot uk slash x",
		"one hundred and twelve point five percent of two thousand twenty four dollars and fifty cents",
		"call one eight zero zero five five five one two three four on january fifth nineteen ninety nine",
		"the twenty first of march at seven o'clock a hundred million billion thousand and",
		"shit uh huh hmm. mhm, I'm i'd assembly a i $25 3:30 PM",
		"point dollars and cents oh oh o clock p m a m at dot at",
	}
	for i, s := range seeds {
		f.Add(s, []byte{byte(i), 3, 250, 40, 90, 0, 1}, byte(i))
	}
	f.Fuzz(func(t *testing.T, spoken string, gaps []byte, flags byte) {
		fields := strings.Fields(spoken)
		if len(fields) > 200 {
			fields = fields[:200]
		}
		ws := make([]transcribe.Word, len(fields))
		at := int64(0)
		a, b := "A", "B"
		for i, w := range fields {
			g := int64(10)
			if len(gaps) > 0 {
				g = int64(gaps[i%len(gaps)]) * 5 // 0 to 1275 ms
			}
			at += g
			ws[i] = transcribe.Word{Text: w, Start: at, End: at + int64(len(w))*30, Confidence: float64(i%10) / 10}
			if flags&32 != 0 {
				ws[i].Speaker = &a
				if (i/3)%2 == 1 {
					ws[i].Speaker = &b
				}
			}
			at = ws[i].End
			if flags&64 != 0 {
				// A second channel whose words overlap the first's.
				c := string(rune('1' + i%2))
				ws[i].Channel = &c
				if i%2 == 1 {
					ws[i].Start, ws[i].End = ws[i-1].Start+1, ws[i-1].End+1
					at = ws[i].End
				}
			}
		}
		p := params(func(p *transcribe.TranscriptParams) {
			p.Punctuate = transcribe.Ptr(flags&1 == 0)
			p.FormatText = transcribe.Ptr(flags&2 == 0)
			p.Disfluencies = transcribe.Ptr(flags&4 != 0)
			p.FilterProfanity = transcribe.Ptr(flags&8 != 0)
			if flags&16 != 0 && len(fields) > 1 {
				p.CustomSpelling = []transcribe.CustomSpelling{{From: []string{fields[0] + " " + fields[1], fields[len(fields)-1]}, To: "X"}}
			}
		})
		in := append([]transcribe.Word(nil), ws...)
		out := Format(ws, p)
		for i := range ws {
			if ws[i].Text != in[i].Text {
				t.Fatalf("input modified")
			}
		}
		lastEnd := map[string]int64{}
		for i, o := range out {
			if o.Start > o.End {
				t.Fatalf("word %d %q: start %d after end %d", i, o.Text, o.Start, o.End)
			}
			if i > 0 && o.Start < out[i-1].Start {
				t.Fatalf("word %d %q starts at %d, before word %d (%d-%d)", i, o.Text, o.Start, i-1, out[i-1].Start, out[i-1].End)
			}
			ch := ""
			if o.Channel != nil {
				ch = *o.Channel
			}
			if e, ok := lastEnd[ch]; ok && o.Start < e {
				t.Fatalf("word %d %q starts at %d, before the previous word of its channel ended (%d)", i, o.Text, o.Start, e)
			}
			lastEnd[ch] = o.End
			if o.Text == "" {
				t.Fatalf("empty word %d", i)
			}
			if !utf8.ValidString(o.Text) && utf8.ValidString(spoken) {
				t.Fatalf("invalid UTF-8 %q", o.Text)
			}
			if o.Confidence < 0 || o.Confidence > 1 {
				t.Fatalf("confidence %v", o.Confidence)
			}
		}
		// Every input word's span lies in one output word, unless it was a
		// filler that the disfluencies stage removed.
		for _, w := range in {
			covered := false
			for _, o := range out {
				if o.Start <= w.Start && w.End <= o.End && eqPtr(o.Channel, w.Channel) {
					covered = true
					break
				}
			}
			if covered {
				continue
			}
			if !*p.Disfluencies && (IsFiller(w.Text) || norm(w.Text) == "huh") {
				continue
			}
			t.Fatalf("word %q (%d-%d) lost; output %q", w.Text, w.Start, w.End, text(out))
		}
	})
}
