package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// number is a JSON number that may also come as a numeric string (vLLM
// sends "duration" as a string) or null. ok is false when it was absent,
// null, not a number, NaN or infinite.
type number struct {
	v  float64
	ok bool
}

func (n *number) UnmarshalJSON(b []byte) error {
	*n = number{}
	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	s := string(b)
	if b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return nil
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	*n = number{v, true}
	return nil
}

// text is a JSON string that tolerates other JSON values (taken as absent).
type text struct {
	s  string
	ok bool
}

func (t *text) UnmarshalJSON(b []byte) error {
	*t = text{}
	var s string
	if json.Unmarshal(b, &s) == nil {
		*t = text{s, true}
	}
	return nil
}

// respWord is a word — or, from whisper.cpp, a token — of a response:
// OpenAI, speaches, vLLM and FunASR name its text "word", LocalAI "text".
type respWord struct {
	Word        text   `json:"word"`
	Text        text   `json:"text"`
	Start       number `json:"start"`
	End         number `json:"end"`
	Probability number `json:"probability"`
}

func (w respWord) str() string {
	if w.Word.ok {
		return w.Word.s
	}
	return w.Text.s
}

type respSegment struct {
	Start      number     `json:"start"`
	End        number     `json:"end"`
	Text       text       `json:"text"`
	Words      []respWord `json:"words"`
	AvgLogprob number     `json:"avg_logprob"`
}

// response is the union of the verbose_json shapes of the engines this
// package was checked against (see doc.go).
type response struct {
	Text                        text               `json:"text"`
	Language                    text               `json:"language"`
	Duration                    number             `json:"duration"`
	Segments                    []respSegment      `json:"segments"`
	Words                       []respWord         `json:"words"`
	DetectedLanguage            text               `json:"detected_language"`
	DetectedLanguageProbability number             `json:"detected_language_probability"`
	LanguageProbability         number             `json:"language_probability"`
	LanguageProbabilities       map[string]float64 `json:"language_probabilities"`
}

// result is a parsed response: words with times in milliseconds from the
// start of the request's audio.
type result struct {
	words    []rawWord
	language string  // whisper code, "" when not said
	langConf float64 // 0 when not said
	duration int64   // ms, the response's, -1 when not said
	server   string  // the answer's Server header ("whisper.cpp")
}

// refusedError is a 200 answer that is an error object and no
// transcription, {"error": "failed to read audio data"}: whisper-server
// at f0d2bfbf (2025-04) answers every refusal so, where later versions
// answer 400.
type refusedError struct{ msg string }

func (e *refusedError) Error() string { return "response is an error: " + e.msg }

// maxSeconds bounds times taken from a response (about 115 days), so that
// converting them to milliseconds cannot overflow.
const maxSeconds = 1e7

// parseResponse reads a 200 response body. audioMS is the length of the
// audio sent, or -1 when unknown (a file sent as it is); word times are
// clamped to it (or to the response's duration) and made non-decreasing.
func parseResponse(body []byte, audioMS int64) (*result, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil, errors.New("empty response body")
	}
	var r response
	switch body[0] {
	case '"': // a bare JSON string: FunASR's response_format=text
		var s string
		if err := json.Unmarshal(body, &s); err != nil {
			return nil, fmt.Errorf("malformed JSON response: %v", err)
		}
		r.Text = text{s, true}
	case '{':
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, fmt.Errorf("malformed JSON response: %v", err)
		}
		if !r.Text.ok && r.Segments == nil && r.Words == nil {
			if msg := errorMessage(body); msg != "" {
				return nil, &refusedError{msg}
			}
			return nil, errors.New("response has none of text, segments and words")
		}
	default:
		return nil, fmt.Errorf("response is not JSON: %q", clip(string(body), 120))
	}

	res := &result{duration: -1}
	if r.Duration.ok && r.Duration.v >= 0 && r.Duration.v < maxSeconds {
		res.duration = int64(math.Round(r.Duration.v * 1000))
	}
	limit := audioMS
	if limit < 0 {
		limit = res.duration
	}
	res.language, res.langConf = language(&r)
	res.words = extractWords(&r, limit)
	return res, nil
}

// language maps the response's language to a whisper code and finds its
// probability: faster-whisper's language_probability, or whisper.cpp's
// language_probabilities / detected_language_probability.
func language(r *response) (string, float64) {
	code := LanguageCode(r.Language.s)
	if code == "" {
		code = LanguageCode(r.DetectedLanguage.s)
	}
	if code == "" {
		return "", 0
	}
	p := 0.0
	switch {
	case r.LanguageProbability.ok:
		p = r.LanguageProbability.v
	case r.LanguageProbabilities != nil:
		for k, v := range r.LanguageProbabilities {
			if LanguageCode(k) == code {
				p = v
			}
		}
	case r.DetectedLanguageProbability.ok && LanguageCode(r.DetectedLanguage.s) == code:
		p = r.DetectedLanguageProbability.v
	}
	if math.IsNaN(p) || p < 0 || p > 1 {
		p = 0
	}
	return code, p
}

