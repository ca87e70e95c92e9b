package diarize

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe"
)

// The evaluation corpus: conversations synthesized with flite voices, with
// known turn boundaries. It is built once per test binary (clips are cached
// on disk by internal/testaudio).

const rate = 16000

// turn is one speaker turn of a scripted conversation.
type turn struct {
	voice string
	text  string
}

// conversation is a synthesized conversation with its ground truth.
type conversation struct {
	name    string
	voices  []string // speaker index -> voice
	audio   []int16  // mono mix, 16 kHz
	stereo  [2][]int16
	ref     []Segment         // one segment per turn, trimmed to its voiced span
	words   []transcribe.Word // reference words with times and true speaker letters
	speaker []int             // true speaker index per word
}

var lines = []string{
	"Good morning, thanks for joining the call today.",
	"Happy to be here. Shall we start with the budget?",
	"Yes. The budget for the third quarter is almost final, but marketing asked for more money.",
	"How much more?",
	"About twelve percent, mostly for the autumn campaign and two trade shows in Europe.",
	"That seems high to me.",
	"I agree. Could we move one of the trade shows to next year and keep the campaign?",
	"That could work. I will ask the sales team what they think.",
	"Great. Next item is the office move.",
	"The new building will be ready in October, and the movers are booked for the second week.",
	"Do we have parking for everyone?",
	"Not yet. We are still talking to the city about the permits for the lower garage.",
	"Please keep me posted on that.",
	"Of course.",
	"Let us talk about hiring. We have four open positions in engineering and one in support.",
	"How many candidates are in the pipeline right now?",
	"Around thirty, and six of them are in the final round of interviews this week.",
	"Excellent. What about the support role?",
	"We had fewer applications, so I posted the job again on two more websites yesterday.",
	"Okay, sounds good.",
	"The last topic is the customer survey. Most people were happy with the product.",
	"What did they complain about?",
	"Mostly the mobile app. It is slow to start and the search results are not very good.",
	"The team is already working on a faster version of the search.",
	"When will it ship?",
	"We hope to release it before the end of next month, if testing goes well.",
	"Thank you all, that is everything for today.",
	"Thanks, bye.",
}

var pauses = []int{400, 250, 600, 300, 500, 350, 700, 450} // ms between turns

// convSpec describes one scripted conversation.
type convSpec struct {
	name    string
	voices  []string
	pattern []int // speaker index of each turn
	first   int   // first line of the script
	perTurn int   // lines per turn; default 1
	trim    bool  // cut each clip to its voiced part
	gaps    []int // ms between turns; default pauses
	noise   float64
}

func (s convSpec) turns() []turn {
	ts := make([]turn, len(s.pattern))
	k := s.first
	for i, sp := range s.pattern {
		var text []string
		for j := 0; j < max(1, s.perTurn); j++ {
			text = append(text, lines[k%len(lines)])
			k++
		}
		ts[i] = turn{voice: s.voices[sp], text: strings.Join(text, " ")}
	}
	return ts
}

var (
	corpusOnce sync.Once
	corpus     map[string]*conversation
	corpusErr  error
)

// conversations returns the corpus, synthesizing it on first use.
func conversations(t testing.TB) map[string]*conversation {
	t.Helper()
	testaudio.Need(t, "flite", "sox")
	corpusOnce.Do(func() {
		corpus = map[string]*conversation{}
		specs := []convSpec{
			{name: "two", voices: []string{"slt", "rms"}, pattern: []int{0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1}},
			{name: "three", voices: []string{"awb", "slt", "kal"}, pattern: []int{0, 1, 2, 1, 0, 2, 0, 1, 2, 0, 1, 2}, first: 8},
			{name: "four", voices: []string{"slt", "rms", "awb", "kal"}, pattern: []int{0, 1, 2, 3, 1, 0, 3, 2, 0, 3, 1, 2, 0, 1, 3, 2}, first: 4},
			// Turns trimmed to their voiced part and butted together with
			// at most 150 ms between them, over a noise floor: changes must
			// be found by BIC, not by pauses.
			{name: "tight", voices: []string{"rms", "awb"}, pattern: []int{0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 0, 1}, first: 14,
				trim: true, gaps: []int{0, 50, 100, 0, 150, 30}, noise: 60},
			// Long turns of three sentences each.
			{name: "long", voices: []string{"kal", "slt"}, pattern: []int{0, 1, 0, 1}, first: 2, perTurn: 3},
			// One speaker only.
			{name: "mono", voices: []string{"awb"}, pattern: []int{0, 0, 0, 0, 0, 0}, first: 20},
		}
		for _, s := range specs {
			c, err := build(t, s)
			if err != nil {
				corpusErr = err
				return
			}
			corpus[s.name] = c
		}
		corpus["real"], corpusErr = realConversation(t)
	})
	if corpusErr != nil {
		t.Fatalf("building the corpus: %v", corpusErr)
	}
	return corpus
}

