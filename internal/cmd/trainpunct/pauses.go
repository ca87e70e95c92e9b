package main

import (
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/earshot-dev/earshot/adapters/pocketsphinx"
	"github.com/earshot-dev/earshot/transcribe/textfmt/punctmodel"
)

// pauseBooks are training-split texts read by flite to measure the gaps
// pocketsphinx reports after each mark (never the held-out books).
var pauseBooks = []struct {
	path  string
	after string // start reading after this line
	words int
	play  bool
}{
	{"Wilde, Oscar/An Ideal Husband.txt", "FIRST ACT", 900, true},
	{"Doyle, Arthur Conan/The Adventure of the Red Circle.txt", "", 900, false},
}

// measurePauses reads training-split text with flite, recognizes it and
// prints, for each mark, the share of gaps under 20 ms and the median and
// log-spread of the others: the figures behind SimulatePause.
func measurePauses(corpus string) {
	r, dir, done := speechTools()
	defer done()
	gaps := map[string][]float64{}
	for bi, b := range pauseBooks {
		text := readText(filepath.Join(corpus, b.path))
		if b.after != "" {
			text = text[strings.Index(text, b.after):]
		}
		ps, _ := voiced(text, 0, b.words, b.play)
		s := speakSet(r, dir, fmt.Sprintf("pauses-%d", bi), b.path, ps, b.play)
		ws := s.Recognized
		for i := 0; i+1 < len(ws); i++ {
			if ws[i].Speaker != ws[i+1].Speaker {
				continue
			}
			k := ws[i].Mark.String()
			if k == "?" {
				k = "."
			}
			gaps[k] = append(gaps[k], float64(max(0, ws[i+1].Start-ws[i].End)))
		}
	}
	for _, k := range []string{"", ",", "."} {
		g := gaps[k]
		var pos []float64
		for _, v := range g {
			if v >= 20 {
				pos = append(pos, math.Log(v))
			}
		}
		slices.Sort(pos)
		med, sd := 0.0, 0.0
		if len(pos) > 0 {
			med = math.Exp(pos[len(pos)/2])
			mean := 0.0
			for _, v := range pos {
				mean += v
			}
			mean /= float64(len(pos))
			for _, v := range pos {
				sd += (v - mean) * (v - mean)
			}
			sd = math.Sqrt(sd / float64(len(pos)))
		}
		fmt.Printf("mark %q: %d gaps, %.0f%% under 20 ms, others median %.0f ms, log-sd %.2f\n",
			k, len(g), 100*(1-float64(len(pos))/float64(max(len(g), 1))), med, sd)
	}
}

// voiced returns the paragraphs of text after its first skip words, until
// about words words, each with the flite voice that reads it: in a play
// (speeches only) one voice per character, Speaker "voice:character";
// otherwise the voices in turn, Speaker "voice". n is the words returned.
func voiced(text string, skip, words int, play bool) (ps []punctmodel.Paragraph, n int) {
	seen := 0
	voiceOf := map[string]string{}
	for _, p := range punctmodel.Paragraphs(text) {
		k := len(strings.Fields(p.Text))
		if seen += k; seen <= skip || (play && p.Speaker == "") {
			continue
		}
		if play {
			if _, ok := voiceOf[p.Speaker]; !ok {
				voiceOf[p.Speaker] = voices[len(voiceOf)%len(voices)]
			}
			p.Speaker = voiceOf[p.Speaker] + ":" + p.Speaker
		} else {
			p.Speaker = voices[len(ps)%len(voices)]
		}
		ps = append(ps, p)
		if n += k; n > words {
			break
		}
	}
	return ps, n
}

// speechTools returns the recognizer and a temporary folder for reading
// text with flite, and what closes them.
func speechTools() (*pocketsphinx.Recognizer, string, func()) {
	r, err := pocketsphinx.New(pocketsphinx.Config{Decoders: 1})
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "trainpunct")
	if err != nil {
		r.Close()
		log.Fatal(err)
	}
	return r, dir, func() {
		os.RemoveAll(dir)
		r.Close()
	}
}
