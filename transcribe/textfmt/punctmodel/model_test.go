package punctmodel_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/textfmt"
	"github.com/earshot-dev/earshot/transcribe/textfmt/punctmodel"
)

// modelSHA256 is the checksum of the committed model.bin.gz whose
// training figures the package documentation gives.
const modelSHA256 = "b4d9405bc17fbfd9cffbe524bd97816e49d098019ab368b73bc555f86706e4a9"

// lexiconSHA256 is the checksum of the committed lexicon.gz whose figures
// the package documentation gives.
const lexiconSHA256 = "ab470261c390d1293d307992d900b221f46e5b68768b135d0b7b185afa0f7bab"

// questionsSHA256 is the checksum of the committed questions.bin.gz whose
// figures the package documentation gives.
const questionsSHA256 = "9f3a0ade3d23c589f54f054bb361a5f02ac86a806b2ad2c42c7f45f1cd6063a9"

// capitalsSHA256 is the checksum of the committed capitals.bin.gz whose
// figures the package documentation gives.
const capitalsSHA256 = "4bc6b7945bb6c6b4fa2b30d91b199b3f864cf1dccbc53bec480d9600c0d3e8b8"

func TestCommittedModel(t *testing.T) {
	t.Parallel()
	if got := punctmodel.CapitalsChecksum(); got != capitalsSHA256 {
		t.Fatalf("capitals.bin.gz sha256 %s, the documented classifier is %s: train it again with the documented command or update the figures", got, capitalsSHA256)
	}
	if got := punctmodel.QuestionsChecksum(); got != questionsSHA256 {
		t.Fatalf("questions.bin.gz sha256 %s, the documented classifier is %s: train it again with the documented command or update the figures", got, questionsSHA256)
	}
	if got := punctmodel.Checksum(); got != modelSHA256 {
		t.Fatalf("model.bin.gz sha256 %s, the documented model is %s: retrain with the documented command or update the figures", got, modelSHA256)
	}
	if got := punctmodel.LexiconChecksum(); got != lexiconSHA256 {
		t.Fatalf("lexicon.gz sha256 %s, the documented lexicon is %s: count it again with the documented command or update the figures", got, lexiconSHA256)
	}
	m, err := punctmodel.Default()
	if err != nil {
		t.Fatalf("the committed model does not load: %v", err)
	}
	t.Logf("model tables: %.1f MB in memory", float64(m.Bytes())/(1<<20))
	if _, err := punctmodel.Read(strings.NewReader("not gzip")); err == nil {
		t.Error("Read accepted a file that is not a model")
	}
	for _, bad := range []string{"not gzip", gzipped("word-without-tab\n"), gzipped("\tForm\n")} {
		if _, err := punctmodel.ReadLexicon(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadLexicon accepted %q", bad)
		}
	}
	// A lexicon written and read back is the same.
	lx := punctmodel.Lexicon{Cased: map[string]string{"nasa": "NASA"}, Known: map[string]struct{}{"video": {}}, Pairs: map[string]struct{}{"scotland yard": {}}}
	var buf bytes.Buffer
	if err := punctmodel.WriteLexicon(&buf, lx); err != nil {
		t.Fatal(err)
	}
	back, err := punctmodel.ReadLexicon(&buf)
	if err != nil || !reflect.DeepEqual(back, lx) {
		t.Errorf("lexicon read back %+v, %v; want %+v", back, err, lx)
	}
	if f := m.WithLexicon(lx).Case([]string{"nasa", "video", "scotland", "yard"}); f[0] != "NASA" || f[1] != "" {
		t.Errorf("WithLexicon: %q", f)
	}
}

func gzipped(s string) string {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.String()
}

var heldOut = sync.OnceValues(func() (punctmodel.EvalFile, error) {
	var f punctmodel.EvalFile
	b, err := os.ReadFile("testdata/heldout.json")
	if err != nil {
		return f, err
	}
	return f, json.Unmarshal(b, &f)
})

// punctuate runs the punctuate stage (the model, or the pause-only
// baseline) on the words of ws and scores its marks.
func punctuate(ws []punctmodel.EvalWord, pauseOnly bool) punctmodel.Scores {
	words := punctmodel.Words(ws)
	textfmt.Punctuator{PauseOnly: pauseOnly}.Punctuate(words)
	gold := make([]punctmodel.Mark, len(ws))
	pred := make([]punctmodel.Mark, len(ws))
	for i := range ws {
		gold[i], pred[i] = ws[i].Mark, punctmodel.MarkOf(words[i].Text)
	}
	return punctmodel.Score(gold, pred)
}

