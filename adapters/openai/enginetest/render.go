package enginetest

import (
	"fmt"
	"hash/fnv"
	"math"
	"net/url"
	"strings"

	"github.com/earshot-dev/earshot/transcribe"
)

// segment is a run of words between pauses.
type segment struct {
	words      []transcribe.Word
	start, end float64
}

// segmentsOf groups words at pauses of 300 ms or more, at most 12 words
// each, as whisper's segments fall.
func segmentsOf(ws []transcribe.Word) []segment {
	var out []segment
	for i, w := range ws {
		if i == 0 || w.Start-ws[i-1].End >= 300 || len(out[len(out)-1].words) >= 12 {
			out = append(out, segment{start: float64(w.Start) / 1000})
		}
		s := &out[len(out)-1]
		s.words = append(s.words, w)
		s.end = float64(w.End) / 1000
	}
	return out
}

// written returns the words as a whisper model writes them: the first of
// each segment capitalized, the last followed by a full stop.
func written(s segment) []string {
	out := make([]string, len(s.words))
	for i, w := range s.words {
		out[i] = w.Text
	}
	if len(out) > 0 {
		out[0] = strings.ToUpper(out[0][:1]) + out[0][1:]
		out[len(out)-1] += "."
	}
	return out
}

func segText(s segment) string { return " " + strings.Join(written(s), " ") }

func allText(segs []segment) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteString(segText(s))
	}
	return strings.TrimSpace(b.String())
}

// tokenID is a stable stand-in for a BPE token id.
func tokenID(s string) int {
	h := fnv.New32a()
	h.Write([]byte(s))
	return int(h.Sum32()%50000) + 1
}

func avgLogprob(ws []transcribe.Word) float64 {
	if len(ws) == 0 {
		return 0
	}
	s := 0.0
	for _, w := range ws {
		s += math.Log(max(w.Confidence, 1e-6))
	}
	return s / float64(len(ws))
}

func sec(ms int64) float64 { return math.Round(float64(ms)) / 1000 }

// Render returns the JSON value shape's server would answer for words
// recognized in dur seconds of audio, given the request's fields.
func Render(shape Shape, words []transcribe.Word, dur float64, form url.Values) any {
	segs := segmentsOf(words)
	lang := form.Get("language")
	switch shape {
	case WhisperCPP:
		return renderWhisperCPP(segs, dur, form)
	case OpenAI:
		// openai-python src/openai/types/audio/transcription_verbose.py,
		// transcription_segment.py, transcription_word.py.
		var ws, ss []any
		for i, s := range segs {
			for k, w := range written(s) {
				ws = append(ws, map[string]any{"word": strings.TrimSuffix(w, "."), "start": sec(s.words[k].Start), "end": sec(s.words[k].End)})
			}
			ss = append(ss, map[string]any{"id": i, "seek": 0, "start": s.start, "end": s.end, "text": segText(s), "tokens": tokens(s),
				"temperature": 0.0, "avg_logprob": avgLogprob(s.words), "compression_ratio": 1.1, "no_speech_prob": 0.01})
		}
		return map[string]any{"task": "transcribe", "language": "english", "duration": dur, "text": allText(segs),
			"words": orEmpty(ws), "segments": orEmpty(ss), "usage": map[string]any{"type": "duration", "seconds": int(math.Ceil(dur))}}
	case Speaches:
		// speaches src/speaches/executors/whisper.py
		// segments_to_transcription_response: faster-whisper words start
		// with a space; language is the code; usage is null.
		var ws, ss []any
		for i, s := range segs {
			for k, w := range written(s) {
				ws = append(ws, map[string]any{"end": sec(s.words[k].End), "start": sec(s.words[k].Start), "word": " " + w})
			}
			ss = append(ss, map[string]any{"id": i + 1, "avg_logprob": avgLogprob(s.words), "compression_ratio": 1.1, "end": s.end,
				"no_speech_prob": 0.01, "seek": 0, "start": s.start, "temperature": 0.0, "text": segText(s), "tokens": tokens(s)})
		}
		return map[string]any{"duration": dur, "language": "en", "text": allText(segs), "segments": orEmpty(ss), "usage": nil, "words": orEmpty(ws)}
	case LocalAICrispASR, LocalAIWhisper:
		// LocalAI core/http/endpoints/openai/transcription.go
		// (schema.TranscriptionResultSeconds: words named "text",
		// omitempty) over core/backend/transcript.go
		// transcriptResultFromProto; Language is the request's.
		var all, ss []any
		for i, s := range segs {
			seg := map[string]any{"id": i, "start": s.start, "end": s.end, "text": segText(s)}
			if shape == LocalAICrispASR {
				var ws []any
				for k, w := range written(s) {
					ws = append(ws, map[string]any{"start": sec(s.words[k].Start), "end": sec(s.words[k].End), "text": w})
				}
				seg["words"], seg["tokens"] = ws, nil
				all = append(all, ws...)
			} else {
				seg["tokens"] = tokens(s)
			}
			ss = append(ss, seg)
		}
		out := map[string]any{"text": allText(segs)}
		if len(ss) > 0 {
			out["segments"] = ss
		}
		if len(all) > 0 {
			out["words"] = all
		}
		if lang != "" {
			out["language"] = lang
		}
		if shape == LocalAICrispASR {
			out["duration"] = dur
		}
		return out
	case VLLM:
		// vllm speech_to_text.py _get_verbose_segments and
		// TranscriptionResponseVerbose(duration=str(duration_s),
		// language=request.language); no words.
		var ss []any
		for i, s := range segs {
			ss = append(ss, map[string]any{"id": i, "avg_logprob": avgLogprob(s.words), "compression_ratio": 1.1, "end": s.end,
				"no_speech_prob": nil, "seek": 0, "start": s.start, "temperature": 0.0, "text": segText(s), "tokens": tokens(s)})
		}
		var l any
		if lang != "" {
			l = lang
		}
		return map[string]any{"duration": fmt.Sprint(dur), "language": l, "text": allText(segs), "segments": orEmpty(ss), "words": nil}
	case FunASR:
		// FunASR funasr/bin/_server_app.py build_openai_verbose_json over
		// _process_vllm: segment words {"word", "start", "end"}; language
		// the request's, else "unknown" (resolve_transcription_language).
		var ss []any
		for i, s := range segs {
			var ws []any
			for k, w := range written(s) {
				ws = append(ws, map[string]any{"word": strings.TrimSuffix(w, "."), "start": sec(s.words[k].Start), "end": sec(s.words[k].End)})
			}
			ss = append(ss, map[string]any{"id": i, "start": s.start, "end": s.end, "text": strings.TrimSpace(segText(s)), "words": ws})
		}
		if lang == "" {
			lang = "unknown"
		}
		return map[string]any{"task": "transcribe", "language": lang, "duration": dur, "text": allText(segs), "segments": orEmpty(ss)}
	}
	panic("enginetest: unknown shape " + string(shape))
}

