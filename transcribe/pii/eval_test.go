package pii

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
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/adapters/pocketsphinx"
	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/textfmt"
)

// score counts matches per entity type.
type score struct {
	pred, predOK, gold, goldOK map[string]int
	heard, heardOK             map[string]int // gold entities the recognizer got right
	misses, extras             []string
}

func newScore() *score {
	return &score{pred: map[string]int{}, predOK: map[string]int{}, gold: map[string]int{}, goldOK: map[string]int{},
		heard: map[string]int{}, heardOK: map[string]int{}}
}

// add scores the entities found in one sentence against its labels: a
// found entity is right when a label of the same type matches its text.
// heardText is the formatted recognized text: a label whose text is in it
// was heard right by the recognizer and also counts for heard recall.
func (s *score) add(say string, got []transcribe.Entity, want []gold, heardText string) {
	usedG := make([]bool, len(want))
	for _, e := range got {
		s.pred[e.EntityType]++
		ok := false
		for i, g := range want {
			if !usedG[i] && g.typ == e.EntityType && matches(e.Text, g.text) {
				usedG[i], ok = true, true
				break
			}
		}
		if ok {
			s.predOK[e.EntityType]++
		} else {
			s.extras = append(s.extras, fmt.Sprintf("%s:%q in %q", e.EntityType, e.Text, say))
		}
	}
	for i, g := range want {
		s.gold[g.typ]++
		h := strings.Contains(normText(heardText), normText(g.text))
		if h {
			s.heard[g.typ]++
		}
		if usedG[i] && h {
			s.heardOK[g.typ]++
		}
		if usedG[i] {
			s.goldOK[g.typ]++
		} else {
			s.misses = append(s.misses, fmt.Sprintf("%s:%q in %q (found %s)", g.typ, g.text, say, show(got)))
		}
	}
}

func (s *score) recall(types ...string) float64 { return ratio(s.gold, s.goldOK, types) }

// heardRecall is the recall over the labels the recognizer heard right.
func (s *score) heardRecall(types ...string) float64 { return ratio(s.heard, s.heardOK, types) }

func ratio(all, ok map[string]int, types []string) float64 {
	n, k := 0, 0
	for _, t := range types {
		n += all[t]
		k += ok[t]
	}
	if n == 0 {
		return 1
	}
	return float64(k) / float64(n)
}

func (s *score) precision() float64 {
	n, ok := 0, 0
	for t := range s.pred {
		n += s.pred[t]
		ok += s.predOK[t]
	}
	if n == 0 {
		return 1
	}
	return float64(ok) / float64(n)
}

func (s *score) table() string {
	types := map[string]bool{}
	for t := range s.gold {
		types[t] = true
	}
	for t := range s.pred {
		types[t] = true
	}
	var ts []string
	for t := range types {
		ts = append(ts, t)
	}
	sort.Strings(ts)
	var b strings.Builder
	fmt.Fprintf(&b, "%-26s %5s %5s %9s %7s %6s %7s\n", "type", "gold", "found", "precision", "recall", "heard", "recall")
	for _, t := range ts {
		p, r := "-", "-"
		if s.pred[t] > 0 {
			p = fmt.Sprintf("%.1f%%", 100*float64(s.predOK[t])/float64(s.pred[t]))
		}
		if s.gold[t] > 0 {
			r = fmt.Sprintf("%.1f%%", 100*float64(s.goldOK[t])/float64(s.gold[t]))
		}
		h := "-"
		if s.heard[t] > 0 {
			h = fmt.Sprintf("%.1f%%", 100*float64(s.heardOK[t])/float64(s.heard[t]))
		}
		fmt.Fprintf(&b, "%-26s %5d %5d %9s %7s %6d %7s\n", t, s.gold[t], s.pred[t], p, r, s.heard[t], h)
	}
	fmt.Fprintf(&b, "%-26s %5s %5s %8.1f%%\n", "all", "", "", 100*s.precision())
	fmt.Fprintf(&b, "pattern types (phone, email, card, SSN, date, date_of_birth, money): recall %.1f%%, heard recall %.1f%%\n", 100*s.recall(patternTypes...), 100*s.heardRecall(patternTypes...))
	fmt.Fprintf(&b, "person_name: recall %.1f%%, heard recall %.1f%%; location: recall %.1f%%, heard recall %.1f%%\n",
		100*s.recall("person_name"), 100*s.heardRecall("person_name"), 100*s.recall("location"), 100*s.heardRecall("location"))
	return b.String()
}

