// Command trainsentiment trains the sentiment model of package sentiment
// (a multinomial logistic regression over sentiment.Features) and writes
// it, printing its checksum and its figures on the held-out halves:
//
//	go run ./internal/cmd/trainsentiment \
//	    -vader /path/to/hutto_ICWSM_2014 \
//	    -out transcribe/analysis/sentiment/model.json
//
// -vader is the directory of VADER's human-rated sets, unpacked from
// additional_resources/hutto_ICWSM_2014.tar.gz of github.com/cjhutto/
// vaderSentiment (MIT licence). Training reads the half of each set that
// sentiment.HeldOut leaves out, each set weighing the same, plus the
// package's own dev set (testdata/dev.txt, transcribed speech, weighing
// as much as one set); the held-out halves are only scored. Gold labels
// come from the mean human rating (sentiment.GoldLabel). With -sample it
// also writes the committed evaluation sample (the first 100 held-out
// sentences of each set, attribution kept).
//
// The output is deterministic: the same data give the same bytes.
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"log"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/jonreiter/govader"

	"github.com/earshot-dev/earshot/transcribe/analysis/sentiment"
)

// Training constants (fixed, not searched).
const (
	l2         = 1e-3 // ridge penalty on the non-bias weights
	rate       = 1.0  // gradient step
	iterations = 6000
)

type example struct {
	x []float64
	y int
	w float64
}

func labelIndex(l string) int {
	for i, k := range sentiment.Labels() {
		if k == l {
			return i
		}
	}
	return -1
}

