package export

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
)

func sentenceTexts(r *SentencesResponse) []string {
	var out []string
	for _, s := range r.Sentences {
		out = append(out, s.Text)
	}
	return out
}

func TestSentencesPunctuated(t *testing.T) {
	tr := transcriptOf(
		evenWords("Hello there. Mr. Smith said (quietly.) Why? Because!", 0, "A"),
		evenWords("no punctuation here yet", 10000, "B"),
		evenWords("Back to A.", 20000, "A"),
	)
	got := sentenceTexts(Sentences(tr))
	want := []string{"Hello there.", "Mr. Smith said (quietly.)", "Why?", "Because!", "no punctuation here yet", "Back to A."}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("sentences %q\nwant %q", got, want)
	}
	s := Sentences(tr).Sentences[4]
	if s.Speaker == nil || *s.Speaker != "B" || s.Start != 10000 || s.End != 11500 || len(s.Words) != 4 {
		t.Errorf("speaker B sentence = %+v", s)
	}
}

func TestSentencesUnpunctuated(t *testing.T) {
	ws := []transcribe.Word{
		w("so", 0, 200, ""), w("i", 300, 400, ""), w("went", 500, 800, ""),
		w("home", 800+SentencePauseMillis, 2000, ""),
		w("then", 2000+SentencePauseMillis-1, 3000, ""), // just under the pause
	}
	got := sentenceTexts(Sentences(transcriptOf(ws)))
	if strings.Join(got, "|") != "so i went|home then" {
		t.Errorf("sentences %q", got)
	}
}

func TestSentencesMaxWordsCutsAtLongestGap(t *testing.T) {
	// 40 unpunctuated words 100 ms apart, with one 300 ms gap after word 20.
	var ws []transcribe.Word
	var at int64
	for i := range 40 {
		ws = append(ws, w("w", at, at+100, ""))
		at += 200
		if i == 20 {
			at += 300
		}
	}
	r := Sentences(transcriptOf(ws))
	if len(r.Sentences) != 2 || len(r.Sentences[0].Words) != 21 || len(r.Sentences[1].Words) != 19 {
		var lens []int
		for _, s := range r.Sentences {
			lens = append(lens, len(s.Words))
		}
		t.Errorf("sentence lengths %v, want [21 19]", lens)
	}
	// With no gap to prefer, cut exactly at the cap.
	ws = nil
	for i := range 65 {
		ws = append(ws, w("w", int64(i)*200, int64(i)*200+100, ""))
	}
	r = Sentences(transcriptOf(ws))
	for i, s := range r.Sentences {
		if len(s.Words) > UnpunctuatedMaxWords {
			t.Errorf("sentence %d has %d words", i, len(s.Words))
		}
	}
	if len(r.Sentences) != 3 {
		t.Errorf("%d sentences, want 3", len(r.Sentences))
	}
}

func TestSentencesChannelChange(t *testing.T) {
	a, b := evenWords("left side talking", 0, ""), evenWords("right side", 100, "")
	for i := range a {
		a[i].Channel = ptr("1")
	}
	for i := range b {
		b[i].Channel = ptr("2")
	}
	r := Sentences(transcriptOf(a, b))
	if len(r.Sentences) != 2 || *r.Sentences[1].Channel != "2" || r.Sentences[0].Speaker != nil {
		t.Errorf("sentences %+v", r.Sentences)
	}
}

func TestParagraphs(t *testing.T) {
	tr := transcriptOf(
		evenWords("One. Two.", 0, "A"),
		evenWords("Three.", 1000+ParagraphPauseMillis, "A"), // long pause
		evenWords("Four.", 4000, "B"),                       // speaker change
	)
	r := Paragraphs(tr)
	var got []string
	for _, p := range r.Paragraphs {
		got = append(got, p.Text)
	}
	if strings.Join(got, "|") != "One. Two.|Three.|Four." {
		t.Errorf("paragraphs %q", got)
	}
	// Long speech of short sentences: paragraphs stay within the cap.
	long := transcriptOf(evenWords(strings.Repeat("A short sentence of seven words here. ", 60), 0, "A"))
	for _, p := range Paragraphs(long).Paragraphs {
		if len(p.Words) > ParagraphMaxWords {
			t.Errorf("paragraph of %d words", len(p.Words))
		}
		if !strings.HasSuffix(p.Text, ".") {
			t.Errorf("paragraph does not end with a whole sentence: %q", p.Text)
		}
	}
}