// formatted runs the default textfmt stages over words, as the Service
// does before the pii stages.
func formatted(ws []transcribe.Word) []transcribe.Word {
	p := &transcribe.TranscriptParams{}
	p.Normalize()
	return textfmt.Format(ws, p)
}

// spokenWords makes lowercase words with made-up times from spoken text.
func spokenWords(say string) []transcribe.Word { return words(say) }

// Targets (see doc.go for the measured table).
var (
	patternTypes = []string{"phone_number", "email_address", "credit_card_number", "us_social_security_number", "date", "date_of_birth", "money_amount"}
)

// checkTargets asserts recall targets (over all labels, or over the
// labels the recognizer heard right when heard is set) and a precision
// target.
func logScore(t *testing.T, name string, s *score) {
	t.Helper()
	t.Logf("%s:\n%s", name, s.table())
	for _, m := range s.misses {
		t.Logf("%s miss: %s", name, m)
	}
	for _, m := range s.extras {
		t.Logf("%s extra: %s", name, m)
	}
}

func checkTargets(t *testing.T, name string, s *score, heard bool, patternRecall, nameRecall, placeRecall, precision float64) {
	t.Helper()
	recall := s.recall
	if heard {
		recall = s.heardRecall
	}
	if r := recall(patternTypes...); r < patternRecall {
		t.Errorf("%s: pattern-type recall %.1f%% < %.0f%%", name, 100*r, 100*patternRecall)
	}
	if r := recall("person_name"); r < nameRecall {
		t.Errorf("%s: person_name recall %.1f%% < %.0f%%", name, 100*r, 100*nameRecall)
	}
	if r := recall("location"); r < placeRecall {
		t.Errorf("%s: location recall %.1f%% < %.0f%%", name, 100*r, 100*placeRecall)
	}
	if p := s.precision(); p < precision {
		t.Errorf("%s: precision %.1f%% < %.0f%%", name, 100*p, 100*precision)
	}
}

// TestCorpusReference measures the detector on the formatted reference
// text of the corpus (what a perfect recognizer would give).
func TestCorpusReference(t *testing.T) {
	s := newScore()
	for _, c := range corpus() {
		fw := formatted(spokenWords(c.say))
		s.add(c.say, Detector{GuessedCasing: true}.Detect(fw), c.want, transcribe.JoinWords(fw))
	}
	logScore(t, "reference", s)
	checkTargets(t, "reference", s, false, 1, 1, 1, 0.95)
}

// TestHeldOutReference measures the detector on sentences written after
// it was tuned.
func TestHeldOutReference(t *testing.T) {
	s := newScore()
	for _, c := range parseCorpus(heldOutLines) {
		fw := formatted(spokenWords(c.say))
		s.add(c.say, Detector{GuessedCasing: true}.Detect(fw), c.want, transcribe.JoinWords(fw))
	}
	logScore(t, "held out", s)
	checkTargets(t, "held out", s, false, 1, 1, 1, 0.95)
}

// TestCorpusRecognized speaks the corpus with flite, recognizes it with
// pocketsphinx (US English model), formats the words with textfmt and
// measures the detector on the result.
func TestCorpusRecognized(t *testing.T) {
	if testing.Short() {
		t.Skip("recognizes about four minutes of speech")
	}
	cs := corpus()
	recs := recognizeCorpus(t, cs)
	s := newScore()
	wer, nw := 0, 0
	var vw, ve [2]int
	for i, c := range cs {
		fw := formatted(recs[i])
		got := Detector{GuessedCasing: true}.Detect(fw)
		s.add(c.say+" => "+transcribe.JoinWords(fw), got, c.want, transcribe.JoinWords(fw))
		ref := strings.Fields(c.say)
		nw += len(ref)
		e := editDistance(ref, textOf(recs[i]))
		wer += e
		vw[i%2] += len(ref)
		ve[i%2] += e
	}
	t.Logf("recognizer word error rate on the corpus: %.1f%% (%d words; slt %.1f%%, rms %.1f%%)", 100*float64(wer)/float64(nw), nw,
		100*float64(ve[0])/float64(vw[0]), 100*float64(ve[1])/float64(vw[1]))
	// Over the entities the recognizer heard right, the detector meets the
	// targets; over all of them recall is bounded by recognition errors
	// (see doc.go), and those floors guard against regressions.
	logScore(t, "recognized", s)
	// Precision floor 0.75 and name recall floor 0.6 since the tagger
	// (issue 23): it reads the names and places the recognizer wrote for
	// other words ("Murray Rodriguez" for "maria rodriguez", "Pierre",
	// "Carolina"), where the rules found a part or nothing.
	checkTargets(t, "recognized (heard)", s, true, 0.9, 0.85, 0.85, 0.75)
	checkTargets(t, "recognized (all)", s, false, 0.7, 0.6, 0.85, 0.75)
}

