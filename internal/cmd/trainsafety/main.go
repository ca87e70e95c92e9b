// Command trainsafety trains the two learned models of package safety
// and writes them with their checksums:
//
//		go run ./internal/cmd/trainsafety \
//		    -bbc /path/to/bbc -huffpost /path/to/News_Category_Dataset_v3.json \
//		    -davidson /path/to/labeled_data.csv -out transcribe/analysis/safety/data
//
//	  - the context model (context.nb.gz): naive Bayes (package
//	    topics/nb) over word stems, classes the context domains of
//	    package safety (sport, arts, tech, lifestyle, news, business,
//	    health, science), trained on the train parts of BBC News and the
//	    HuffPost News Category Dataset (package topicdata fixes the
//	    splits);
//	  - the hate speech model (hate.lr.gz): logistic regression (package
//	    safety/lr) over words and word pairs, trained on the train part of
//	    Davidson et al.'s labelled tweets (hate speech against offensive
//	    language and neither), with the train parts' news paragraphs as
//	    further negatives (news about groups of people is not hate speech).
//	    Its threshold is the one with the best F1 on the tweets' dev part.
//
// Test parts are never read. With -dev nothing is written and the dev
// figures that chose the constants below are printed.
//
// The output is deterministic: the same data give the same bytes.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/earshot-dev/earshot/transcribe/analysis/safety"
	"github.com/earshot-dev/earshot/transcribe/analysis/safety/lr"
	"github.com/earshot-dev/earshot/transcribe/analysis/topics/nb"
	"github.com/earshot-dev/earshot/transcribe/analysis/topics/topicdata"
)

// Training constants, chosen on the dev parts (-dev).
const (
	nbAlpha     = 0.3
	nbTempering = 8
	nbMinCount  = 2

	lrL2        = 1e-4
	lrStep      = 2
	lrPasses    = 600
	lrPosWeight = 4
	lrMinCount  = 5
	lrPrune     = 0.05
	newsWeight  = 1 // copies of each news paragraph among the negatives
)

func main() {
	bbc := flag.String("bbc", "", "folder of the BBC News set (business/, entertainment/, ...)")
	huff := flag.String("huffpost", "", "News Category Dataset JSON lines file")
	dav := flag.String("davidson", "", "Davidson et al.'s data/labeled_data.csv")
	out := flag.String("out", "transcribe/analysis/safety/data", "folder to write the models and checksums to")
	dev := flag.Bool("dev", false, "print dev figures and write nothing")
	flag.Parse()
	if *bbc == "" || *huff == "" || *dav == "" {
		log.Fatal("trainsafety: -bbc, -huffpost and -davidson are required")
	}
	docs, err := topicdata.ReadBBC(*bbc)
	if err != nil {
		log.Fatal(err)
	}
	hp, err := topicdata.ReadHuffPost(*huff)
	if err != nil {
		log.Fatal(err)
	}
	docs = append(docs, hp...)
	f, err := os.Open(*dav)
	if err != nil {
		log.Fatal(err)
	}
	tweets, err := safety.ReadDavidson(f)
	f.Close()
	if err != nil {
		log.Fatal(err)
	}

	cm, err := trainContext(docs)
	if err != nil {
		log.Fatal(err)
	}
	hm := trainHate(tweets, docs)
	if *dev {
		devContext(cm, docs)
		return
	}
	for _, m := range []struct {
		name string
		b    func() ([]byte, error)
	}{{"context.nb.gz", cm.Bytes}, {"hate.lr.gz", hm.Bytes}} {
		b, err := m.b()
		if err != nil {
			log.Fatal(err)
		}
		sum := nb.Checksum(b)
		if err := os.WriteFile(filepath.Join(*out, m.name), b, 0o644); err != nil {
			log.Fatal(err)
		}
		sumFile := strings.TrimSuffix(strings.TrimSuffix(m.name, ".gz"), filepath.Ext(strings.TrimSuffix(m.name, ".gz"))) + ".sha256"
		if err := os.WriteFile(filepath.Join(*out, sumFile), []byte(sum+"  "+m.name+"\n"), 0o644); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %d bytes, sha256 %s\n", m.name, len(b), sum)
	}
	fmt.Printf("context model: %d features; hate model: %d features, threshold %.2f\n", cm.Vocabulary(), hm.Features(), hm.Threshold)
}