// token is one item of a word list or one word of a segment's text, with
// its segment.
type token struct {
	text       string
	start, end number
	prob       number
	seg        int  // index into the segments, -1 for none
	joins      bool // may continue the last word of the previous segment
}

// extractWords finds the words of a response, in this order of preference:
// the top-level words (OpenAI, speaches, LocalAI), the segments' words
// (whisper.cpp, FunASR, LocalAI), the segments' text spread over each
// segment's time (vLLM, or any server without word times), the text spread
// over the audio.
func extractWords(r *response, limit int64) []rawWord {
	var toks []token
	segWords := false
	for _, s := range r.Segments {
		if len(s.Words) > 0 {
			segWords = true
			break
		}
	}
	switch {
	case len(r.Words) > 0:
		for _, w := range r.Words {
			toks = append(toks, token{text: w.str(), start: w.Start, end: w.End, prob: w.Probability, seg: -1})
		}
	case segWords:
		for i, s := range r.Segments {
			if len(s.Words) == 0 {
				toks = append(toks, textTokens(s.Text.s, i)...)
				continue
			}
			// whisper.cpp wraps a long segment (max_len) at any token unless
			// split_on_word is set, starting the next segment exactly where
			// the last one ended: a word may go on across that boundary.
			prev := i - 1
			wrapped := prev >= 0 && r.Segments[prev].End.ok && s.Start.ok && r.Segments[prev].End.v == s.Start.v
			for k, w := range s.Words {
				toks = append(toks, token{text: w.str(), start: w.Start, end: w.End, prob: w.Probability, seg: i, joins: k == 0 && wrapped})
			}
		}
	case len(r.Segments) > 0:
		for i, s := range r.Segments {
			toks = append(toks, textTokens(s.Text.s, i)...)
		}
	default:
		toks = textTokens(r.Text.s, -1)
	}
	words := mergeTokens(toks)
	if len(r.Words) > 0 || segWords {
		alignText(words, answerText(r))
	}
	placeWords(words, r.Segments, limit)
	out := make([]rawWord, 0, len(words))
	for _, w := range words {
		out = append(out, rawWord{text: w.text, start: w.startMS, end: w.endMS, conf: w.confidence(r.Segments)})
	}
	return out
}

// answerText is the response's text, or its segments' texts joined.
func answerText(r *response) string {
	if r.Text.ok && strings.TrimSpace(r.Text.s) != "" {
		return r.Text.s
	}
	var b strings.Builder
	for _, s := range r.Segments {
		b.WriteString(s.Text.s)
		b.WriteByte(' ')
	}
	return b.String()
}

func textTokens(s string, seg int) []token {
	var out []token
	for _, f := range strings.Fields(s) {
		out = append(out, token{text: " " + f, seg: seg})
	}
	return out
}

// word is a word assembled from tokens.
type word struct {
	text           string
	start, end     number
	probs          []float64
	seg            int
	startMS, endMS int64
}

// mergeTokens joins sub-word tokens into words. whisper.cpp's
// verbose_json lists tokens (" Hel", "lo", ","), each word's first token
// starting with a space; faster-whisper's words also start with a space;
// OpenAI's never do. So when any item starts with white space, an item that
// does not continues the word before it (in the same segment, or across a
// wrapped segment boundary); otherwise every item is a word. Items of white
// space alone, and empty ones, are dropped.
func mergeTokens(toks []token) []*word {
	spaced := false
	for _, t := range toks {
		if r, _ := utf8.DecodeRuneInString(t.text); unicode.IsSpace(r) {
			spaced = true
			break
		}
	}
	var out []*word
	for _, t := range toks {
		if strings.TrimSpace(t.text) == "" {
			continue
		}
		r, _ := utf8.DecodeRuneInString(t.text)
		if spaced && !unicode.IsSpace(r) && len(out) > 0 && (t.seg == out[len(out)-1].seg || t.joins) {
			w := out[len(out)-1]
			w.text += t.text
			if t.end.ok && (!w.end.ok || t.end.v > w.end.v) {
				w.end = t.end
			}
			if !w.start.ok && t.start.ok {
				w.start = t.start
			}
			if t.prob.ok {
				w.probs = append(w.probs, t.prob.v)
			}
			continue
		}
		w := &word{text: t.text, start: t.start, end: t.end, seg: t.seg}
		if t.prob.ok {
			w.probs = append(w.probs, t.prob.v)
		}
		out = append(out, w)
	}
	return out
}

