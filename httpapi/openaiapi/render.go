package openaiapi

import (
	"bytes"
	"compress/zlib"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/earshot-dev/earshot/export"
	"github.com/earshot-dev/earshot/transcribe"
)

// The response bodies, in the shapes of the official SDKs' types:
// openai-node src/resources/audio/transcriptions.ts (Transcription,
// TranscriptionVerbose, TranscriptionSegment, TranscriptionWord,
// TranscriptionDiarized, TranscriptionDiarizedSegment) and openai-python
// src/openai/types/audio/transcription_verbose.py and its neighbours.

// Usage is the usage of models billed by audio duration.
type Usage struct {
	Type    string `json:"type"`    // always "duration"
	Seconds int64  `json:"seconds"` // the audio's duration in whole seconds
}

// Transcription is the json response.
type Transcription struct {
	Text  string `json:"text"`
	Usage Usage  `json:"usage"`
}

// Segment is one segment of verbose_json: one sentence of the transcript
// (export.Sentences). Times are seconds. Tokens is always empty (no
// engine here has whisper's token ids); Seek is the segment's start in
// 10 ms frames (whisper's unit; there are no 30 s windows here);
// AvgLogprob is the mean natural log of the words' confidences;
// CompressionRatio is whisper's (UTF-8 length over zlib-compressed
// length of the text); NoSpeechProb is 0, the recognizer having found
// words there; Temperature is the request's (default 0).
type Segment struct {
	ID               int     `json:"id"`
	Seek             int64   `json:"seek"`
	Start            float64 `json:"start"`
	End              float64 `json:"end"`
	Text             string  `json:"text"`
	Tokens           []int   `json:"tokens"`
	Temperature      float64 `json:"temperature"`
	AvgLogprob       float64 `json:"avg_logprob"`
	CompressionRatio float64 `json:"compression_ratio"`
	NoSpeechProb     float64 `json:"no_speech_prob"`
}