func textOf(ws []transcribe.Word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Text
	}
	return out
}

func editDistance(a, b []string) int {
	d := make([]int, len(b)+1)
	for j := range d {
		d[j] = j
	}
	for i := 1; i <= len(a); i++ {
		prev := d[0]
		d[0] = i
		for j := 1; j <= len(b); j++ {
			cur := d[j]
			c := prev
			if a[i-1] != b[j-1] {
				c = min(prev, d[j], d[j-1]) + 1
			}
			d[j] = c
			prev = cur
		}
	}
	return d[len(b)]
}

// ---------------------------------------------------------------------------
// Speech and recognition helpers.

// readWAV reads a 16-bit PCM mono WAV file.
func readWAV(t testing.TB, path string) []int16 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pcm, err := parseWAV(b)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return pcm
}

func parseWAV(b []byte) ([]int16, error) {
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return nil, errors.New("not a WAV file")
	}
	for p := 12; p+8 <= len(b); {
		id, n := string(b[p:p+4]), int(binary.LittleEndian.Uint32(b[p+4:]))
		p += 8
		if id == "fmt " && p+16 <= len(b) {
			if ch, bits := binary.LittleEndian.Uint16(b[p+2:]), binary.LittleEndian.Uint16(b[p+14:]); ch != 1 || bits != 16 {
				return nil, fmt.Errorf("want mono 16-bit, got %d channels %d bits", ch, bits)
			}
		}
		if id == "data" {
			n = min(n, len(b)-p)
			out := make([]int16, n/2)
			for i := range out {
				out[i] = int16(binary.LittleEndian.Uint16(b[p+2*i:]))
			}
			return out, nil
		}
		p += n + n%2
	}
	return nil, errors.New("no data chunk")
}

var (
	recOnce sync.Once
	recog   *pocketsphinx.Recognizer
	recErr  error
)

// recognizer returns the embedded pocketsphinx recognizer shared by the
// package's tests (two decoders, created once).
func recognizer(t testing.TB) *pocketsphinx.Recognizer {
	t.Helper()
	recOnce.Do(func() { recog, recErr = pocketsphinx.New(pocketsphinx.Config{Decoders: 2}) })
	if recErr != nil {
		t.Fatalf("pocketsphinx: %v (install Debian packages libpocketsphinx3 pocketsphinx-en-us: ./scripts/setup.sh)", recErr)
	}
	return recog
}

func TestMain(m *testing.M) {
	code := m.Run()
	if recog != nil {
		recog.Close()
	}
	os.Exit(code)
}

// recognize runs the embedded recognizer (adapters/pocketsphinx) on 16 kHz
// mono samples. Results are cached by audio content under testaudio.Dir()
// so that repeated runs do not decode again.
func recognize(t testing.TB, pcm []int16) []transcribe.Word {
	t.Helper()
	raw := make([]byte, 2*len(pcm))
	for i, v := range pcm {
		binary.LittleEndian.PutUint16(raw[2*i:], uint16(v))
	}
	sum := sha256.Sum256(append(raw, pocketsphinx.ModelName...))
	cache := filepath.Join(testaudio.Dir(), "pii-rec-"+hex.EncodeToString(sum[:12])+".json")
	if b, err := os.ReadFile(cache); err == nil {
		var ws []transcribe.Word
		if json.Unmarshal(b, &ws) == nil {
			return ws
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := recognizer(t).Recognize(ctx, pcm, transcribe.RecognizeOptions{})
	if err != nil {
		t.Fatalf("Recognize: %v", err)
	}
	if b, err := json.Marshal(res.Words); err == nil {
		_ = os.WriteFile(cache, b, 0o644)
	}
	return res.Words
}

// recognizeCorpus synthesizes every sentence (voices slt and rms in turn)
// and recognizes each with the shared recognizer, two at a time.
func recognizeCorpus(t *testing.T, cs []labelled) [][]transcribe.Word {
	t.Helper()
	voices := []string{"slt", "rms"}
	clips := make([][]int16, len(cs))
	for i, c := range cs {
		clips[i] = readWAV(t, testaudio.Speech(t, voices[i%2], c.say))
	}
	out := make([][]transcribe.Word, len(cs))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = recognize(t, clips[i])
			}
		}()
	}
	for i := range cs {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}
