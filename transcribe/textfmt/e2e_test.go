package textfmt_test

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/adapters/pocketsphinx"
	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/textfmt"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// The end-to-end tests speak sentences with flite, recognise them with
// Earshot's embedded recognizer (adapters/pocketsphinx, the one the Service
// uses) or, for grammar decoding, the pocketsphinx_continuous CLI (same
// library and US English model), and format the recognized words.
// Sentences are joined with a second of silence, as a speaker pausing
// between sentences.

func text(ws []transcribe.Word) string { return transcribe.JoinWords(ws) }

func params(mod func(p *transcribe.TranscriptParams)) *transcribe.TranscriptParams {
	p := &transcribe.TranscriptParams{AudioURL: "https://example.com/a.wav"}
	if mod != nil {
		mod(p)
	}
	p.Normalize()
	return p
}

// recognizeEmbedded recognizes a 16 kHz mono WAV with adapters/pocketsphinx.
func recognizeEmbedded(t *testing.T, wav string) []transcribe.Word {
	t.Helper()
	r, err := pocketsphinx.New(pocketsphinx.Config{Decoders: 1})
	if err != nil {
		t.Fatalf("pocketsphinx.New: %v", err)
	}
	defer r.Close()
	samples, rate, err := transcribetest.ReadWAV16(wav)
	if err != nil {
		t.Fatal(err)
	}
	if rate != pocketsphinx.SampleRate {
		t.Fatalf("%s: %d Hz", wav, rate)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rec, err := r.Recognize(ctx, samples, transcribe.RecognizeOptions{})
	if err != nil {
		t.Fatalf("Recognize: %v", err)
	}
	return rec.Words
}

// recognize runs pocketsphinx_continuous on a 16 kHz mono WAV and returns
// its words with times. grammar, when not empty, is a JSGF grammar body
// used instead of the language model (the model's language model never
// outputs filler words, whatever is said).
func recognize(t *testing.T, wav, grammar string) []transcribe.Word {
	t.Helper()
	testaudio.Need(t, "pocketsphinx_continuous")
	args := []string{"-infile", wav, "-time", "yes", "-logfn", os.DevNull}
	if grammar != "" {
		g := filepath.Join(t.TempDir(), "g.gram")
		body := "#JSGF V1.0;\ngrammar g;\npublic <s> = " + grammar + ";\n"
		if err := os.WriteFile(g, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "-jsgf", g)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "pocketsphinx_continuous", args...).Output()
	if err != nil {
		t.Fatalf("pocketsphinx_continuous: %v", err)
	}
	return parsePocketsphinx(out)
}

// parsePocketsphinx reads the "word start end confidence" lines of
// pocketsphinx_continuous -time yes, dropping silences, noises and
// sentence markers and the "(2)" pronunciation variant suffix.
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
		ws = append(ws, transcribe.Word{Text: w, Start: int64(start*1000 + 0.5), End: int64(end*1000 + 0.5),
			Confidence: min(max(conf, 0), 1)})
	}
	return ws
}

// speech synthesizes the sentences with voice and joins them with a second
// of silence.
func speech(t *testing.T, voice string, sentences ...string) string {
	t.Helper()
	if len(sentences) == 1 {
		return testaudio.Speech(t, voice, sentences[0])
	}
	dir := t.TempDir()
	sil := filepath.Join(dir, "sil.wav")
	if b, err := exec.Command("sox", "-n", "-r", "16000", "-c", "1", "-b", "16", sil, "trim", "0", "1").CombinedOutput(); err != nil {
		t.Fatalf("sox: %v: %s", err, b)
	}
	var in []string
	for i, s := range sentences {
		if i > 0 {
			in = append(in, sil)
		}
		in = append(in, testaudio.Speech(t, voice, s))
	}
	out := filepath.Join(dir, "joined.wav")
	if b, err := exec.Command("sox", append(in, out)...).CombinedOutput(); err != nil {
		t.Fatalf("sox: %v: %s", err, b)
	}
	return out
}

