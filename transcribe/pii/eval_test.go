package pii

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

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
		s.add(c.say, Detector{}.Detect(fw), c.want, transcribe.JoinWords(fw))
	}
	logScore(t, "reference", s)
	checkTargets(t, "reference", s, false, 1, 1, 1, 0.95)
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
		got := Detector{}.Detect(fw)
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
	checkTargets(t, "recognized (heard)", s, true, 0.9, 0.85, 0.85, 0.8)
	checkTargets(t, "recognized (all)", s, false, 0.75, 0.75, 0.85, 0.8)
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

// pocketsphinx runs pocketsphinx_continuous on 16 kHz mono samples and
// returns its words; results are cached by audio content.
func pocketsphinx(t testing.TB, pcm []int16) []transcribe.Word {
	t.Helper()
	testaudio.Need(t, "pocketsphinx_continuous")
	var buf bytes.Buffer
	if err := writeWAV(&buf, &transcribe.PCM{SampleRate: 16000, Channels: [][]int16{pcm}}); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(buf.Bytes())
	cache := filepath.Join(testaudio.Dir(), "pii-rec-"+hex.EncodeToString(sum[:12])+".txt")
	out, err := os.ReadFile(cache)
	if err != nil {
		wav := filepath.Join(t.TempDir(), "in.wav")
		if err := os.WriteFile(wav, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
		defer cancel()
		out, err = exec.CommandContext(ctx, "pocketsphinx_continuous", "-infile", wav, "-time", "yes", "-logfn", os.DevNull).Output()
		if err != nil {
			t.Fatalf("pocketsphinx_continuous: %v", err)
		}
		_ = os.WriteFile(cache, out, 0o644)
	}
	return parsePocketsphinx(out)
}

// parsePocketsphinx reads the "word start end confidence" lines of
// pocketsphinx_continuous -time yes, dropping silences, noises and sentence
// markers and the "(2)" pronunciation variant suffix.
func parsePocketsphinx(out []byte) []transcribe.Word {
	var ws []transcribe.Word
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 {
			continue
		}
		start, err1 := strconv.ParseFloat(f[1], 64)
		end, err2 := strconv.ParseFloat(f[2], 64)
		conf, err3 := strconv.ParseFloat(f[3], 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		w := f[0]
		if strings.HasPrefix(w, "<") || strings.HasPrefix(w, "[") || strings.HasPrefix(w, "(") || strings.HasPrefix(w, "++") {
			continue
		}
		if i := strings.IndexByte(w, '('); i > 0 {
			w = w[:i]
		}
		ws = append(ws, transcribe.Word{Text: w, Start: int64(start*1000 + 0.5), End: int64(end*1000 + 0.5), Confidence: min(max(conf, 0), 1)})
	}
	return ws
}

// recognizeCorpus synthesizes every sentence (voices slt and rms in turn),
// joins them with a second of silence into two halves recognized in
// parallel, and returns each sentence's words (times relative to the
// sentence).
func recognizeCorpus(t *testing.T, cs []labelled) [][]transcribe.Word {
	t.Helper()
	voices := []string{"slt", "rms"}
	clips := make([][]int16, len(cs))
	for i, c := range cs {
		clips[i] = readWAV(t, testaudio.Speech(t, voices[i%2], c.say))
	}
	out := make([][]transcribe.Word, len(cs))
	const rate = 16000
	gap := make([]int16, rate)
	var wg sync.WaitGroup
	half := (len(cs) + 1) / 2
	for _, part := range [][2]int{{0, half}, {half, len(cs)}} {
		var pcm []int16
		type seg struct{ lo, hi int64 }
		segs := make([]seg, 0, part[1]-part[0])
		pcm = append(pcm, gap[:rate/2]...)
		for i := part[0]; i < part[1]; i++ {
			lo := int64(len(pcm)) * 1000 / rate
			pcm = append(pcm, clips[i]...)
			segs = append(segs, seg{lo, int64(len(pcm)) * 1000 / rate})
			pcm = append(pcm, gap...)
		}
		wg.Add(1)
		go func(part [2]int) {
			defer wg.Done()
			ws := pocketsphinx(t, pcm)
			for k, sg := range segs {
				i := part[0] + k
				out[i] = []transcribe.Word{}
				for _, w := range ws {
					mid := (w.Start + w.End) / 2
					if mid >= sg.lo-400 && mid < sg.hi+400 {
						w.Start -= sg.lo
						w.End -= sg.lo
						out[i] = append(out[i], w)
					}
				}
			}
		}(part)
	}
	wg.Wait()
	return out
}
