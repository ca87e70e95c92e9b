package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/earshot-dev/earshot/transcribe/textfmt/punctmodel"
)

// Words of each training book the question classifier trains on: past
// the part the marks' model was trained on (the first 30,000 words), so
// that the decoder's sentence ends there are as good or as bad as on text
// it never saw, and before the part the recognized development sample
// reads (Pride and Prejudice and Man and Superman from word 45,000).
const (
	questionsFrom = 30000
	questionsTo   = 45000
)

// trainQuestions trains the sentence-level question classifier on the
// committed model's sentence ends, tunes its threshold on the
// development book (and the recognized development sample devSpeech, when
// given: the mean of the two question F1s), writes it to out and prints
// the figures with and without it.
func trainQuestions(corpus, out, devSpeech string, epochs int, seed uint64, retune bool) {
	start := time.Now()
	m, err := punctmodel.Default()
	if err != nil {
		log.Fatal(err)
	}
	m = m.WithQuestions(nil)
	if retune {
		b, err := os.ReadFile(out)
		if err != nil {
			log.Fatal(err)
		}
		q, err := punctmodel.ReadQuestions(bytes.NewReader(b))
		if err != nil {
			log.Fatalf("%s: %v", out, err)
		}
		tuneQuestions(corpus, out, devSpeech, m, q)
		return
	}
	docs, words := stackDocs(corpus)
	log.Printf("read %d books, %d words (words %d to %d of each) in %v", len(docs), words, questionsFrom, questionsTo, time.Since(start).Round(time.Millisecond))
	q := punctmodel.TrainQuestions(m, docs, 18, epochs, seed)
	log.Printf("trained in %v", time.Since(start).Round(time.Second))
	fmt.Printf("question classifier: %d books, %d words, %d epochs, seed %d, trained in %v\n",
		len(docs), words, epochs, seed, time.Since(start).Round(time.Second))
	tuneQuestions(corpus, out, devSpeech, m, q)
}

// tuneQuestions sets q's threshold on the development book (and the
// recognized development sample devSpeech, when given: the mean of the two
// question F1s), writes q to out and prints the figures with and without
// it.
func tuneQuestions(corpus, out, devSpeech string, m *punctmodel.Model, q *punctmodel.Questions) {
	ws, gaps, gold := devData(corpus)
	var sp *punctmodel.EvalFile
	if devSpeech != "" {
		f := readEvalFile(devSpeech)
		sp = &f
	}
	figures := func(c *punctmodel.Model) (book, speech punctmodel.Scores) {
		book = punctmodel.Score(gold, c.Marks(ws, gaps))
		if sp != nil {
			speech = speechScores(c, *sp)
		}
		return
	}
	b0, s0 := figures(m)
	bestT, bestF := float32(0), -1.0
	for t := float32(-3); t <= 3.01; t += 0.25 {
		q.Threshold = t
		b, s := figures(m.WithQuestions(q))
		f := b.Question.F()
		if sp != nil {
			f = (f + s.Question.F()) / 2
		}
		log.Printf("threshold %+.2f: book question %v; speech question %v", t, b.Question, s.Question)
		if f > bestF {
			bestT, bestF = t, f
		}
	}
	q.Threshold = bestT
	var buf bytes.Buffer
	if err := q.Write(&buf); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	sum := sha256.Sum256(buf.Bytes())
	b, s := figures(m.WithQuestions(q))
	fmt.Printf("question classifier %s: %d bytes, sha256 %s; threshold %+.2f\n", out, buf.Len(), hex.EncodeToString(sum[:]), bestT)
	fmt.Printf("development book (%s): question %v (decoder alone %v)\n", devBook, b.Question, b0.Question)
	if sp != nil {
		fmt.Printf("recognized development speech: question %v (decoder alone %v); sentence end %v\n", s.Question, s0.Question, s.SentenceEnd)
	}
}

// wordRange returns the paragraphs of d from about word from to about
// word to.
func wordRange(d punctmodel.Doc, from, to int) (punctmodel.Doc, int) {
	var r punctmodel.Doc
	n, got := 0, 0
	for i, p := range d.Paras {
		if n >= from && n < to {
			r.Paras = append(r.Paras, p)
			r.Speakers = append(r.Speakers, d.Speakers[i])
			got += len(p)
		}
		n += len(p)
	}
	return r, got
}

// stackDocs reads the part of each training book the classifiers after
// the decoder train on.
func stackDocs(corpus string) (docs []punctmodel.Doc, words int) {
	trainingBooks(corpus, func(full punctmodel.Doc) {
		d, n := wordRange(full, questionsFrom, questionsTo)
		if n < 1000 {
			return
		}
		docs = append(docs, d)
		words += n
	})
	return docs, words
}