// trainContext counts the train parts' documents by domain.
func trainContext(docs []topicdata.Doc) (*nb.Model, error) {
	members := make([][]string, len(safety.Domains))
	for i, d := range safety.Domains {
		members[i] = []string{d}
	}
	t := nb.NewTrainer(safety.Domains, members)
	for _, d := range docs {
		dom, ok := safety.DomainOf(d.Class)
		if !ok || d.Split != topicdata.Train {
			continue
		}
		if err := t.Add(dom, safety.ContextFeatures(safety.TextTokens(d.Text)), 1); err != nil {
			return nil, err
		}
	}
	return t.Model(nbAlpha, nbTempering, nbMinCount), nil
}

// devContext prints the context model's domain accuracy on the dev parts.
func devContext(m *nb.Model, docs []topicdata.Doc) {
	ok, n := 0, 0
	for _, d := range docs {
		dom, known := safety.DomainOf(d.Class)
		if !known || d.Split != topicdata.Dev {
			continue
		}
		p, _ := m.Posterior(safety.ContextFeatures(safety.TextTokens(d.Text)))
		best := 0
		for i := range p {
			if p[i] > p[best] {
				best = i
			}
		}
		n++
		if m.Classes[best] == dom {
			ok++
		}
	}
	fmt.Printf("context model, dev parts: domain right on %d of %d (%.1f%%)\n", ok, n, 100*float64(ok)/float64(max(n, 1)))
}

// trainHate fits the hate speech model and sets its threshold on the
// tweets' dev part.
func trainHate(tweets []safety.Tweet, docs []topicdata.Doc) *lr.Model {
	var xs [][]string
	var ys []bool
	for _, tw := range tweets {
		if tw.Split == topicdata.Train {
			xs = append(xs, safety.HateFeatures(safety.TextTokens(tw.Text)))
			ys = append(ys, tw.Class == 0)
		}
	}
	news := 0
	for _, d := range docs {
		if d.Split != topicdata.Train {
			continue
		}
		for _, p := range paragraphs(d.Text) {
			for k := 0; k < newsWeight; k++ {
				xs = append(xs, safety.HateFeatures(safety.TextTokens(p)))
				ys = append(ys, false)
			}
			news++
		}
	}
	m := lr.Train(xs, ys, lr.Options{L2: lrL2, Step: lrStep, Passes: lrPasses, PosWeight: lrPosWeight, MinCount: lrMinCount, Prune: lrPrune})
	// Threshold: best F1 on the dev tweets.
	type scored struct {
		p    float64
		gold bool
	}
	var dev []scored
	pos := 0
	for _, tw := range tweets {
		if tw.Split == topicdata.Dev {
			dev = append(dev, scored{m.Probability(safety.HateFeatures(safety.TextTokens(tw.Text))), tw.Class == 0})
			if tw.Class == 0 {
				pos++
			}
		}
	}
	bestF, bestT := -1.0, 0.5
	for t := 0.05; t < 0.96; t += 0.01 {
		tp, fp := 0, 0
		for _, s := range dev {
			if s.p >= t {
				if s.gold {
					tp++
				} else {
					fp++
				}
			}
		}
		p, r := float64(tp)/float64(max(tp+fp, 1)), float64(tp)/float64(max(pos, 1))
		f := 0.0
		if p+r > 0 {
			f = 2 * p * r / (p + r)
		}
		if f > bestF {
			bestF, bestT = f, t
		}
		if int(t*100+0.5)%10 == 0 {
			log.Printf("hate dev: threshold %.2f precision %.1f%% recall %.1f%% F1 %.3f", t, 100*p, 100*r, f)
		}
	}
	m.Threshold = float64(int(bestT*100+0.5)) / 100
	log.Printf("hate model: %d tweets and %d news paragraphs; dev threshold %.2f (F1 %.3f)", len(xs)-news*newsWeight, news, m.Threshold, bestF)
	return m
}

// paragraphs splits a news text into its paragraphs of at least eight
// words (a HuffPost record is one paragraph; a BBC article's first line
// is its title).
func paragraphs(text string) []string {
	var out []string
	for _, p := range strings.Split(text, "\n") {
		if p = strings.TrimSpace(p); len(strings.Fields(p)) >= 8 {
			out = append(out, p)
		}
	}
	return out
}
