package main

import (
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/earshot-dev/earshot/transcribe/textfmt/punctmodel"
)

// writeLexicon counts the casing lexicon on the whole books of the
// training split (as training does) and on current text, each of its
// words counted weight times: the short descriptions of the News Category
// Dataset (Misra 2022, HuffPost 2012-2022, CC BY 4.0; the JSON lines
// file), leaving out its test part (every tenth record from the first, as
// package topicdata splits it), and the Wikipedia articles of WikiText-2
// files (Merity et al. 2016, CC BY-SA 3.0; wiki.*.tokens). It writes the
// lexicon to out. Headlines and section titles are left out: they are
// written in title case.
func writeLexicon(corpus, path string, wiki []string, words string, weight int, out string) {
	var lc punctmodel.LexiconCounter
	books := 0
	trainingBooks(corpus, func(d punctmodel.Doc) { lc.Add(d); books++ })
	texts, n := newsTexts(path)
	used, total := 0, 0
	for _, t := range texts {
		lc.AddTimes(punctmodel.Doc{Paras: [][]punctmodel.Token{t}, Speakers: []string{""}}, weight)
		used++
		total += len(t)
	}
	news := total
	articles := 0
	for _, p := range wiki {
		texts, n := wikiTexts(p)
		articles += n
		for _, t := range texts {
			lc.AddTimes(punctmodel.Doc{Paras: [][]punctmodel.Token{t}, Speakers: []string{""}}, weight)
			total += len(t)
		}
	}
	lx := lc.Counted()
	scowl := 0
	if words != "" {
		files, err := filepath.Glob(filepath.Join(words, "*-words-*.json"))
		if err != nil || len(files) == 0 {
			log.Fatalf("trainpunct: no *-words-*.json word lists in %s", words)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				log.Fatal(err)
			}
			var list []string
			if err := json.Unmarshal(b, &list); err != nil {
				log.Fatalf("%s: %v", f, err)
			}
			for _, w := range list {
				w = punctmodel.Normalize(w)
				if _, cased := lx.Cased[w]; cased || w == "" || w != strings.ToLower(w) {
					continue
				}
				if _, ok := lx.Known[w]; !ok {
					lx.Known[w] = struct{}{}
					scowl++
				}
			}
		}
	}
	w, err := os.Create(out)
	if err != nil {
		log.Fatal(err)
	}
	if err := punctmodel.WriteLexicon(w, lx); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d books; %d descriptions of %d records (%d words) and %d Wikipedia articles (%d words), each word counted %d times; %d words of the word lists only: %d cased words, %d known, %d pairs\n",
		out, books, used, n, news, articles, total-news, weight, scowl, len(lx.Cased), len(lx.Known), len(lx.Pairs))
}

// wikiText undoes WikiText's tokenization: "1 @,@ 000" -> "1,000",
// "well @-@ known" -> "well-known", "word ," -> "word,"; words it replaced
// by <unk> are left out.
var wikiText = func() func(string) string {
	r := strings.NewReplacer(" @-@ ", "-", " @,@ ", ",", " @.@ ", ".", "<unk>", "", " , ", ", ", " . ", ". ", " ; ", "; ", " : ", ": ", " 's", "'s", " n't", "n't")
	return func(s string) string { return strings.Join(strings.Fields(r.Replace(" "+s+" ")), " ") }
}()
