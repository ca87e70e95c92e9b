// Package nlptest holds what the analysis packages' tests share: a
// transcript made directly from written text (what a perfect recognizer
// and formatter would give), and the same text spoken by Debian's flite
// and recognized by the embedded pocketsphinx recognizer, then formatted
// by the default textfmt stages, as in production.
//
// Recognition results are cached on disk under testaudio.Dir(), keyed by a
// hash of the audio and the model name, so a corpus is recognized once per
// machine; synthesized speech is cached by internal/testaudio. Each test
// binary builds at most one recognizer, with two decoders; call Close from
// TestMain.
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: the voices and
// timing constants the helpers use (Voices, WordMillis, GapMillis,
// SentenceGapMillis, ParagraphGapMillis), for tests that lay out text of
// their own.
package nlptest

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/earshot-dev/earshot/adapters/pocketsphinx"
	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/textfmt"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// Word timing of Words: every word lasts WordMillis with GapMillis after
// it; a sentence end adds SentenceGapMillis and a blank line (paragraph
// break) ParagraphGapMillis.
const (
	WordMillis         = 250
	GapMillis          = 50
	SentenceGapMillis  = 400
	ParagraphGapMillis = 2500
)

// Words makes transcript words from written text, one per
// whitespace-separated field, with made-up times (see WordMillis). A blank
// line in text starts a new paragraph (a silence longer than
// export.ParagraphPauseMillis). Confidence is 0.9.
func Words(text string) []transcribe.Word {
	var ws []transcribe.Word
	at := int64(0)
	for pi, para := range strings.Split(text, "\n\n") {
		if pi > 0 && len(ws) > 0 {
			at += ParagraphGapMillis
		}
		for _, f := range strings.Fields(para) {
			ws = append(ws, transcribe.Word{Text: f, Start: at, End: at + WordMillis, Confidence: 0.9})
			at += WordMillis + GapMillis
			if strings.ContainsAny(f[len(f)-1:], ".?!") {
				at += SentenceGapMillis
			}
		}
	}
	return ws
}

// Transcript returns a transcript with the given words and the default
// (normalized) parameters.
func Transcript(ws []transcribe.Word) *transcribe.Transcript {
	t := &transcribe.Transcript{ID: "test", Status: transcribe.StatusProcessing, Words: ws}
	t.Normalize()
	t.Fill()
	return t
}

// Job wraps a transcript in a job for a stage's Apply.
func Job(t *transcribe.Transcript) *transcribe.Job { return &transcribe.Job{Transcript: t} }

// Format runs the default textfmt stages over recognized words, as the
// Service does before the analyses.
func Format(ws []transcribe.Word) []transcribe.Word { return textfmt.Format(ws, nil) }

// Voices alternate over a corpus: one female and one male flite voice,
// both recognized well by the US English model.
var Voices = []string{"slt", "rms"}

var (
	recOnce sync.Once
	recog   *pocketsphinx.Recognizer
	recErr  error
)

func recognizer(t testing.TB) *pocketsphinx.Recognizer {
	t.Helper()
	recOnce.Do(func() { recog, recErr = pocketsphinx.New(pocketsphinx.Config{Decoders: 2}) })
	if recErr != nil {
		t.Fatalf("pocketsphinx: %v (install Debian packages libpocketsphinx3 pocketsphinx-en-us: ./scripts/setup.sh)", recErr)
	}
	return recog
}

// Close frees the test binary's recognizer, if one was made.
func Close() {
	if recog != nil {
		recog.Close()
	}
}

// Recognize speaks each text with flite (Voices in turn), recognizes it
// with pocketsphinx (two at a time) and returns the words formatted by the
// default textfmt stages. Texts are spoken as written: flite reads digits,
// amounts and punctuation aloud as a person would.
func Recognize(t testing.TB, texts []string) [][]transcribe.Word {
	t.Helper()
	out := RecognizeRaw(t, texts)
	for i := range out {
		out[i] = Format(out[i])
	}
	return out
}

