package pocketsphinx

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ebitengine/purego"

	"github.com/earshot-dev/earshot/internal/childtest"
	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe"
)

// boostCrashCases are the word_boost lists of issue 11 that killed the
// server with "SIGSEGV ... signal arrived during cgo execution" in
// ps_process_raw, each with flite speech that made the decoder
// hypothesise the added words and so crashed, batch and streaming alike,
// before the fix (see "Word boost" in doc.go). After it the boosted words
// must really be recognized: want lists words the transcript must hold,
// "a|b" meaning either. A boosted "1" is a homophone of the dictionary's
// "one", which the base model knows far better, so either is right.
var boostCrashCases = []struct {
	name  string
	terms []string
	text  string
	want  []string
}{
	{
		name:  "numbers_1_to_20",
		terms: seq("", 1, 20),
		text:  "one two three four five six seven eight nine ten",
		want:  []string{"one|1", "two|2", "three|3", "four|4", "five|5", "six|6", "seven|7", "eight|8", "nine|9", "ten|10"},
	},
	{
		name:  "term0_to_term19",
		terms: seq("term", 0, 19),
		text:  "term zero term one term two term three term four term five",
		want:  []string{"term0", "term1", "term2", "term3", "term4", "term5"},
	},
	{
		name: "realistic",
		terms: []string{"windows 11", "mp4", "k8s", "covid-19", "gpt 4o", "python 3.12", "h264", "web3", "5g", "ipv6",
			"s3", "ec2", "b2b", "24/7", "x86", "arm64", "utf-8", "mp3", "4k", "1080p"},
		text: "we moved to windows eleven, m p four and k eight s",
		want: []string{"windows", "11", "mp4", "k8s"},
	},
}

// seq returns prefix+i for i in from..to.
func seq(prefix string, from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, fmt.Sprint(prefix, i))
	}
	return out
}

// TestWordBoostCrashRegression runs each list of issue 11 through Recognize
// ("batch") and through a Stream ("stream"), and ("lm") checks that the
// boost leaves the base model's vocabulary alone and scores every frequent
// word after every boosted word in the boosted search's language model,
// the lookups that ran off the base model's trie: each in a child
// process (internal/childtest), so that a native crash fails the subtest
// with "child died with SIGSEGV" and the crash report instead of killing
// the test binary. Before the fix every one of the nine died with SIGSEGV.
func TestWordBoostCrashRegression(t *testing.T) {
	t.Parallel()
	for _, c := range boostCrashCases {
		for _, mode := range []string{"batch", "stream", "lm"} {
			t.Run(c.name+"/"+mode, func(t *testing.T) {
				t.Parallel()
				childtest.Run(t, func(t *testing.T) {
					if mode == "lm" {
						checkBoostedLM(t, c.terms)
						return
					}
					r, err := New(Config{Decoders: 1})
					if err != nil {
						t.Fatal(err)
					}
					defer r.Close()
					audio := wav(t, testaudio.Speech(t, "slt", c.text))
					var got []transcribe.Word
					if mode == "batch" {
						res, err := r.Recognize(context.Background(), audio, transcribe.RecognizeOptions{WordBoost: c.terms})
						if err != nil {
							t.Fatal(err)
						}
						got = res.Words
					} else {
						got = streamWords(t, r, audio, c.terms)
					}
					t.Logf("%s: %q", mode, words(got))
					for _, w := range c.want {
						if !hasAnyWord(got, strings.Split(w, "|")) {
							t.Errorf("boosted %q not recognized in %q (said: %q)", w, words(got), c.text)
						}
					}
				})
			})
		}
	}
}

// streamWords feeds audio to a boosted stream in 100 ms writes, asking for a
// partial hypothesis after each as the realtime endpoint does, and returns
// the final words.
func streamWords(t *testing.T, r *Recognizer, audio []int16, boost []string) []transcribe.Word {
	t.Helper()
	st, err := r.NewStream(context.Background(), transcribe.StreamOptions{SampleRate: SampleRate, WordBoost: boost})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const step = SampleRate / 10
	for i := 0; i < len(audio); i += step {
		if err := st.Write(audio[i:min(i+step, len(audio))]); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Partial(); err != nil {
			t.Fatal(err)
		}
	}
	h, err := st.EndUtterance()
	if err != nil {
		t.Fatal(err)
	}
	return h.Words
}