// formatted runs the punctuate stage (the model, or the pause-only
// baseline) and the casing stage on the words of ws.
func formatted(ws []punctmodel.EvalWord, pauseOnly bool) []transcribe.Word {
	return formattedBy(ws, textfmt.Punctuator{PauseOnly: pauseOnly})
}

// formattedBy is formatted with the punctuate stage pu.
func formattedBy(ws []punctmodel.EvalWord, pu textfmt.Punctuator) []transcribe.Word {
	p := &transcribe.TranscriptParams{}
	p.Normalize()
	job := &transcribe.Job{Transcript: &transcribe.Transcript{TranscriptParams: *p, Words: punctmodel.Words(ws)}}
	_ = pu.Apply(context.Background(), job)
	textfmt.Casing{}.Case(job.Transcript.Words)
	return job.Transcript.Words
}

// names returns how many of the reference's proper nouns (words the
// reference capitalises inside a sentence, other than "I") the
// punctuate and casing stages capitalise, of how many.
func names(ws []punctmodel.EvalWord, pauseOnly bool) (hit, total int) {
	hit, total, _ = nameMisses(ws, pauseOnly)
	return
}

// nameMisses is names with the words it missed, each with the words
// around it as the stages wrote them.
func nameMisses(ws []punctmodel.EvalWord, pauseOnly bool) (hit, total int, misses []string) {
	return namesIn(ws, formatted(ws, pauseOnly))
}

// namesIn is nameMisses on out, the words of ws as the stages wrote them.
func namesIn(ws []punctmodel.EvalWord, out []transcribe.Word) (hit, total int, misses []string) {
	for i, w := range ws {
		if w.Begins || w.Form == "" || w.Word == punctmodel.NumberWord || w.Word == "i" || strings.HasPrefix(w.Word, "i'") ||
			!strings.ContainsAny(w.Form[:1], "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
			continue
		}
		total++
		if t := out[i].Text; t != "" && t[:1] == strings.ToUpper(t[:1]) {
			hit++
			continue
		}
		var ctx []string
		for _, x := range out[max(i-3, 0):min(i+3, len(out))] {
			ctx = append(ctx, x.Text)
		}
		misses = append(misses, fmt.Sprintf("%s (%q)", w.Form, strings.Join(ctx, " ")))
	}
	return
}

// TestHeldOut measures the model and the pause-only rules side by side on
// the committed held-out sample: (a) the recognizer's words and times on
// speech (the librivox clips of real read speech; held-out chapters read
// by flite voices), the gold marks aligned from the punctuated reference,
// and (b) the reference words with the times of the recognized words
// aligned to them. The floors sit a little under the figures the package
// documentation reports.
func TestHeldOut(t *testing.T) {
	t.Parallel()
	f, err := heldOut()
	if err != nil {
		t.Fatal(err)
	}
	var recM, recB, refM, refB punctmodel.Scores
	var nameM, nameB, nameN int
	for _, s := range f.Sets {
		for _, c := range []struct {
			kind string
			ws   []punctmodel.EvalWord
			m, b *punctmodel.Scores
		}{{"recognized", s.Recognized, &recM, &recB}, {"reference", s.Reference, &refM, &refB}} {
			m, b := punctuate(c.ws, false), punctuate(c.ws, true)
			c.m.Merge(m)
			c.b.Merge(b)
			t.Logf("%s, %s words (%d): sentence end model %v | pause-only %v", s.Name, c.kind, len(c.ws), m.SentenceEnd, b.SentenceEnd)
			t.Logf("   question model %v | pause-only %v", m.Question, b.Question)
			t.Logf("   comma model %v | pause-only %v", m.Comma, b.Comma)
		}
		hm, n := names(s.Reference, false)
		hb, _ := names(s.Reference, true)
		nameM, nameB, nameN = nameM+hm, nameB+hb, nameN+n
		t.Logf("   names capitalised (reference words): model %d/%d, gazetteer alone %d/%d", hm, n, hb, n)
	}
	for _, c := range []struct {
		kind string
		m, b punctmodel.Scores
		fl   floor
	}{{"recognized", recM, recB, floorRecognized}, {"reference", refM, refB, floorReference}} {
		t.Logf("ALL %s: sentence end model %.3f vs pause-only %.3f (x%.2f); question %.3f vs %.3f; comma %.3f vs %.3f",
			c.kind, c.m.SentenceEnd.F(), c.b.SentenceEnd.F(), c.m.SentenceEnd.F()/max(c.b.SentenceEnd.F(), 1e-9),
			c.m.Question.F(), c.b.Question.F(), c.m.Comma.F(), c.b.Comma.F())
		if f := c.m.SentenceEnd.F(); f < c.fl.sentenceEnd || f < c.fl.overPause*c.b.SentenceEnd.F() {
			t.Errorf("%s: sentence-end F1 %.3f, want >= %.2f and >= %.2f x pause-only %.3f", c.kind, f, c.fl.sentenceEnd, c.fl.overPause, c.b.SentenceEnd.F())
		}
		if f := c.m.Question.F(); f < c.fl.question {
			t.Errorf("%s: question F1 %.3f, want >= %.2f", c.kind, f, c.fl.question)
		}
		if f := c.m.Comma.F(); f < c.fl.comma {
			t.Errorf("%s: comma F1 %.3f, want >= %.2f", c.kind, f, c.fl.comma)
		}
	}
	rate := float64(nameM) / float64(max(nameN, 1))
	t.Logf("ALL names capitalised: model %d/%d (%.1f%%), gazetteer alone %d/%d (%.1f%%)", nameM, nameN, 100*rate, nameB, nameN, 100*float64(nameB)/float64(max(nameN, 1)))
	if rate < floorNames {
		t.Errorf("names capitalised %.3f, want >= %.2f", rate, floorNames)
	}
}