// placeWords sets every word's times in milliseconds. Words with both
// times keep them; runs of words without are spread by length over the
// span between their neighbours, bounded by their segment's times when the
// segment has them. Times are then clamped to [0, limit] (limit < 0: no
// bound) and made non-decreasing, with end >= start.
func placeWords(ws []*word, segs []respSegment, limit int64) {
	ms := func(n number) (int64, bool) {
		if !n.ok || n.v < 0 || n.v >= maxSeconds {
			return 0, false
		}
		return int64(math.Round(n.v * 1000)), true
	}
	timed := func(w *word) bool {
		_, a := ms(w.start)
		_, b := ms(w.end)
		return a && b
	}
	for i := 0; i < len(ws); {
		if timed(ws[i]) {
			ws[i].startMS, _ = ms(ws[i].start)
			ws[i].endMS, _ = ms(ws[i].end)
			i++
			continue
		}
		// A run [i, j) of untimed words of one segment.
		j := i + 1
		for j < len(ws) && !timed(ws[j]) && ws[j].seg == ws[i].seg {
			j++
		}
		lo, hi := int64(0), limit
		if i > 0 {
			lo = ws[i-1].endMS
		}
		if j < len(ws) {
			if s, ok := ms(ws[j].start); ok {
				hi = s
			}
		}
		if k := ws[i].seg; k >= 0 && k < len(segs) {
			if s, ok := ms(segs[k].Start); ok {
				lo = max(lo, s)
			}
			if e, ok := ms(segs[k].End); ok && (hi < 0 || e < hi) {
				hi = e
			}
		}
		if hi < lo {
			hi = lo
		}
		spread(ws[i:j], lo, hi)
		i = j
	}
	var prev int64
	for _, w := range ws {
		if limit >= 0 {
			w.startMS = min(w.startMS, limit)
			w.endMS = min(w.endMS, limit)
		}
		w.startMS = max(w.startMS, prev)
		w.endMS = max(w.endMS, w.startMS)
		prev = w.startMS
	}
}

// spread shares [lo, hi] among ws by their lengths in runes.
func spread(ws []*word, lo, hi int64) {
	total := 0
	for _, w := range ws {
		total += utf8.RuneCountInString(strings.TrimSpace(w.text))
	}
	if total == 0 {
		total = 1
	}
	done := 0
	for _, w := range ws {
		w.startMS = lo + (hi-lo)*int64(done)/int64(total)
		done += utf8.RuneCountInString(strings.TrimSpace(w.text))
		w.endMS = lo + (hi-lo)*int64(done)/int64(total)
	}
}

// confidence is the mean probability of the word's tokens; without any,
// e^avg_logprob of its segment (the mean token probability in the
// geometric sense); without that, 1 (see doc.go). The result lies in 0..1.
func (w *word) confidence(segs []respSegment) float64 {
	c := 1.0
	switch {
	case len(w.probs) > 0:
		s := 0.0
		for _, p := range w.probs {
			s += p
		}
		c = s / float64(len(w.probs))
	default:
		k := w.seg
		if k < 0 {
			k = segmentAt(segs, w.startMS, w.endMS)
		}
		if k >= 0 && k < len(segs) && segs[k].AvgLogprob.ok {
			c = math.Exp(segs[k].AvgLogprob.v)
		}
	}
	if math.IsNaN(c) {
		return 0
	}
	return min(max(c, 0), 1)
}

// segmentAt returns the index of the segment holding the middle of
// [start, end] ms, or -1.
func segmentAt(segs []respSegment, start, end int64) int {
	mid := float64(start+end) / 2000
	for i, s := range segs {
		if s.Start.ok && s.End.ok && mid >= s.Start.v && mid <= s.End.v {
			return i
		}
	}
	return -1
}

// errorMessage finds the message in an error body: {"error": "..."}
// (whisper.cpp), {"error": {"message": "..."}} (OpenAI, LocalAI, vLLM),
// {"detail": "..."} or {"detail": [{"msg": "..."}]} (FastAPI: speaches,
// FunASR), {"message": "..."}; or the body itself when it is short text
// (whisper.cpp's "Invalid request").
func errorMessage(body []byte) string {
	body = bytes.TrimSpace(body)
	var v struct {
		Error   json.RawMessage `json:"error"`
		Detail  json.RawMessage `json:"detail"`
		Message text            `json:"message"`
	}
	if len(body) > 0 && body[0] == '{' && json.Unmarshal(body, &v) == nil {
		var s string
		var obj struct {
			Message text `json:"message"`
		}
		var list []struct {
			Msg text          `json:"msg"`
			Loc []interface{} `json:"loc"`
		}
		switch {
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return clip(s, 500)
		case json.Unmarshal(v.Error, &obj) == nil && obj.Message.s != "":
			return clip(obj.Message.s, 500)
		case json.Unmarshal(v.Detail, &s) == nil && s != "":
			return clip(s, 500)
		case json.Unmarshal(v.Detail, &list) == nil && len(list) > 0:
			var parts []string
			for _, d := range list {
				loc := make([]string, 0, len(d.Loc))
				for _, l := range d.Loc {
					loc = append(loc, fmt.Sprint(l))
				}
				parts = append(parts, strings.TrimSpace(strings.Join(loc, ".")+": "+d.Msg.s))
			}
			return clip(strings.Join(parts, "; "), 500)
		case v.Message.s != "":
			return clip(v.Message.s, 500)
		}
		return ""
	}
	if len(body) > 0 && body[0] != '{' && body[0] != '[' && utf8.Valid(body) {
		s := strings.Join(strings.Fields(string(body)), " ")
		if strings.HasPrefix(strings.ToLower(s), "<!doctype") || strings.HasPrefix(strings.ToLower(s), "<html") {
			return ""
		}
		return clip(s, 300)
	}
	return ""
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