// TestEndToEndFliteSpeech formats one recording of several sentences
// (numbers, money, times, dates, names, places, a phone number, a
// question), each sentence followed by a second of silence, recognized
// once and formatted with several parameter sets.
func TestEndToEndFliteSpeech(t *testing.T) {
	if testing.Short() {
		t.Skip("recognizes real speech")
	}
	t.Parallel()
	ws := recognizeEmbedded(t, speech(t, "slt",
		"my name is sarah and i paid twenty five dollars at three thirty p m",
		"what time is it",
		"it is ten percent",
		"please call five five five one two three four",
		"we flew from new york to texas on january fifth",
		"the meeting is at seven o'clock on monday",
		"the total was three dollars and fifty cents",
	))
	t.Logf("recognized %q", text(ws))
	cases := []struct {
		name   string
		params func(p *transcribe.TranscriptParams)
		want   string
	}{
		{"defaults", nil, "My name is Sarah and I paid $25 at 3:30 PM. What time is it? It is 10%. " +
			"Please call 555-1234. We flew from New York to Texas on January 5th. " +
			"The meaning is at 7 o'clock on Monday. The total is $3.50."},
		{"custom spelling", func(p *transcribe.TranscriptParams) {
			p.CustomSpelling = []transcribe.CustomSpelling{{From: []string{"sarah"}, To: "Sara"}, {From: []string{"new york"}, To: "NYC"}}
		}, "My name is Sara and I paid $25 at 3:30 PM. What time is it? It is 10%. " +
			"Please call 555-1234. We flew from NYC to Texas on January 5th. " +
			"The meaning is at 7 o'clock on Monday. The total is $3.50."},
		{"no formatting", func(p *transcribe.TranscriptParams) { p.FormatText = transcribe.Ptr(false) },
			"my name is sarah and i paid twenty five dollars at three thirty pm. what time is it? it is ten percent. " +
				"please call five five five one two three four. we flew from new york to texas on january fifth. " +
				"the meaning is at seven o'clock on monday. the total is three dollars and fifty cents."},
		{"no punctuation", func(p *transcribe.TranscriptParams) { p.Punctuate = transcribe.Ptr(false) },
			"My name is Sarah and I paid $25 at 3:30 PM what time is it it is 10% " +
				"please call 555-1234 we flew from New York to Texas on January 5th " +
				"the meaning is at 7 o'clock on Monday the total is $3.50"},
	}
	for _, c := range cases {
		out := textfmt.Format(ws, params(c.params))
		if got := text(out); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
		checkSpans(t, ws, out)
	}
}

// TestEndToEndFillers recognizes flite speech with filler words. The
// language model of the US English model never outputs fillers, so this
// recording is decoded with a small grammar that allows them.
func TestEndToEndFillers(t *testing.T) {
	if testing.Short() {
		t.Skip("recognizes real speech")
	}
	t.Parallel()
	ws := recognize(t, speech(t, "rms", "so um what time is it", "i think uh we should go"),
		"( i | think | we | should | go | um | uh | hmm | well | what | time | is | it | so )+")
	t.Logf("recognized %q", text(ws))
	// The grammar lets the decoder add a stray word at the very end, so
	// only the start is compared.
	if got := text(ws); !strings.HasPrefix(got, "so um what time is it i think uh we should go") {
		t.Fatalf("recognizer did not hear the fillers: %q", got)
	}
	out := textfmt.Format(ws, params(nil))
	got := text(out)
	if want := "So what time is it? I think we should go"; !strings.HasPrefix(got, want) {
		t.Errorf("fillers removed:\n got %q\nwant %q...", got, want)
	}
	for _, w := range out {
		if textfmt.IsFiller(w.Text) {
			t.Errorf("filler %q kept", w.Text)
		}
	}
	checkSpans(t, ws, out)
	got = text(textfmt.Format(ws, params(func(p *transcribe.TranscriptParams) { p.Disfluencies = transcribe.Ptr(true) })))
	if want := "So um what time is it? I think uh we should go"; !strings.HasPrefix(got, want) {
		t.Errorf("fillers kept:\n got %q\nwant %q...", got, want)
	}
}

// checkSpans checks that every recognized word's time span lies inside one
// formatted word (fillers excepted) and that times stay monotonic.
func checkSpans(t *testing.T, in, out []transcribe.Word) {
	t.Helper()
	for i := 1; i < len(out); i++ {
		if out[i].Start < out[i-1].End || out[i].Start > out[i].End {
			t.Errorf("word %d %q (%d-%d) overlaps or inverts after %q (%d-%d)", i, out[i].Text, out[i].Start, out[i].End, out[i-1].Text, out[i-1].Start, out[i-1].End)
		}
	}
	j := 0
	for _, w := range in {
		for j < len(out) && out[j].End < w.End {
			j++
		}
		if textfmt.IsFiller(w.Text) {
			continue
		}
		if j == len(out) || out[j].Start > w.Start || out[j].End < w.End {
			t.Errorf("recognized word %q (%d-%d) has no formatted word spanning it", w.Text, w.Start, w.End)
		}
	}
}