// The floors of TestHeldOut, a little under the committed model's
// figures (see the package documentation). Issue 22 asks for sentence-end
// F1 0.75 and 1.5 times the pause-only rules, question F1 0.6: the model
// does not reach them on this sample yet, and the floors say where it is.
type floor struct{ sentenceEnd, overPause, question, comma float64 }

var (
	floorRecognized = floor{sentenceEnd: 0.63, overPause: 1.20, question: 0.34, comma: 0.50}
	floorReference  = floor{sentenceEnd: 0.70, overPause: 1.38, question: 0.60, comma: 0.55}
)

const floorNames = 0.895

// TestCost compares the model's time on each held-out recording with the
// recognizer's time for its audio (recorded in the sample when it was
// made on this kind of machine): the model must cost at most 2 % of it.
func TestCost(t *testing.T) {
	t.Parallel()
	f, err := heldOut()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := punctmodel.Default(); err != nil {
		t.Fatal(err)
	}
	for _, s := range f.Sets {
		words := punctmodel.Words(s.Recognized)
		const rounds = 20
		start := time.Now()
		for range rounds {
			ws := append([]transcribe.Word(nil), words...)
			textfmt.Punctuator{}.Punctuate(ws)
		}
		per := time.Since(start) / rounds
		ratio := float64(per) / float64(time.Duration(s.RecognizeMs)*time.Millisecond)
		t.Logf("%s: %d words, model %v, recognition %v: %.3f%% (GOMAXPROCS %d)", s.Name, len(words), per,
			time.Duration(s.RecognizeMs)*time.Millisecond, 100*ratio, runtime.GOMAXPROCS(0))
		if ratio > 0.02 {
			t.Errorf("%s: the model takes %.2f%% of the recognition time, want <= 2%%", s.Name, 100*ratio)
		}
	}
}

func BenchmarkMarks(b *testing.B) {
	f, err := heldOut()
	if err != nil {
		b.Fatal(err)
	}
	m, err := punctmodel.Default()
	if err != nil {
		b.Fatal(err)
	}
	words, gaps, _ := punctmodel.Inputs(f.Sets[0].Recognized)
	b.ReportAllocs()
	for b.Loop() {
		m.Marks(words, gaps)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(words)), "ns/word")
}

func TestTurnEnd(t *testing.T) {
	t.Parallel()
	m, err := punctmodel.Default()
	if err != nil {
		t.Fatal(err)
	}
	done := m.TurnEnd(strings.Fields("i think the food was terrible"), 300)
	open := m.TurnEnd(strings.Fields("i think the food was in the"), 300)
	t.Logf("turn end after %q: %.3f; after %q: %.3f", "...was terrible", done, "...was in the", open)
	if done < 0.2 || open > 0.05 {
		t.Errorf("turn-end probabilities %.3f (complete) and %.3f (mid-phrase)", done, open)
	}
	if p := m.TurnEnd(nil, 1000); p != 0 {
		t.Errorf("no words: %v", p)
	}
}