func hasAnyWord(ws []transcribe.Word, any []string) bool {
	for _, w := range any {
		if ok, _ := hasWord(ws, w); ok {
			return true
		}
	}
	return false
}

func mustParseBoost(t testing.TB, terms []string) *boostPlan {
	t.Helper()
	p, err := parseBoost(terms, "default")
	if err != nil || p == nil {
		t.Fatalf("parseBoost(%q) = %v, %v", terms, p, err)
	}
	return p
}

// checkBoostedLM boosts terms on a new decoder and checks the invariant
// whose violation was the crash: the words the boost adds to the
// dictionary never enter the base model (its trie cannot score word ids
// past the vocabulary it was read with, so its size must not change); the
// boosted search knows every boosted word through the boost model. Then
// it scores every frequent word after every boosted word.
func checkBoostedLM(t *testing.T, terms []string) {
	cfg := Config{}.withDefaults()
	l, err := loadLib(cfg.LibraryPath)
	if err != nil {
		t.Fatal(err)
	}
	d, err := newDecoder(l, cfg.files(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.free()
	sc := newLMScorer(t)
	size := sc.unigrams(d.lm)
	p := mustParseBoost(t, terms)
	if err := d.applyBoost(p); err != nil {
		t.Fatal(err)
	}
	defer d.clearBoost()
	if !d.extended {
		t.Fatal("no word was added to the dictionary: the test proves nothing")
	}
	if after := sc.unigrams(d.lm); after != size {
		t.Errorf("the base language model grew from %d to %d words", size, after)
	}
	lm := d.l.psGetLm(d.ps, boostSearch)
	for _, w := range p.words() {
		if d.lookup(w) == "" {
			t.Errorf("%q not in the dictionary", w)
		}
		if d.l.ngramWid(lm, w) == d.l.ngramUnknownWid(lm) {
			t.Errorf("%q unknown to the boosted search's language model", w)
		}
	}
	if slices.Contains(p.words(), "11") && d.lookup("11(2)") == "" {
		t.Errorf("alternate pronunciation 11(2) missing")
	}
	sc.scoreAll(t, d, p.words())
}

// lmScorer calls sphinxbase's n-gram scoring directly (test only).
type lmScorer struct {
	tg     func(m uintptr, w3, w2, w1 int32, nUsed *int32) int32
	bg     func(m uintptr, w2, w1 int32, nUsed *int32) int32
	counts func(m uintptr) *uint32 // ngram_model_get_counts: n-gram counts, unigrams first
}

// unigrams returns the number of words of a language model.
func (s *lmScorer) unigrams(m uintptr) uint32 { return *s.counts(m) }

func newLMScorer(t testing.TB) *lmScorer {
	t.Helper()
	_, sb, err := findLibs("")
	if err != nil {
		t.Fatal(err)
	}
	h, err := purego.Dlopen(sb, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		t.Fatal(err)
	}
	s := &lmScorer{}
	purego.RegisterLibFunc(&s.tg, h, "ngram_tg_score")
	purego.RegisterLibFunc(&s.bg, h, "ngram_bg_score")
	purego.RegisterLibFunc(&s.counts, h, "ngram_model_get_counts")
	return s
}

// frequentWords are words whose n-gram ranges in the base model are the
// largest: the lookups that ran off the trie before the fix.
var frequentWords = []string{"</s>", "the", "and", "of", "to", "a", "in", "is", "that", "it", "one", "ten", "term", "windows"}

// scoreAll scores, in the language model of the active boosted search,
// every frequent word after every boosted word (bigram and trigram
// histories) and every boosted word after every frequent word.
func (s *lmScorer) scoreAll(t testing.TB, d *decoder, boosted []string) {
	t.Helper()
	lm := d.l.psGetLm(d.ps, boostSearch)
	if lm == 0 {
		t.Fatal("no boosted search")
	}
	unk := d.l.ngramUnknownWid(lm)
	wid := func(w string) int32 { return d.l.ngramWid(lm, w) }
	var n int32
	for _, b := range boosted {
		bw := wid(b)
		if bw == unk {
			continue
		}
		for _, f := range frequentWords {
			fw := wid(f)
			if fw == unk {
				continue
			}
			s.bg(lm, fw, bw, &n)
			s.bg(lm, bw, fw, &n)
			s.tg(lm, fw, bw, bw, &n)
			s.tg(lm, fw, bw, fw, &n)
			s.tg(lm, bw, fw, bw, &n)
		}
	}
}