// RecognizeRaw is Recognize without the formatting: the recognizer's
// lower-case words and times, for a test that joins several clips into one
// recording and formats that as a whole.
func RecognizeRaw(t testing.TB, texts []string) [][]transcribe.Word {
	t.Helper()
	clips := make([]string, len(texts))
	for i, s := range texts {
		clips[i] = testaudio.Speech(t, Voices[i%len(Voices)], flat(s))
	}
	out := make([][]transcribe.Word, len(texts))
	errs := make([]error, len(texts))
	var wg sync.WaitGroup
	next := make(chan int)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = recognizeFile(t, clips[i])
			}
		}()
	}
	for i := range texts {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return out
}

// flat joins paragraphs into one line for flite.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// recognizeFile recognizes a 16 kHz mono 16-bit WAV file, cached by content.
func recognizeFile(t testing.TB, path string) ([]transcribe.Word, error) {
	pcm, rate, err := transcribetest.ReadWAV16(path)
	if err != nil {
		return nil, err
	}
	if rate != pocketsphinx.SampleRate {
		return nil, fmt.Errorf("%s: %d Hz, want %d", path, rate, pocketsphinx.SampleRate)
	}
	h := sha256.New()
	_ = binary.Write(h, binary.LittleEndian, pcm)
	h.Write([]byte(pocketsphinx.ModelName))
	sum := h.Sum(nil)
	cache := filepath.Join(testaudio.Dir(), "analysis-rec-"+hex.EncodeToString(sum[:12])+".json")
	if c, err := os.ReadFile(cache); err == nil {
		var ws []transcribe.Word
		if json.Unmarshal(c, &ws) == nil {
			return ws, nil
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := recognizer(t).Recognize(ctx, pcm, transcribe.RecognizeOptions{})
	if err != nil {
		return nil, fmt.Errorf("recognizing %s: %w", path, err)
	}
	if c, err := json.Marshal(res.Words); err == nil {
		tmp := cache + ".tmp"
		if os.WriteFile(tmp, c, 0o644) == nil {
			_ = os.Rename(tmp, cache)
		}
	}
	return res.Words, nil
}

// WordErrorRate returns the word error rate of recognized words against
// the reference text, both compared as lower-case letters and digits, and
// the number of reference words.
func WordErrorRate(ref string, got []transcribe.Word) (float64, int) {
	r := Fold(ref)
	var g []string
	for _, w := range got {
		g = append(g, Fold(w.Text)...)
	}
	if len(r) == 0 {
		return 0, 0
	}
	return float64(editDistance(r, g)) / float64(len(r)), len(r)
}

// Fold splits text into lower-case words of letters, digits and inner
// apostrophes, for comparing texts.
func Fold(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
}

// editDistance is the Levenshtein distance between two word sequences.
func editDistance(ref, hyp []string) int {
	prev := make([]int, len(hyp)+1)
	cur := make([]int, len(hyp)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := range ref {
		cur[0] = i + 1
		for j := range hyp {
			sub := prev[j]
			if ref[i] != hyp[j] {
				sub++
			}
			cur[j+1] = min(sub, prev[j+1]+1, cur[j]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(hyp)]
}

// Chooser is a scripted chooser (the Chooser interface of the keyphrases,
// topics and safety stages) that answers with Answer of the options and
// keeps what it was last asked.
type Chooser struct {
	Answer  func(options []string) ([]string, error)
	Task    string
	Text    string
	Options []string
	Max     int
}

// Choose records the question and returns Answer(options).
func (c *Chooser) Choose(ctx context.Context, task, text string, options []string, max int) ([]string, error) {
	c.Task, c.Text, c.Options, c.Max = task, text, options, max
	return c.Answer(options)
}

// Pair is one line of a labelled test set: the label part and the text.
type Pair struct{ Label, Text string }

// ReadPairs reads a labelled test set: one "label | text" per line, both
// trimmed; blank lines and lines starting with "#" are skipped. A line
// without " | " fails the test.
func ReadPairs(t testing.TB, path string) []Pair {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []Pair
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		l, text, ok := strings.Cut(line, " | ")
		if !ok {
			t.Fatalf("%s:%d: no \" | \" in %q", path, i+1, line)
		}
		out = append(out, Pair{strings.TrimSpace(l), strings.TrimSpace(text)})
	}
	return out
}
