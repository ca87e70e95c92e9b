package export

import (
	"slices"

	"github.com/earshot-dev/earshot/transcribe"
)

// Sentence and paragraph segmentation. All times are milliseconds.
const (
	// SentencePauseMillis: in a transcript without sentence punctuation (for
	// example punctuate=false), a silence this long between two words ends a
	// sentence.
	SentencePauseMillis = 700
	// UnpunctuatedMaxWords caps a sentence of a transcript without sentence
	// punctuation; a longer run is cut at its longest pause in the second
	// half of the run.
	UnpunctuatedMaxWords = 30
	// PunctuatedMaxWords is the safety cap for a run of words with no
	// sentence-final punctuation in a punctuated transcript; it is cut the
	// same way.
	PunctuatedMaxWords = 120
	// ParagraphPauseMillis: a silence this long between two sentences starts
	// a new paragraph.
	ParagraphPauseMillis = 2000
	// ParagraphMaxWords: a sentence that would take a paragraph past this
	// many words starts a new one (a longer sentence is a paragraph alone).
	ParagraphMaxWords = 100
)

// Sentence is one item of GET /v2/transcript/{id}/sentences. Start and End
// are the first word's start and the last word's end in milliseconds;
// Confidence is the mean word confidence; Speaker and Channel are those of
// its words (a sentence never spans a speaker or channel change).
type Sentence struct {
	Text       string            `json:"text"`
	Start      int64             `json:"start"`
	End        int64             `json:"end"`
	Confidence float64           `json:"confidence"`
	Words      []transcribe.Word `json:"words"`
	Speaker    *string           `json:"speaker"`
	Channel    *string           `json:"channel"`
}

// Paragraph is one item of GET /v2/transcript/{id}/paragraphs: consecutive
// whole sentences of one speaker and channel. Fields as in Sentence. (The
// wire type has no speaker or channel; they are extra keys SDKs ignore.)
type Paragraph struct {
	Text       string            `json:"text"`
	Start      int64             `json:"start"`
	End        int64             `json:"end"`
	Confidence float64           `json:"confidence"`
	Words      []transcribe.Word `json:"words"`
	Speaker    *string           `json:"speaker"`
	Channel    *string           `json:"channel"`
}

// SentencesResponse is the body of GET /v2/transcript/{id}/sentences.
// Sentences is never nil, so it encodes as [] for an empty transcript.
type SentencesResponse struct {
	ID              string     `json:"id"`
	Confidence      float64    `json:"confidence"`
	AudioDuration   float64    `json:"audio_duration"`
	Sentences       []Sentence `json:"sentences"`
	SpeechModelUsed *string    `json:"speech_model_used"`
}

// ParagraphsResponse is the body of GET /v2/transcript/{id}/paragraphs.
// Paragraphs is never nil.
type ParagraphsResponse struct {
	ID              string      `json:"id"`
	Confidence      float64     `json:"confidence"`
	AudioDuration   float64     `json:"audio_duration"`
	Paragraphs      []Paragraph `json:"paragraphs"`
	SpeechModelUsed *string     `json:"speech_model_used"`
}

// Sentences splits the transcript's words into sentences. Every word is in
// exactly one sentence, in order. A sentence ends after a word with
// sentence-final punctuation (. ? ! …, but not "Mr." and similar titles),
// before a change of speaker or channel, and at PunctuatedMaxWords. When no
// word of the transcript carries sentence-final punctuation, pauses of
// SentencePauseMillis end sentences instead, with UnpunctuatedMaxWords as the
// cap. Words are copied: the response shares no memory with t. A nil t gives
// an empty response.
func Sentences(t *transcribe.Transcript) *SentencesResponse {
	resp := &SentencesResponse{Sentences: []Sentence{}}
	if t == nil {
		return resp
	}
	resp.ID, resp.Confidence, resp.AudioDuration, resp.SpeechModelUsed = header(t)
	for _, r := range splitSentences(t.Words) {
		ws := slices.Clone(t.Words[r[0]:r[1]])
		resp.Sentences = append(resp.Sentences, Sentence{
			Text:       joinText(ws),
			Start:      ws[0].Start,
			End:        ws[len(ws)-1].End,
			Confidence: meanConfidence(ws),
			Words:      ws,
			Speaker:    clonePtr(ws[0].Speaker),
			Channel:    clonePtr(ws[0].Channel),
		})
	}
	return resp
}

