package openai

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/textproto"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/earshot-dev/earshot/adapters/enginepool"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/media"
)

// Recognizer sends audio to an OpenAI-compatible transcription endpoint.
// It implements transcribe.Recognizer and transcribe.FileRecognizer and is
// safe for concurrent use.
type Recognizer struct {
	cfg      Config
	urls     []string // each server's transcription URL
	pool     *enginepool.Pool
	maxChunk time.Duration
	closed   atomic.Bool
	// autoLanguage: the engine said it is whisper.cpp's server, which
	// detects only with language=auto (Config.DetectLanguage).
	autoLanguage atomic.Bool
}

var _ transcribe.FileRecognizer = (*Recognizer)(nil)

// New checks cfg and returns a Recognizer. It does not contact the engine.
func New(cfg Config) (*Recognizer, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	roots := cfg.roots()
	r := &Recognizer{cfg: cfg}
	names := make([]string, len(roots))
	for i, root := range roots {
		r.urls = append(r.urls, strings.TrimRight(root, "/")+cfg.Path)
		names[i] = serverName(root)
	}
	check := cfg.HealthCheck
	if check == nil {
		check = func(ctx context.Context, root string) error {
			return r.checkURL(ctx, strings.TrimRight(root, "/")+cfg.Path)
		}
	}
	pool, err := enginepool.New(enginepool.Config{Servers: names, Concurrency: cfg.Concurrency, OnEvent: cfg.OnServer,
		Check: func(ctx context.Context, i int) error { return check(ctx, roots[i]) }})
	if err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
	r.pool = pool
	// Audio per request: the chunk limit, and what fits in MaxRequestBytes
	// as 16-bit mono WAV next to the form fields.
	byBytes := time.Duration(cfg.MaxRequestBytes-multipartSlack-44) * time.Second / (2 * SampleRate)
	r.maxChunk = min(cfg.MaxChunk, byBytes)
	return r, nil
}

// URL returns the endpoint requests are sent to (the first server's).
func (r *Recognizer) URL() string { return r.urls[0] }

// Capacity returns how many requests the engine's servers take at once:
// servers × Config.Concurrency, 0 when Concurrency is unlimited. The
// Service recognizes that many pieces of a long job at once.
func (r *Recognizer) Capacity() int { return r.pool.Capacity() }

// Servers returns the state of each server: up, and its requests in
// flight.
func (r *Recognizer) Servers() []enginepool.ServerStats { return r.pool.Stats() }

// Features reports 16 kHz input, word timestamps, filler words (asked for
// with a prompt), the configured languages with detection when there are
// several, and the prompt. WordConfidence is false because the OpenAI API
// gives none (words take the engine's probabilities when it sends them);
// WordBoost is false because boost terms only reach the engine as prompt
// text, without weight; MaxAudio is 0 because Recognize splits long audio
// itself.
func (r *Recognizer) Features() transcribe.RecognizerFeatures {
	return transcribe.RecognizerFeatures{
		SampleRate:        SampleRate,
		WordTimestamps:    true,
		Disfluencies:      r.cfg.PromptTokens > 0,
		Languages:         slices.Clone(r.cfg.Languages),
		LanguageDetection: len(r.cfg.Languages) > 1,
		Prompt:            r.cfg.PromptTokens > 0,
	}
}

// Close releases idle connections. Later calls return ErrClosed.
func (r *Recognizer) Close() error {
	if r.closed.Swap(true) {
		return nil
	}
	r.pool.Close()
	r.cfg.HTTPClient.CloseIdleConnections()
	return nil
}

// AcceptsFile reports whether format (as media.Sniff names it) is one of
// Config.FileFormats.
func (r *Recognizer) AcceptsFile(format string) bool {
	for _, f := range r.cfg.FileFormats {
		if strings.EqualFold(f, format) {
			return true
		}
	}
	return false
}

