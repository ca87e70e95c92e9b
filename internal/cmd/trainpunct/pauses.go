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
	r, err := pocketsphinx.New(pocketsphinx.Config{Decoders: 1})
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	dir, err := os.MkdirTemp("", "trainpunct")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	gaps := map[string][]float64{}
	for bi, b := range pauseBooks {
		text := readText(filepath.Join(corpus, b.path))
		if b.after != "" {
			text = text[strings.Index(text, b.after):]
		}
		var ps []punctmodel.Paragraph
		n := 0
		voiceOf := map[string]string{}
		for _, p := range punctmodel.Paragraphs(text) {
			if b.play && p.Speaker == "" {
				continue
			}
			if _, ok := voiceOf[p.Speaker]; !ok {
				voiceOf[p.Speaker] = voices[len(voiceOf)%len(voices)]
			}
			if !b.play {
				p.Speaker = voices[len(ps)%len(voices)]
			} else {
				p.Speaker = voiceOf[p.Speaker] + ":" + p.Speaker
			}
			ps = append(ps, p)
			if n += len(strings.Fields(p.Text)); n > b.words {
				break
			}
		}
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