// Paragraphs groups the sentences of Sentences into paragraphs. A new
// paragraph starts at a change of speaker or channel, after a silence of
// ParagraphPauseMillis, or when the next sentence would take the paragraph
// past ParagraphMaxWords. Every word is in exactly one paragraph, in order.
// A nil t gives an empty response.
func Paragraphs(t *transcribe.Transcript) *ParagraphsResponse {
	resp := &ParagraphsResponse{Paragraphs: []Paragraph{}}
	if t == nil {
		return resp
	}
	resp.ID, resp.Confidence, resp.AudioDuration, resp.SpeechModelUsed = header(t)
	for _, r := range splitParagraphs(t.Words, splitSentences(t.Words)) {
		ws := slices.Clone(t.Words[r[0]:r[1]])
		resp.Paragraphs = append(resp.Paragraphs, Paragraph{
			Text:       joinText(ws),
			Start:      ws[0].Start,
			End:        ws[len(ws)-1].End,
			Confidence: meanConfidence(ws),
			Words:      ws,
			Speaker:    clonePtr(ws[0].Speaker),
			Channel:    clonePtr(ws[0].Channel),
		})
	}
	return resp
}

// header returns the response fields copied from the transcript. A missing
// confidence is the mean word confidence; a missing duration is 0.
func header(t *transcribe.Transcript) (id string, conf, dur float64, model *string) {
	conf = meanConfidence(t.Words)
	if t.Confidence != nil {
		conf = *t.Confidence
	}
	if t.AudioDuration != nil {
		dur = *t.AudioDuration
	}
	return t.ID, conf, dur, clonePtr(t.SpeechModelUsed)
}

func clonePtr(p *string) *string {
	if p == nil {
		return nil
	}
	s := *p
	return &s
}

// splitSentences returns the sentences as [start, end) ranges of ws that
// cover it exactly, in order.
func splitSentences(ws []transcribe.Word) [][2]int {
	punctuated := false
	for _, w := range ws {
		if endsSentence(w.Text) {
			punctuated = true
			break
		}
	}
	maxWords := UnpunctuatedMaxWords
	if punctuated {
		maxWords = PunctuatedMaxWords
	}
	var out [][2]int
	start := 0
	for i := range ws {
		end := i == len(ws)-1 ||
			!sameVoice(&ws[i], &ws[i+1]) ||
			(punctuated && endsSentence(ws[i].Text)) ||
			(!punctuated && ws[i+1].Start-ws[i].End >= SentencePauseMillis)
		if end {
			out = append(out, [2]int{start, i + 1})
			start = i + 1
			continue
		}
		if i+1-start >= maxWords {
			k := longestGap(ws, start+maxWords/2, i)
			out = append(out, [2]int{start, k + 1})
			start = k + 1
		}
	}
	return out
}

// longestGap returns the k in [lo, hi] with the longest silence between
// ws[k] and ws[k+1], the latest one on ties. ws[hi+1] must exist.
func longestGap(ws []transcribe.Word, lo, hi int) int {
	best, bestGap := hi, ws[hi+1].Start-ws[hi].End
	for k := hi - 1; k >= lo; k-- {
		if g := ws[k+1].Start - ws[k].End; g > bestGap {
			best, bestGap = k, g
		}
	}
	return best
}

// splitParagraphs groups sentence ranges into paragraph ranges of ws.
func splitParagraphs(ws []transcribe.Word, sentences [][2]int) [][2]int {
	var out [][2]int
	for _, s := range sentences {
		if n := len(out); n > 0 {
			p := &out[n-1]
			last, first := &ws[p[1]-1], &ws[s[0]]
			if sameVoice(last, first) &&
				first.Start-last.End < ParagraphPauseMillis &&
				(p[1]-p[0])+(s[1]-s[0]) <= ParagraphMaxWords {
				p[1] = s[1]
				continue
			}
		}
		out = append(out, s)
	}
	return out
}