// minSpeech and silencePeak: audio shorter than 100 ms, or whose loudest
// sample is below -60 dBFS, is not sent — whisper-class engines invent text
// ("Thank you.") for silence.
const (
	minSpeech   = SampleRate / 10
	silencePeak = 33
)

func silent(s []int16) bool {
	if len(s) < minSpeech {
		return true
	}
	for _, v := range s {
		if v >= silencePeak || v <= -silencePeak {
			return false
		}
	}
	return true
}

// prepare validates opts and builds the request description.
func (r *Recognizer) prepare(opts transcribe.RecognizeOptions) (Request, error) {
	req := Request{WordBoost: opts.WordBoost}
	if opts.LanguageCode != "" {
		code := LanguageCode(opts.LanguageCode)
		ok := false
		for _, l := range r.cfg.Languages {
			if LanguageCode(l) == code && code != "" {
				ok = true
			}
		}
		if !ok {
			return req, &transcribe.ParamError{Field: "language_code", Reason: fmt.Sprintf("%q is not a language the speech engine %s transcribes (%s)", opts.LanguageCode, r.cfg.Name, strings.Join(r.cfg.Languages, ", "))}
		}
		req.Language = code
	}
	if r.cfg.PromptTokens > 0 {
		req.Prompt = buildPrompt(opts.Prompt, opts.WordBoost, opts.Disfluencies, r.cfg.PromptTokens)
	}
	return req, nil
}

func (r *Recognizer) fields(req Request) []Field {
	f := r.cfg.Form(req)
	switch {
	case req.Language != "":
	case r.cfg.DetectLanguage != "":
		f = append(f, Field{"language", r.cfg.DetectLanguage})
	case r.autoLanguage.Load() && !hasLanguage(f):
		f = append(f, Field{"language", "auto"})
	}
	return f
}

func hasLanguage(fields []Field) bool {
	return slices.ContainsFunc(fields, func(f Field) bool { return f.Name == "language" })
}

// undetected reports whether res, the answer to a request with fields,
// names the server's default language rather than a detected one: no
// language was sent and the answer comes from whisper.cpp's server, which
// then transcribes in its -l default. The Recognizer then sends
// language=auto from now on (Config.DetectLanguage).
func (r *Recognizer) undetected(fields []Field, res *result) bool {
	if hasLanguage(fields) || !strings.HasPrefix(strings.ToLower(res.server), "whisper.cpp") {
		return false
	}
	r.autoLanguage.Store(true)
	return true
}

// withAuto returns fields with language=auto.
func withAuto(fields []Field) []Field {
	return append(slices.Clone(fields), Field{"language", "auto"})
}

