package main

import (
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/earshot-dev/earshot/transcribe/textfmt"
	"github.com/earshot-dev/earshot/transcribe/textfmt/punctmodel"
)

// devSpeechBooks are read by flite for the recognized development sample
// (-devsample): training-split books, from well past the part training
// reads (the first -book-words words, 30,000 by default), so the model
// has not seen these sentences. Two novels of the test book's author and
// a play, as the held-out sample has a novel and a play.
var devSpeechBooks = []struct {
	path  string
	skip  int // words of the book passed over first
	words int
	play  bool
}{
	{"Austen, Jane/Pride and Prejudice.txt", 45000, 1500, false},
	{"Austen, Jane/Emma.txt", 60000, 1000, false},
	{"Shaw, Bernard/Man and Superman: A Comedy and a Philosophy.txt", 45000, 1500, true},
}

// makeDevSample writes the recognized development sample: devSpeechBooks
// read by flite (narration by the four voices in turn, a play one voice
// per character), recognized by pocketsphinx and aligned to the text, in
// the held-out sample's format. It tunes the score offsets (-retune
// -devspeech) as the recognizer's words and times are at run time,
// rather than the development book's simulated pauses alone.
func makeDevSample(corpus, out string) {
	r, dir, done := speechTools()
	defer done()
	var sets []punctmodel.EvalSet
	for bi, b := range devSpeechBooks {
		ps, n := voiced(readText(filepath.Join(corpus, b.path)), b.skip, b.words, b.play)
		if n < b.words/2 {
			log.Fatalf("trainpunct: %s: only %d words after word %d", b.path, n, b.skip)
		}
		name := fmt.Sprintf("dev-%d-%s", bi, strings.ToLower(strings.Fields(strings.TrimSuffix(filepath.Base(b.path), ".txt"))[0]))
		src := fmt.Sprintf("%s, from word %d; Project Gutenberg (public domain); read by flite voices", b.path, b.skip)
		sets = append(sets, speakSet(r, dir, name, src, ps, b.play))
	}
	bs, err := json.Marshal(punctmodel.EvalFile{Sets: sets})
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(out, bs, 0o644); err != nil {
		log.Fatal(err)
	}
	for _, s := range sets {
		fmt.Printf("%s: %d recognized words, %d reference words, recognition %v\n", s.Name, len(s.Recognized), len(s.Reference), time.Duration(s.RecognizeMs)*time.Millisecond)
	}
}

func readEvalFile(path string) punctmodel.EvalFile {
	b, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	var f punctmodel.EvalFile
	if err := json.Unmarshal(b, &f); err != nil {
		log.Fatalf("%s: %v", path, err)
	}
	return f
}

// speechScores runs the punctuate stage with m on the recognized words of
// f's sets, as TestHeldOut scores the held-out sample.
func speechScores(m *punctmodel.Model, f punctmodel.EvalFile) punctmodel.Scores {
	var s punctmodel.Scores
	p := textfmt.Punctuator{Model: m}
	for _, set := range f.Sets {
		words := punctmodel.Words(set.Recognized)
		p.Punctuate(words)
		gold := make([]punctmodel.Mark, len(words))
		pred := make([]punctmodel.Mark, len(words))
		for i := range words {
			gold[i], pred[i] = set.Recognized[i].Mark, punctmodel.MarkOf(words[i].Text)
		}
		s.Merge(punctmodel.Score(gold, pred))
	}
	return s
}

// tuneWithSpeech chooses the sentence-end offset and the offset of a
// sentence end at a gap with no pause together, then the question
// offset, each by the mean of two F1s: on the development book (simulated
// pauses, the model's own decoding) and on the recognized development
// sample (through the punctuate stage, as at run time). Ties go to the
// offsets nearest 0. The comma offset stays 0.
func tuneWithSpeech(m *punctmodel.Model, ws []string, gaps []punctmodel.Gap, gold []punctmodel.Mark, sp punctmodel.EvalFile) *punctmodel.Model {
	book := func(c *punctmodel.Model) punctmodel.Scores { return punctmodel.Score(gold, c.Marks(ws, gaps)) }
	o := m.Offsets()
	best, bestF := o, -1.0
	for e := int32(-8000); e <= 20000; e += 2000 {
		for u := int32(-24000); u <= 0; u += 2000 {
			t := punctmodel.Offsets{SentenceEnd: e, Question: o.Question, Unpaused: u}
			c := m.WithOffsets(t)
			b, s := book(c).SentenceEnd.F(), speechScores(c, sp).SentenceEnd.F()
			log.Printf("sentence-end offset %6d, unpaused %6d: book F1 %.3f, speech F1 %.3f, mean %.3f", e, u, b, s, (b+s)/2)
			if f := (b + s) / 2; f > bestF || (f == bestF && abs(e)+abs(u) < abs(best.SentenceEnd)+abs(best.Unpaused)) {
				best, bestF = t, f
			}
		}
	}
	bestQF := -1.0
	q0 := best
	for q := int32(-16000); q <= 16000; q += 1000 {
		t := q0
		t.Question = q
		c := m.WithOffsets(t)
		b, s := book(c).Question.F(), speechScores(c, sp).Question.F()
		if f := (b + s) / 2; f > bestQF || (f == bestQF && abs(q) < abs(best.Question)) {
			best, bestQF = t, f
		}
	}
	c := m.WithOffsets(best)
	bs, ss := book(c), speechScores(c, sp)
	log.Printf("offsets %+v; book: sentence end %v, question %v; recognized development speech: sentence end %v, question %v, comma %v",
		best, bs.SentenceEnd, bs.Question, ss.SentenceEnd, ss.Question, ss.Comma)
	return c
}

func abs(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}