func main() {
	vaderDir := flag.String("vader", "", "directory of VADER's *_GroundTruth.txt files")
	dev := flag.String("dev", "transcribe/analysis/sentiment/testdata/dev.txt", "the package's dev set (LABEL | sentence lines)")
	out := flag.String("out", "transcribe/analysis/sentiment/model.json", "model file to write")
	sample := flag.String("sample", "", "also write the committed held-out sample here")
	devWeight := flag.Float64("devweight", 0.5, "weight of the dev set, in VADER sets")
	tune := flag.Bool("tune", false, "train on three quarters of the training halves and score the fourth (for choosing features), never the held-out halves")
	flag.Parse()
	if *vaderDir == "" {
		log.Fatal("-vader is required")
	}
	var train []example
	type held struct {
		set string
		r   sentiment.Rated
		x   []float64
	}
	var test []held
	var sampleLines []string
	for _, set := range sentiment.VADERSets {
		f, err := os.Open(filepath.Join(*vaderDir, set+"_GroundTruth.txt"))
		if err != nil {
			log.Fatal(err)
		}
		rs, err := sentiment.ReadRated(f)
		f.Close()
		if err != nil {
			log.Fatalf("%s: %v", set, err)
		}
		var tr []example
		inSample := 0
		for _, r := range rs {
			x := sentiment.Features(r.Text)
			if sentiment.HeldOut(set, r.ID) {
				if *tune {
					continue
				}
				test = append(test, held{set, r, x})
				if inSample < 100 {
					inSample++
					sampleLines = append(sampleLines, fmt.Sprintf("%s\t%s\t%v\t%s", set, r.ID, r.Rating, r.Text))
				}
				continue
			}
			if *tune && innerDev(set, r.ID) {
				test = append(test, held{set, r, x})
				continue
			}
			tr = append(tr, example{x: x, y: labelIndex(sentiment.GoldLabel(r.Rating))})
		}
		for i := range tr {
			tr[i].w = 1 / float64(len(tr))
		}
		train = append(train, tr...)
	}
	if *dev != "" {
		f, err := os.Open(*dev)
		if err != nil {
			log.Fatal(err)
		}
		var tr []example
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			l, s, ok := strings.Cut(line, " | ")
			if !ok {
				log.Fatalf("%s: bad line %q", *dev, line)
			}
			tr = append(tr, example{x: sentiment.Features(strings.TrimSpace(s)), y: labelIndex(strings.TrimSpace(l))})
		}
		f.Close()
		for i := range tr {
			tr[i].w = *devWeight / float64(len(tr))
		}
		train = append(train, tr...)
	}
	m := fit(train)
	m.Source = fmt.Sprintf("multinomial logistic regression (L2 %g, %d steps of %g) on the training halves of VADER's four human-rated sets "+
		"(cjhutto/vaderSentiment 44fc044, MIT) and testdata/dev.txt; gold = mean rating beyond +-%.1f", l2, iterations, rate, sentiment.GoldBand)
	for k := range m.Weights {
		for j := range m.Weights[k] {
			m.Weights[k][j] = math.Round(m.Weights[k][j]*1e6) / 1e6
		}
	}
	if *tune {
		*out, *sample = os.DevNull, ""
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		log.Fatal(err)
	}
	b = append(b, '\n')
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		log.Fatal(err)
	}
	m2, err := sentiment.LoadModel(b)
	if err != nil {
		log.Fatal(err)
	}
	plain := govader.NewSentimentIntensityAnalyzer()
	fmt.Printf("%-22s %6s %8s %8s %8s\n", "held-out half", "n", "model", "VADER", "rules")
	for _, set := range sentiment.VADERSets {
		n, okM, okV, okR := 0, 0, 0, 0
		for _, h := range test {
			if h.set != set {
				continue
			}
			gold := sentiment.GoldLabel(h.r.Rating)
			n++
			p := m2.Predict(h.x)
			best := 0
			for k := range p {
				if p[k] > p[best] {
					best = k
				}
			}
			if sentiment.Labels()[best] == gold {
				okM++
			}
			if vaderLabel(plain.PolarityScores(h.r.Text).Compound) == gold {
				okV++
			}
			if r, _ := (sentiment.Analyzer{Options: sentiment.Options{Threshold: sentiment.DefaultThreshold}}).Classify(h.r.Text); r.Sentiment == gold {
				okR++
			}
		}
		fmt.Printf("%-22s %6d %7.1f%% %7.1f%% %7.1f%%\n", set, n, pct(okM, n), pct(okV, n), pct(okR, n))
	}
	fmt.Printf("sha256 %x\n", sha256.Sum256(b))
	if *sample != "" {
		hdr := "# Held-out sample of VADER's human-rated sentences (Hutto and Gilbert, ICWSM 2014), from\n" +
			"# github.com/cjhutto/vaderSentiment commit 44fc044cd877310ee8278a0eadf34bcd50d41d06,\n" +
			"# additional_resources/hutto_ICWSM_2014.tar.gz; MIT licence, Copyright (c) 2016 C.J. Hutto.\n" +
			"# set<TAB>id<TAB>mean rating (-4..4)<TAB>text: the first 100 held-out sentences (sentiment.HeldOut) of each set.\n"
		if err := os.WriteFile(*sample, []byte(hdr+strings.Join(sampleLines, "\n")+"\n"), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}

// innerDev reports whether a training sentence is in the quarter -tune
// scores.
func innerDev(set, id string) bool {
	h := fnv.New32a()
	h.Write([]byte("tune/" + set + "/" + id))
	return (h.Sum32()>>8)%4 == 0
}

// vaderLabel is plain VADER's reading of a compound score, with the
// thresholds its documentation gives (±0.05).
func vaderLabel(c float64) string {
	switch {
	case c >= 0.05:
		return sentiment.Positive
	case c <= -0.05:
		return sentiment.Negative
	}
	return sentiment.Neutral
}

func pct(a, n int) float64 { return 100 * float64(a) / float64(max(n, 1)) }

// fit trains the weights by full-batch gradient descent on the weighted
// cross-entropy with an L2 penalty (deterministic).
func fit(data []example) *sentiment.Model {
	m := &sentiment.Model{}
	total := 0.0
	for _, e := range data {
		total += e.w
	}
	for it := 0; it < iterations; it++ {
		var grad [3][sentiment.NumFeatures]float64
		for _, e := range data {
			p := m.Predict(e.x)
			for k := range 3 {
				d := p[k]
				if k == e.y {
					d--
				}
				for j, v := range e.x {
					grad[k][j] += e.w * d * v / total
				}
			}
		}
		for k := range 3 {
			for j := range sentiment.NumFeatures {
				g := grad[k][j]
				if j > 0 {
					g += l2 * m.Weights[k][j]
				}
				m.Weights[k][j] -= rate * g
			}
		}
	}
	return m
}