// Recognize transcribes 16 kHz mono audio. Audio longer than the chunk
// limit (Config.MaxChunk, and what fits in MaxRequestBytes) is split at
// pauses with media.SplitAtPauses and sent in pieces, Config.Parallel at a
// time, with the pieces' times offset. Silent pieces are not sent.
//
// Errors: ctx.Err() when cancelled; *Error for a failed exchange (wrapping
// transcribe.ErrUnavailable when the engine is unreachable, times out or
// keeps answering 429/5xx); *transcribe.ParamError for a language the
// engine does not transcribe; ErrClosed after Close.
func (r *Recognizer) Recognize(ctx context.Context, audio []int16, opts transcribe.RecognizeOptions) (*transcribe.Recognition, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.closed.Load() {
		return nil, ErrClosed
	}
	req, err := r.prepare(opts)
	if err != nil {
		return nil, err
	}
	fields := r.fields(req)
	spans := media.SplitAtPauses(audio, SampleRate, r.maxChunk)
	results := make([]*result, len(spans))
	errs := make([]error, len(spans))
	sem := make(chan struct{}, max(r.cfg.Parallel, 1))
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for i, sp := range spans {
		chunk := audio[sp.Start:sp.End]
		if silent(chunk) {
			continue
		}
		select {
		case sem <- struct{}{}:
		case <-cctx.Done():
		}
		if cctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			results[i], errs[i] = r.sendPCM(cctx, fields, chunk)
			if errs[i] == nil && r.undetected(fields, results[i]) {
				results[i], errs[i] = r.sendPCM(cctx, withAuto(fields), chunk)
			}
			if errs[i] != nil {
				cancel() // no point sending the rest
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			var e *Error
			if errors.As(err, &e) && e.Refusal() {
				// Earshot's own 16 kHz WAV refused: the job ends with
				// the engine's reason (transcribe.MediaError).
				e.media = &transcribe.MediaError{Reason: fmt.Sprintf("the speech engine %s refused the audio: %s", r.cfg.Name, e.Message)}
			}
			return nil, err
		}
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	var raw []rawWord
	best := -1
	for i, res := range results {
		if res == nil {
			continue
		}
		off := int64(spans[i].Start) * 1000 / SampleRate
		end := int64(spans[i].End) * 1000 / SampleRate
		for _, w := range res.words {
			w.start = min(w.start+off, end)
			w.end = min(w.end+off, end)
			raw = append(raw, w)
		}
		if res.language != "" && (best < 0 || len(res.words) > len(results[best].words)) {
			best = i
		}
	}
	rec := &transcribe.Recognition{Model: r.cfg.Name, Language: req.Language}
	if best >= 0 && (req.Language == "" || results[best].language == req.Language) {
		rec.Language, rec.LanguageConfidence = results[best].language, results[best].langConf
	}
	r.finish(rec, raw, opts)
	return rec, nil
}

// finish keeps or normalizes the words (wordsFor) and fills in the
// language when the engine is single-language.
func (r *Recognizer) finish(rec *transcribe.Recognition, raw []rawWord, opts transcribe.RecognizeOptions) {
	if rec.Language == "" && len(r.cfg.Languages) == 1 {
		rec.Language = LanguageCode(r.cfg.Languages[0])
	}
	english := rec.Language == "en" || rec.Language == "" && asciiWords(raw)
	rec.Words, rec.Written = wordsFor(raw, english, opts.Punctuate, opts.FormatText)
}

func asciiWords(ws []rawWord) bool {
	for _, w := range ws {
		for i := 0; i < len(w.text); i++ {
			if w.text[i] >= 0x80 {
				return false
			}
		}
	}
	return true
}

// sendPCM sends one chunk as 16-bit WAV.
func (r *Recognizer) sendPCM(ctx context.Context, fields []Field, samples []int16) (*result, error) {
	var wav bytes.Buffer
	if err := media.WriteWAV(&wav, &transcribe.PCM{SampleRate: SampleRate, Channels: [][]int16{samples}}); err != nil {
		return nil, fmt.Errorf("%s: encoding WAV: %w", r.cfg.Name, err)
	}
	head, tail, ctype := multipartFrame(fields, "audio.wav", "audio/wav")
	body := func() (io.ReadCloser, int64, error) {
		return io.NopCloser(io.MultiReader(bytes.NewReader(head), bytes.NewReader(wav.Bytes()), bytes.NewReader(tail))),
			int64(len(head) + wav.Len() + len(tail)), nil
	}
	ms := int64(len(samples)) * 1000 / SampleRate
	return r.post(ctx, ctype, body, ms, ms)
}

// RecognizeFile sends the media file at path as it is when its format is
// one of Config.FileFormats and it fits in MaxRequestBytes. Otherwise, or
// when the engine refuses the file with 400, 415 or 422, it returns an
// error wrapping transcribe.ErrFileNotTaken: the caller decodes the file
// and calls Recognize (the Service does so through its spool, in pieces,
// so a long file does not have to fit in memory). Word times are
// milliseconds from the start of the file. Errors as for Recognize, and
// *transcribe.MediaError for an empty file.
func (r *Recognizer) RecognizeFile(ctx context.Context, path string, opts transcribe.RecognizeOptions) (*transcribe.Recognition, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.closed.Load() {
		return nil, ErrClosed
	}
	req, err := r.prepare(opts)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.cfg.Name, err)
	}
	st, err := f.Stat()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.cfg.Name, err)
	}
	if st.Size() == 0 {
		return nil, &transcribe.MediaError{Reason: "the media file is empty"}
	}
	format := media.Sniff(head[:n])
	if !r.AcceptsFile(string(format)) || st.Size()+multipartSlack > r.cfg.MaxRequestBytes {
		return nil, fmt.Errorf("%s: a %s file of %d bytes: %w", r.cfg.Name, format, st.Size(), transcribe.ErrFileNotTaken)
	}
	if r.Capacity() > 1 && opts.Duration > PoolWholeFile {
		// Several servers: the Service's pieces go to all of them at
		// once, rather than the whole file to one.
		return nil, fmt.Errorf("%s: %v of audio for %d servers at once: %w", r.cfg.Name, opts.Duration, r.Capacity(), transcribe.ErrFileNotTaken)
	}
	ext, ctype := fileType(format)
	size := st.Size()
	send := func(fields []Field) (*result, error) {
		fhead, tail, mtype := multipartFrame(fields, "audio"+ext, ctype)
		body := func() (io.ReadCloser, int64, error) {
			f, err := os.Open(path)
			if err != nil {
				return nil, 0, err
			}
			rd := io.MultiReader(bytes.NewReader(fhead), io.LimitReader(f, size), bytes.NewReader(tail))
			return readCloser{rd, f}, int64(len(fhead)) + size + int64(len(tail)), nil
		}
		return r.post(ctx, mtype, body, -1, opts.Duration.Milliseconds())
	}
	fields := r.fields(req)
	res, err := send(fields)
	if err == nil && r.undetected(fields, res) {
		res, err = send(withAuto(fields))
	}
	var e *Error
	if errors.As(err, &e) && e.Refusal() {
		return nil, fmt.Errorf("%s: the engine refused the %s file (HTTP %d: %s): %w", r.cfg.Name, format, e.StatusCode, e.Message, transcribe.ErrFileNotTaken)
	}
	if err != nil {
		return nil, err
	}
	rec := &transcribe.Recognition{Model: r.cfg.Name, Language: req.Language}
	if req.Language == "" || res.language == req.Language {
		rec.Language, rec.LanguageConfidence = res.language, res.langConf
	}
	r.finish(rec, res.words, opts)
	return rec, nil
}