func build(t testing.TB, spec convSpec) (*conversation, error) {
	c := &conversation{name: spec.name, voices: spec.voices}
	voices, turns, gaps := spec.voices, spec.turns(), spec.gaps
	if gaps == nil {
		gaps = pauses
	}
	spk := map[string]int{}
	for i, v := range voices {
		spk[v] = i
	}
	pad := func(ms int) {
		n := ms * rate / 1000
		c.audio = append(c.audio, make([]int16, n)...)
		for ch := range c.stereo {
			c.stereo[ch] = append(c.stereo[ch], make([]int16, n)...)
		}
	}
	pad(300)
	for i, tr := range turns {
		clip, err := readWAV(testaudio.Speech(t, tr.voice, tr.text))
		if err != nil {
			return nil, err
		}
		lo, hi := voiced(clip)
		if spec.trim {
			clip = clip[lo:hi]
			lo, hi = 0, len(clip)
		}
		base := int64(len(c.audio))
		s := spk[tr.voice]
		seg := Segment{Start: (base + int64(lo)) * 1000 / rate, End: (base + int64(hi)) * 1000 / rate, Speaker: s}
		c.ref = append(c.ref, seg)
		c.audio = append(c.audio, clip...)
		for ch := range c.stereo {
			if ch == s%2 {
				c.stereo[ch] = append(c.stereo[ch], clip...)
			} else {
				c.stereo[ch] = append(c.stereo[ch], make([]int16, len(clip))...)
			}
		}
		// reference words: spread over the voiced span by length
		ws := strings.Fields(tr.text)
		total := 0
		for _, w := range ws {
			total += len(w) + 1
		}
		pos := 0
		for _, w := range ws {
			st := seg.Start + (seg.End-seg.Start)*int64(pos)/int64(total)
			pos += len(w) + 1
			en := seg.Start + (seg.End-seg.Start)*int64(pos-1)/int64(total)
			c.words = append(c.words, transcribe.Word{Text: w, Start: st, End: en, Confidence: 0.9})
			c.speaker = append(c.speaker, s)
		}
		pad(gaps[i%len(gaps)])
	}
	pad(300)
	if spec.noise > 0 {
		rng := rand.New(rand.NewPCG(1, 2))
		for i := range c.audio {
			n := rng.NormFloat64() * spec.noise
			c.audio[i] = clamp16(float64(c.audio[i]) + n)
			for ch := range c.stereo {
				c.stereo[ch][i] = clamp16(float64(c.stereo[ch][i]) + rng.NormFloat64()*spec.noise)
			}
		}
	}
	return c, nil
}

func clamp16(v float64) int16 {
	return int16(max(-32768, min(32767, math.Round(v))))
}

// voiced returns the first and last sample of the clip's audible part.
func voiced(x []int16) (lo, hi int) {
	const win = rate / 100
	loud := func(i int) bool {
		var s float64
		for _, v := range x[i:min(len(x), i+win)] {
			s += float64(v) * float64(v)
		}
		return math.Sqrt(s/win) > 150
	}
	lo, hi = 0, len(x)
	for lo < len(x) && !loud(lo) {
		lo += win
	}
	for hi > lo && !loud(max(hi-win, 0)) {
		hi -= win
	}
	return lo, hi
}

// readWAV reads a 16-bit PCM mono WAV file.
func readWAV(path string) ([]int16, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return nil, fmt.Errorf("%s: not a WAV file", path)
	}
	var ok bool
	for p := 12; p+8 <= len(b); {
		id, n := string(b[p:p+4]), int(binary.LittleEndian.Uint32(b[p+4:]))
		body := b[p+8 : min(len(b), p+8+n)]
		switch id {
		case "fmt ":
			if len(body) < 16 || binary.LittleEndian.Uint16(body[0:]) != 1 || binary.LittleEndian.Uint16(body[2:]) != 1 ||
				binary.LittleEndian.Uint32(body[4:]) != rate || binary.LittleEndian.Uint16(body[14:]) != 16 {
				return nil, fmt.Errorf("%s: want 16-bit mono PCM at %d Hz", path, rate)
			}
			ok = true
		case "data":
			if !ok {
				return nil, errors.New(path + ": data before fmt")
			}
			out := make([]int16, len(body)/2)
			for i := range out {
				out[i] = int16(binary.LittleEndian.Uint16(body[2*i:]))
			}
			return out, nil
		}
		p += 8 + n + n%2
	}
	return nil, fmt.Errorf("%s: no data chunk", path)
}

// realConversation interleaves real read speech: the five librivox clips of
// Debian's pocketsphinx-testdata (one reader) as speaker 0 and four CMU
// recordings shipped beside them (goforward, numbers, something and
// tidigits/dhd.2934z, raw 16 kHz; all by one speaker, "dhd") as speaker 1,
// with 250 ms pauses.
func realConversation(t testing.TB) (*conversation, error) {
	lib := testaudio.Librivox(t)
	dir := filepath.Dir(testaudio.LibrivoxDir)
	other := []string{"goforward.raw", "numbers.raw", "something.raw", "tidigits/dhd.2934z.raw"}
	c := &conversation{name: "real", voices: []string{"librivox", "dhd"}}
	add := func(x []int16, spk int) {
		lo, hi := voiced(x)
		base := int64(len(c.audio))
		c.ref = append(c.ref, Segment{Start: (base + int64(lo)) * 1000 / rate, End: (base + int64(hi)) * 1000 / rate, Speaker: spk})
		c.audio = append(c.audio, x...)
		c.audio = append(c.audio, make([]int16, rate/4)...)
	}
	for i, l := range lib {
		x, err := readWAV(l)
		if err != nil {
			return nil, err
		}
		add(x, 0)
		if i < len(other) {
			b, err := os.ReadFile(filepath.Join(dir, other[i]))
			if err != nil {
				return nil, err
			}
			y := make([]int16, len(b)/2)
			for j := range y {
				y[j] = int16(binary.LittleEndian.Uint16(b[2*j:]))
			}
			add(y, 1)
		}
	}
	return c, nil
}