func TestMarksAndCase(t *testing.T) {
	t.Parallel()
	m, err := punctmodel.Default()
	if err != nil {
		t.Fatal(err)
	}
	// The words and pauses pocketsphinx gives for flite's awb voice
	// reading five sentences at its own pace (server/e2e's
	// TestFiveSentencesFiveSentiments).
	words := strings.Fields("the food was terrible i absolutely love this product my new job is wonderful where did you go")
	gaps := make([]punctmodel.Gap, len(words))
	gaps[3].PauseMs, gaps[8].PauseMs, gaps[13].PauseMs = 70, 90, 90
	var b strings.Builder
	for i, mk := range m.Marks(words, gaps) {
		fmt.Fprintf(&b, "%s%s ", words[i], mk)
	}
	got := strings.TrimSpace(b.String())
	t.Logf("%s", got)
	if want := "the food was terrible. i absolutely love this product. my new job is wonderful. where did you go?"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	forms := m.Case(strings.Fields("we went to london with mrs dashwood and the fbi"))
	if forms[3] != "London" || forms[6] != "Dashwood" || forms[0] != "" || forms[2] != "" {
		t.Errorf("casing %q", forms)
	}
}

// TestEndMovesBackToPause: recognized words of flite reading "... survive
// the mites on their own. Mortgage rates have roughly doubled ..." with a
// pause of 30 ms (jitter taken off) only before "mortgage"; greedy decoding alone gave "somewhere
// around, mortgage. Rates have ...".
func TestEndMovesBackToPause(t *testing.T) {
	t.Parallel()
	m, err := punctmodel.Default()
	if err != nil {
		t.Fatal(err)
	}
	words := strings.Fields("some gatekeepers now planned wild flowers trips and feed their teeth sugar syrup in the eye and others breathe clean from colonies that survive the night somewhere around mortgage rates have roughly doubled in the past two years")
	gaps := make([]punctmodel.Gap, len(words))
	gaps[slices.Index(words, "others")-1].PauseMs = 60 // after "and"
	at := slices.Index(words, "around")
	gaps[at].PauseMs = 30
	marks := m.Marks(words, gaps)
	if !marks[at].EndsSentence() || marks[at+1] != punctmodel.None {
		t.Errorf("marks %v: want a sentence end after %q, none after %q", marks, words[at], words[at+1])
	}
}

// TestOffsets: offsets survive a write and a read (the committed model,
// of the first file format, has no unpaused offset), and a large negative
// unpaused offset keeps sentence ends off the gaps without a pause only.
func TestOffsets(t *testing.T) {
	t.Parallel()
	m, err := punctmodel.Default()
	if err != nil {
		t.Fatal(err)
	}
	o := m.Offsets()
	if o.Unpaused != 0 || o.SentenceEnd != 8000 || o.Question != -2000 {
		t.Fatalf("committed offsets %+v, want sentence end 8000, question -2000 (doc.go)", o)
	}
	o.Unpaused = -1 << 20
	c := m.WithOffsets(o)
	var buf bytes.Buffer
	if err := c.Write(&buf); err != nil {
		t.Fatal(err)
	}
	r, err := punctmodel.Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if r.Offsets() != o {
		t.Fatalf("read back %+v, wrote %+v", r.Offsets(), o)
	}
	words := strings.Fields("the food was terrible i absolutely love this product my new job is wonderful where did you go")
	gaps := make([]punctmodel.Gap, len(words))
	gaps[8].PauseMs = 90
	marks := r.Marks(words, gaps)
	for i, mk := range marks[:len(marks)-1] {
		if mk.EndsSentence() && gaps[i].PauseMs == 0 {
			t.Errorf("sentence end after %q, a gap without a pause", words[i])
		}
	}
	if !marks[8].EndsSentence() {
		t.Errorf("no sentence end after %q (90 ms pause): %v", words[8], marks)
	}
	if m.Marks(words, gaps)[3] != punctmodel.Period {
		t.Errorf("the committed model lost the sentence end after %q", words[3])
	}
}