type readCloser struct {
	io.Reader
	io.Closer
}

// fileType gives a file name extension and content type for format; the
// OpenAI API checks the extension.
func fileType(f media.Format) (string, string) {
	switch f {
	case media.FormatWAV:
		return ".wav", "audio/wav"
	case media.FormatMP3:
		return ".mp3", "audio/mpeg"
	case media.FormatFLAC:
		return ".flac", "audio/flac"
	case media.FormatVorbis, media.FormatOpus, media.FormatOgg:
		return ".ogg", "audio/ogg"
	case media.FormatMP4:
		return ".m4a", "audio/mp4"
	case media.FormatMatroska:
		return ".webm", "audio/webm"
	case media.FormatAAC:
		return ".aac", "audio/aac"
	}
	if f == "" {
		return ".bin", "application/octet-stream"
	}
	return "." + string(f), "application/octet-stream"
}

// multipartFrame returns the bytes before and after the file's content in
// a multipart/form-data body with fields and a "file" part, and the body's
// content type.
func multipartFrame(fields []Field, filename, ctype string) (head, tail []byte, contentType string) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for _, f := range fields {
		_ = mw.WriteField(f.Name, f.Value)
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, filename))
	h.Set("Content-Type", ctype)
	_, _ = mw.CreatePart(h)
	head = bytes.Clone(b.Bytes())
	b.Reset()
	_ = mw.Close()
	return head, bytes.Clone(b.Bytes()), mw.FormDataContentType()
}