func orEmpty(v []any) []any {
	if v == nil {
		return []any{}
	}
	return v
}

func tokens(s segment) []int {
	var out []int
	for _, w := range written(s) {
		out = append(out, tokenID(w))
	}
	return out
}

// renderWhisperCPP follows whisper.cpp examples/server/server.cpp (the
// verbose_json branch of the inference handler): "words" are BPE tokens,
// a word's first token starting with a space; each has start, end, t_dtw
// and probability; segments carry tokens, temperature, avg_logprob and
// no_speech_prob; "language" is the name; detected_language,
// detected_language_probability and language_probabilities are added
// unless no_language_probabilities is set.
func renderWhisperCPP(segs []segment, dur float64, form url.Values) any {
	var ss []any
	for i, s := range segs {
		var toks []any
		var ids []int
		for k, w := range written(s) {
			src := s.words[k]
			// Split words of more than four letters into two tokens, as BPE
			// splits rarer words: " qu" "ick." -> one word again.
			pieces := []string{" " + w}
			if r := []rune(w); len(r) > 4 {
				pieces = []string{" " + string(r[:2]), string(r[2:])}
			}
			span := src.End - src.Start
			for p, piece := range pieces {
				t0 := src.Start + span*int64(p)/int64(len(pieces))
				t1 := src.Start + span*int64(p+1)/int64(len(pieces))
				ids = append(ids, tokenID(piece))
				toks = append(toks, map[string]any{"word": piece, "start": float64(t0/10) / 100, "end": float64(t1/10) / 100,
					"t_dtw": -1, "probability": src.Confidence})
			}
		}
		ss = append(ss, map[string]any{"id": i, "text": segText(s), "start": float64(int64(s.start*100)) / 100, "end": float64(int64(s.end*100)) / 100,
			"tokens": ids, "words": toks, "temperature": 0.0, "avg_logprob": avgLogprob(s.words), "no_speech_prob": 0.001})
	}
	out := map[string]any{"task": "transcribe", "language": "english", "duration": dur, "text": allText(segs) + "\n", "segments": orEmpty(ss)}
	if form.Get("no_language_probabilities") != "true" {
		out["detected_language"] = "english"
		out["detected_language_probability"] = 1.0
		out["language_probabilities"] = map[string]any{"en": 1.0}
	}
	return out
}
