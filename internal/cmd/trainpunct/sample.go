package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/earshot-dev/earshot/adapters/pocketsphinx"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/textfmt/punctmodel"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// librivoxRef is what the librivox clips of Debian's pocketsphinx-testdata
// read (their transcription file), punctuated and cased as Sense and
// Sensibility (chapter 1) has it. The clips skip two sentences between
// 0890 and 0920, so the clause before the skip ends with "." there (the
// next clip starts a sentence).
var librivoxRef = []string{
	"And Mr. John Dashwood had then leisure to consider how much there might be prudently in his power to do for them.",
	"He was not an ill-disposed young man,",
	"unless to be rather cold hearted and rather selfish is to be ill-disposed.",
	"Had he married a more a amiable woman, he might have been made still more respectable than he was:--",
	"he might even have been made amiable himself;",
}

// voices are flite's voices, given to speakers in turn.
var voices = []string{"slt", "rms", "awb", "kal"}

// makeSample recognizes held-out text spoken by flite and the librivox
// clips with the embedded recognizer, aligns the recognized words to the
// punctuated reference, and writes the evaluation sample.
func makeSample(corpus, out string) {
	r, dir, done := speechTools()
	defer done()
	var sets []punctmodel.EvalSet

	// Sense and Sensibility, chapter 1, paragraphs read in turn by the
	// four voices (one narrator, so no speaker change).
	ss := readText(filepath.Join(corpus, "Austen, Jane/Sense and Sensibility.txt"))
	ch := ss[strings.Index(ss, "CHAPTER 1"):strings.Index(ss, "CHAPTER 2")]
	var ps []punctmodel.Paragraph
	for i, p := range punctmodel.Paragraphs(ch) {
		p.Speaker = voices[i%len(voices)]
		ps = append(ps, p)
	}
	sets = append(sets, speakSet(r, dir, "sense-and-sensibility-ch1-flite",
		"Jane Austen, Sense and Sensibility (1811), chapter 1; Project Gutenberg e-text #161 (public domain); read by flite voices",
		ps, false))

	// The Importance of Being Earnest, the first act's speeches until
	// about 1500 words, one flite voice per character.
	ea := readText(filepath.Join(corpus, "Wilde, Oscar/The Importance of Being Earnest: A Trivial Comedy for Serious People.txt"))
	ea = ea[strings.Index(ea, "FIRST ACT"):]
	voiceOf := map[string]string{}
	ps, n := nil, 0
	for _, p := range punctmodel.Paragraphs(ea) {
		if p.Speaker == "" {
			continue
		}
		if _, ok := voiceOf[p.Speaker]; !ok {
			voiceOf[p.Speaker] = voices[len(voiceOf)%len(voices)]
		}
		ps = append(ps, p)
		if n += len(strings.Fields(p.Text)); n > 1500 {
			break
		}
	}
	for i := range ps {
		ps[i].Speaker = voiceOf[ps[i].Speaker] + ":" + ps[i].Speaker
	}
	sets = append(sets, speakSet(r, dir, "importance-of-being-earnest-act1-flite",
		"Oscar Wilde, The Importance of Being Earnest (1895), first act; Project Gutenberg e-text #844 (public domain); one flite voice per character",
		ps, true))

	// The librivox clips: real read speech.
	clips, _ := filepath.Glob("/usr/share/pocketsphinx/test/data/librivox/*.wav")
	if len(clips) != 5 {
		log.Fatal("install pocketsphinx-testdata (5 librivox clips expected)")
	}
	joined := filepath.Join(dir, "librivox.wav")
	run("sox", append(clips, joined)...)
	var ref []punctmodel.Paragraph
	for _, s := range librivoxRef {
		ref = append(ref, punctmodel.Paragraph{Text: s})
	}
	words, took := recognize(r, joined)
	toks, spk := joinRef(ref)
	sets = append(sets, punctmodel.NewEvalSet("librivox-sense-and-sensibility",
		"LibriVox reading of Sense and Sensibility, chapter 1 (public domain), clips 0870-0930 of Debian's pocketsphinx-testdata",
		toks, spk, words, took))

	b, err := json.Marshal(punctmodel.EvalFile{Sets: sets})
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		log.Fatal(err)
	}
	for _, s := range sets {
		fmt.Printf("%s: %d recognized words, %d reference words, recognition %v\n", s.Name, len(s.Recognized), len(s.Reference), time.Duration(s.RecognizeMs)*time.Millisecond)
	}
}

// joinRef tokenizes paragraphs into one reference token list, with each
// token's speaker.
func joinRef(ps []punctmodel.Paragraph) ([]punctmodel.Token, []string) {
	var toks []punctmodel.Token
	var spk []string
	for _, p := range ps {
		for _, t := range punctmodel.Tokenize(p.Text) {
			toks = append(toks, t)
			spk = append(spk, p.Speaker)
		}
	}
	return toks, spk
}

// speakSet speaks each paragraph with its speaker's voice, recognizes each
// on its own and joins the words on one time line (each paragraph after
// the last, with 300 ms between).
func speakSet(r *pocketsphinx.Recognizer, dir, name, source string, ps []punctmodel.Paragraph, turns bool) punctmodel.EvalSet {
	var all []transcribe.Word
	var took time.Duration
	var offset int64
	for i, p := range ps {
		voice, who, _ := strings.Cut(p.Speaker, ":")
		wav := filepath.Join(dir, fmt.Sprintf("%s-%d.wav", name, i))
		raw := wav + ".raw.wav"
		run("flite", "-voice", voice, "-t", p.Text, "-o", raw)
		run("sox", raw, "-r", "16000", "-c", "1", "-b", "16", wav)
		ws, d := recognize(r, wav)
		took += d
		samples, _, err := transcribetest.ReadWAV16(wav)
		if err != nil {
			log.Fatal(err)
		}
		for _, w := range ws {
			w.Start += offset
			w.End += offset
			if turns {
				s := who
				w.Speaker = &s
			}
			all = append(all, w)
		}
		offset += int64(len(samples))*1000/pocketsphinx.SampleRate + 300
		if !turns {
			ps[i].Speaker = ""
		} else {
			ps[i].Speaker = who
		}
	}
	toks, spk := joinRef(ps)
	return punctmodel.NewEvalSet(name, source, toks, spk, all, took)
}

func recognize(r *pocketsphinx.Recognizer, wav string) ([]transcribe.Word, time.Duration) {
	samples, rate, err := transcribetest.ReadWAV16(wav)
	if err != nil || rate != pocketsphinx.SampleRate {
		log.Fatalf("%s: %v (%d Hz)", wav, err, rate)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	rec, err := r.Recognize(ctx, samples, transcribe.RecognizeOptions{})
	if err != nil {
		log.Fatalf("recognizing %s: %v", wav, err)
	}
	return rec.Words, time.Since(start)
}

func run(name string, args ...string) {
	if b, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		log.Fatalf("%s %v: %v: %s", name, args, err, b)
	}
}

func readText(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	return punctmodel.Gutenberg(string(b))
}
