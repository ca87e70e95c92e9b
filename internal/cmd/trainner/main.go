// Command trainner trains the named-entity tagger of transcribe/pii/ner on
// CoNLL-2003 and writes the two models the package embeds: cased.bin.gz
// (for written text with casing) and lower.bin.gz (trained on lower-cased
// copies of the same documents, for recognizer output without casing).
//
//	git clone https://github.com/israelcamp/T5-For-NER /tmp/t5ner
//	git -C /tmp/t5ner checkout 9f817ecb8bb3bf91eb239a9562067a9daccd5814
//	go run ./internal/cmd/trainner -data /tmp/t5ner/data/conll2003
//
// DIR holds train.txt, valid.txt and test.txt in the four-column CoNLL
// form. Only train.txt is learned from; valid.txt (the development set)
// picks the number of passes and the pruning threshold; test.txt is held
// out and read only with -test, which prints the figures once the models
// are chosen. Training is deterministic.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/earshot-dev/earshot/transcribe/pii"
	"github.com/earshot-dev/earshot/transcribe/pii/ner"
)

func main() {
	data := flag.String("data", "", "folder with CoNLL-2003 train.txt, valid.txt, test.txt")
	out := flag.String("out", "transcribe/pii/ner", "folder to write cased.bin.gz and lower.bin.gz to")
	epochs := flag.Int("epochs", 15, "most training passes (the best on valid.txt is kept)")
	prune := flag.Float64("prune", 0.5, "drop averaged weights below this absolute value")
	test := flag.Bool("test", false, "also print the figures on test.txt (held out: read once, after choosing)")
	only := flag.String("only", "", "train only this model: cased or lower")
	flag.Parse()
	if *data == "" {
		log.Fatal("trainner: -data DIR is required (CoNLL-2003 train.txt, valid.txt, test.txt)")
	}
	read := func(name string) []ner.Doc {
		f, err := os.Open(filepath.Join(*data, name))
		if err != nil {
			log.Fatal(err)
		}
		defer f.Close()
		docs, err := ner.ReadCoNLL(f)
		if err != nil {
			log.Fatalf("%s: %v", name, err)
		}
		return docs
	}
	train, dev := read("train.txt"), read("valid.txt")
	var testDocs []ner.Doc
	if *test {
		testDocs = read("test.txt")
	}
	lex := pii.Lexicon()
	for _, cased := range []bool{true, false} {
		name := "cased"
		if !cased {
			name = "lower"
		}
		if *only != "" && *only != name {
			continue
		}
		log.Printf("training %s model on %d documents", name, len(train))
		m, err := ner.Train(train, cased, lex, ner.Options{Epochs: *epochs, Dev: dev, Log: log.Printf})
		if err != nil {
			log.Fatal(err)
		}
		var buf bytes.Buffer
		if err := m.Write(&buf, float32(*prune)); err != nil {
			log.Fatal(err)
		}
		// Figures of the pruned model as stored.
		stored, err := ner.Read(bytes.NewReader(buf.Bytes()))
		if err != nil {
			log.Fatal(err)
		}
		path := filepath.Join(*out, name+".bin.gz")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			log.Fatal(err)
		}
		sum := sha256.Sum256(buf.Bytes())
		fmt.Printf("%s: %d bytes, %d features, sha256 %s\n", path, buf.Len(), stored.Features(), hex.EncodeToString(sum[:]))
		fmt.Printf("  valid.txt:\n%s", table(ner.Evaluate(stored, dev)))
		if *test {
			fmt.Printf("  test.txt:\n%s", table(ner.Evaluate(stored, testDocs)))
		}
	}
}

func table(c map[string]*ner.Counts) string {
	s := fmt.Sprintf("    %-5s %6s %6s %6s\n", "", "P", "R", "F1")
	var all ner.Counts
	for _, t := range []string{"PER", "LOC", "ORG", "MISC"} {
		p, r, f := c[t].PRF()
		s += fmt.Sprintf("    %-5s %6.3f %6.3f %6.3f\n", t, p, r, f)
		if t != "MISC" {
			all.Add(*c[t])
		}
	}
	p, r, f := all.PRF()
	return s + fmt.Sprintf("    %-5s %6.3f %6.3f %6.3f  (PER, LOC, ORG)\n", "all", p, r, f)
}