// Word is one word of verbose_json, without punctuation, times in seconds.
type Word struct {
	Word  string  `json:"word"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// TranscriptionVerbose is the verbose_json response. Segments is present
// with the segment granularity (the default), Words with the word
// granularity. Language is whisper's name of the language ("english").
// Duration is the transcript's audio_duration, which the Service keeps in
// whole seconds (OpenAI gives fractions).
type TranscriptionVerbose struct {
	Task     string    `json:"task"` // always "transcribe"
	Language string    `json:"language"`
	Duration float64   `json:"duration"`
	Text     string    `json:"text"`
	Words    []Word    `json:"words,omitzero"`
	Segments []Segment `json:"segments,omitzero"`
	Usage    Usage     `json:"usage"`
}

// DiarizedSegment is one speaker turn of diarized_json.
type DiarizedSegment struct {
	ID      string  `json:"id"` // "seg_0", "seg_1", ...
	Start   float64 `json:"start"`
	End     float64 `json:"end"`
	Speaker string  `json:"speaker"` // "A", "B", ...
	Text    string  `json:"text"`
	Type    string  `json:"type"` // always "transcript.text.segment"
}

// TranscriptionDiarized is the diarized_json response: the transcript's
// utterances (speaker_labels) as segments.
type TranscriptionDiarized struct {
	Task     string            `json:"task"` // always "transcribe"
	Duration float64           `json:"duration"`
	Text     string            `json:"text"`
	Segments []DiarizedSegment `json:"segments"`
	Usage    Usage             `json:"usage"`
}

// RenderOptions say how Render writes a transcript.
type RenderOptions struct {
	// Format is the response_format. Default FormatJSON.
	Format Format
	// Words and Segments are the timestamp granularities of verbose_json;
	// with neither, segments are written (OpenAI's default).
	Words, Segments bool
	// Temperature is echoed in the segments. Default 0.
	Temperature float64
}

// Render writes a completed transcript in the response format of
// o.Format and returns the Content-Type and the body: application/json
// for json, verbose_json and diarized_json; text/plain; charset=utf-8 for
// text (the text and a newline), srt and vtt (export.SRT and export.VTT
// with their default caption layout), as OpenAI answers. It is pure and
// safe for concurrent use; an unknown format is an error.
func Render(t *transcribe.Transcript, o RenderOptions) (contentType string, body []byte, err error) {
	const jsonType, textType = "application/json", "text/plain; charset=utf-8"
	if o.Format == "" {
		o.Format = FormatJSON
	}
	text := ""
	if t.Text != nil {
		text = *t.Text
	}
	dur := 0.0
	if t.AudioDuration != nil {
		dur = *t.AudioDuration
	}
	use := Usage{Type: "duration", Seconds: int64(math.Ceil(dur))}
	var v any
	switch o.Format {
	case FormatText:
		return textType, []byte(text + "\n"), nil
	case FormatSRT:
		return textType, export.SRT(t, 0), nil
	case FormatVTT:
		return textType, export.VTT(t, 0), nil
	case FormatJSON:
		v = Transcription{Text: text, Usage: use}
	case FormatVerboseJSON:
		lang := ""
		if t.LanguageCode != nil {
			lang = languageName(*t.LanguageCode)
		}
		r := TranscriptionVerbose{Task: "transcribe", Language: lang, Duration: dur, Text: text, Usage: use}
		if o.Words {
			r.Words = words(t.Words)
		}
		if o.Segments || !o.Words {
			r.Segments = segments(t, o.Temperature)
		}
		v = r
	case FormatDiarizedJSON:
		r := TranscriptionDiarized{Task: "transcribe", Duration: dur, Text: text, Segments: []DiarizedSegment{}, Usage: use}
		for i, u := range t.Utterances {
			r.Segments = append(r.Segments, DiarizedSegment{ID: fmt.Sprintf("seg_%d", i), Start: seconds(u.Start), End: seconds(u.End),
				Speaker: u.Speaker, Text: u.Text, Type: "transcript.text.segment"})
		}
		v = r
	default:
		return "", nil, fmt.Errorf("openaiapi: unknown response format %q", o.Format)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", nil, err
	}
	return jsonType, b, nil
}

// seconds converts integer milliseconds to seconds.
func seconds(ms int64) float64 { return float64(ms) / 1000 }

// segments builds verbose_json's segments from the transcript's sentences.
// An empty transcript has an empty list (written as []).
func segments(t *transcribe.Transcript, temperature float64) []Segment {
	out := []Segment{}
	for i, s := range export.Sentences(t).Sentences {
		out = append(out, Segment{
			ID: i, Seek: s.Start / 10, Start: seconds(s.Start), End: seconds(s.End),
			Text: " " + s.Text, Tokens: []int{}, Temperature: temperature,
			AvgLogprob: avgLogprob(s.Words), CompressionRatio: compressionRatio(s.Text),
		})
	}
	return out
}

// words lists the transcript's words without their punctuation, as OpenAI
// does ("dog" where the transcript has "dog."). A word that is all
// punctuation is left out; the list is never nil.
func words(ws []transcribe.Word) []Word {
	out := make([]Word, 0, len(ws))
	for _, w := range ws {
		if txt := bareWord(w.Text); txt != "" {
			out = append(out, Word{Word: txt, Start: seconds(w.Start), End: seconds(w.End)})
		}
	}
	return out
}

// bareWord strips the punctuation the formatting stages put around a
// word: sentence marks after it, quotes and brackets on either side.
// Inner marks ("don't", "3.5", "e-mail") stay.
func bareWord(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimRight(s, ".,?!;:…\"”’)]")
	return strings.TrimLeft(s, "\"“‘([¿¡")
}

// avgLogprob is the mean natural log of the words' confidences (a
// confidence of 0 counts as 1e-6).
func avgLogprob(ws []transcribe.Word) float64 {
	if len(ws) == 0 {
		return 0
	}
	sum := 0.0
	for _, w := range ws {
		sum += math.Log(max(w.Confidence, 1e-6))
	}
	return round4(sum / float64(len(ws)))
}

// compressionRatio is whisper's (whisper/utils.py compression_ratio): the
// UTF-8 length of text over the length of its zlib compression at level 6
// (Python's default). Go's compress/zlib writes a few bytes more than C
// zlib on short texts, so short segments read a little lower than whisper
// would report; repetitive text still goes well above 1.
func compressionRatio(text string) float64 {
	if text == "" {
		return 0
	}
	var b bytes.Buffer
	z, _ := zlib.NewWriterLevel(&b, 6)
	z.Write([]byte(text))
	z.Close()
	return round4(float64(len(text)) / float64(b.Len()))
}

func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }

// renderOptions are the RenderOptions r asks for.
func (r *request) renderOptions() RenderOptions {
	o := RenderOptions{Format: r.format, Words: r.words, Segments: r.segments}
	if r.temperature != nil {
		o.Temperature = *r.temperature
	}
	return o
}