func TestSentencesEmptyAndJSON(t *testing.T) {
	for _, tr := range []*transcribe.Transcript{nil, {ID: "x"}} {
		b, _ := json.Marshal(Sentences(tr))
		if !strings.Contains(string(b), `"sentences":[]`) {
			t.Errorf("empty sentences JSON %s", b)
		}
		b, _ = json.Marshal(Paragraphs(tr))
		if !strings.Contains(string(b), `"paragraphs":[]`) || !strings.Contains(string(b), `"speech_model_used":null`) {
			t.Errorf("empty paragraphs JSON %s", b)
		}
	}
	// Milliseconds are JSON integers; speaker and channel are present.
	b, _ := json.Marshal(Sentences(sample()).Sentences[0])
	for _, want := range []string{`"start":240`, `"end":2540`, `"speaker":"A"`, `"channel":null`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("sentence JSON %s lacks %s", b, want)
		}
	}
}

func TestSentencesHeader(t *testing.T) {
	tr := sample()
	r := Sentences(tr)
	if r.ID != tr.ID || r.AudioDuration != 4510.5 || r.Confidence != *tr.Confidence || *r.SpeechModelUsed != "best" {
		t.Errorf("header %+v", r)
	}
	tr.Confidence = nil
	tr.Words[0].Confidence = 0.5
	if got := Sentences(tr).Confidence; got >= 0.9 || got <= 0.8 {
		t.Errorf("confidence from words = %v", got)
	}
}

func TestSentencesDoNotAlias(t *testing.T) {
	tr := sample()
	r := Sentences(tr)
	r.Sentences[0].Words[0].Text = "changed"
	*r.Sentences[0].Speaker = "Z"
	if tr.Words[0].Text != "Hello," || *tr.Words[0].Speaker != "A" {
		t.Error("the response shares memory with the transcript")
	}
}

// TestCoverage checks on many shapes that sentences and paragraphs cover
// every word exactly once, in order, and that their fields agree with their
// words.
func TestCoverage(t *testing.T) {
	shapes := []*transcribe.Transcript{sample(), longTranscript(1000), transcriptOf(evenWords(strings.Repeat("x ", 500), 0, ""))}
	for si, tr := range shapes {
		var sw, pw []transcribe.Word
		for _, s := range Sentences(tr).Sentences {
			checkItem(t, si, s.Text, s.Start, s.End, s.Words)
			sw = append(sw, s.Words...)
		}
		for _, p := range Paragraphs(tr).Paragraphs {
			checkItem(t, si, p.Text, p.Start, p.End, p.Words)
			pw = append(pw, p.Words...)
		}
		for name, got := range map[string][]transcribe.Word{"sentences": sw, "paragraphs": pw} {
			if len(got) != len(tr.Words) {
				t.Fatalf("shape %d: %s hold %d words, transcript %d", si, name, len(got), len(tr.Words))
			}
			for i := range got {
				if got[i].Text != tr.Words[i].Text || got[i].Start != tr.Words[i].Start {
					t.Fatalf("shape %d: %s word %d is %q, want %q", si, name, i, got[i].Text, tr.Words[i].Text)
				}
			}
		}
	}
}

func checkItem(t *testing.T, shape int, text string, start, end int64, ws []transcribe.Word) {
	t.Helper()
	if len(ws) == 0 {
		t.Fatalf("shape %d: item with no words", shape)
	}
	if start != ws[0].Start || end != ws[len(ws)-1].End || text != joinText(ws) {
		t.Errorf("shape %d: item %q %d-%d disagrees with its words", shape, text, start, end)
	}
	for _, x := range ws[1:] {
		if !sameVoice(&ws[0], &x) {
			t.Errorf("shape %d: item %q spans a speaker change", shape, text)
		}
	}
}

func BenchmarkParagraphs(b *testing.B) {
	tr := longTranscript(20000)
	b.ReportAllocs()
	for b.Loop() {
		Paragraphs(tr)
	}
}
