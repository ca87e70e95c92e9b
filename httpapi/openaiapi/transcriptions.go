package openaiapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// firstPoll is the first wait between two looks at a running transcript;
// each wait doubles up to Config.PollInterval.
const firstPoll = 20 * time.Millisecond

// cleanupTimeout bounds the store calls that delete a transcript or
// discard an upload after the client is gone.
const cleanupTimeout = time.Minute

// Why wait stopped before the transcript was final.
var (
	errGone     = errors.New("openaiapi: the client went away")
	errTimeout  = errors.New("openaiapi: Config.Timeout passed")
	errShutdown = errors.New("openaiapi: the handler is closing")
)

// JobProject is the project the transcripts of a /v1 request of project
// are filed under: project + ",v1". A comma cannot occur in a project of
// the reference server (EARSHOT_API_KEYS separates its entries with
// commas), so no API key names it: a /v1 transcript, even while it runs,
// is never in the project's GET /v2/transcript list nor readable by id
// through /v2, and the content-free record its deletion leaves is filed
// apart from the project's own (Service.List(ctx, JobProject(p), ...)
// lists them). Rate limits still count the request against project.
func JobProject(project string) string { return project + ",v1" }

// transcriptions serves POST /v1/audio/transcriptions: the multipart
// file streamed into Service.Upload, the fields checked and mapped onto
// TranscriptParams, Service.Submit, a wait for the transcript, and the
// rendered answer; the transcript is deleted before the answer is sent.
func (h *Handler) transcriptions(w http.ResponseWriter, r *http.Request, project string) {
	if !h.enter() {
		writeError(w, serverError(http.StatusServiceUnavailable, "The server is shutting down; try again shortly."))
		return
	}
	defer h.wg.Done()
	project = JobProject(project)
	ctx := r.Context()
	boundary, e := boundaryOf(r.Header.Get("Content-Type"))
	if e != nil {
		writeError(w, e)
		return
	}
	// The whole body is bounded too: the file, the fields, and room for
	// part headers and boundaries.
	body := http.MaxBytesReader(w, h.body(w, r), h.cfg.MaxUploadBytes+h.cfg.MaxFormBytes+1<<20)
	var upload *driver.Upload
	fields, err := readForm(body, boundary, h.cfg.MaxFormBytes, func(file io.Reader, before url.Values) error {
		// Check the fields sent before the file now, so that a bad
		// request stores nothing.
		if e := h.precheck(before); e != nil {
			return e
		}
		cr := &capReader{r: file, n: h.cfg.MaxUploadBytes}
		u, err := h.svc.Upload(ctx, project, cr)
		if cr.over {
			if u != nil {
				h.discardUpload(project, u.ID)
			}
			return tooLarge(h.cfg.MaxUploadBytes)
		}
		if err == nil && cr.err != nil {
			// Stored although the body broke off (a BlobStore may take
			// io.ErrUnexpectedEOF for the end of its input).
			h.discardUpload(project, u.ID)
			err = &transcribe.ReadError{Err: cr.err}
		}
		if err != nil {
			return err
		}
		upload = u
		return nil
	})
	if err != nil {
		if upload != nil {
			h.discardUpload(project, upload.ID)
		}
		h.fail(w, r, err)
		return
	}
	// Read the body to its end (the epilogue after the closing boundary,
	// normally nothing): the server notices a client that goes away only
	// once the body is consumed, and the idle deadline is lifted then.
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 64<<10))
	req, e := parseFields(fields)
	var eng *transcribe.Engine
	if e == nil {
		eng, e = h.engine(req.model)
	}
	var params transcribe.TranscriptParams
	if e == nil {
		params, e = h.params(req, eng)
	}
	if e != nil {
		h.discardUpload(project, upload.ID)
		writeError(w, e)
		return
	}
	t, err := h.svc.Submit(ctx, project, transcribe.SubmitRequest{UploadID: upload.ID, Params: params})
	if err != nil {
		h.discardUpload(project, upload.ID)
		h.fail(w, r, err)
		return
	}
	id := t.ID
	t, err = h.wait(ctx, project, id, h.cfg.Timeout)
	switch {
	case errors.Is(err, errGone):
		// Nobody is waiting for the answer: the job goes on, and its
		// transcript is deleted once it is final.
		h.abandon(project, id)
		return
	case errors.Is(err, errTimeout):
		h.abandon(project, id)
		writeError(w, &Error{Status: http.StatusGatewayTimeout, Type: TypeServer, Code: "timeout",
			Message: "The transcription did not finish within this server's time limit; it was dropped."})
		return
	case errors.Is(err, errShutdown):
		h.remove(project, id)
		writeError(w, serverError(http.StatusServiceUnavailable, "The server is shutting down; try again shortly."))
		return
	case err != nil:
		h.log.Error("waiting for a transcript", "id", id, "err", err)
		h.abandon(project, id)
		writeError(w, serverError(http.StatusInternalServerError, "The server had an error while processing your request."))
		return
	}
	// OpenAI keeps nothing: the transcript is deleted before the answer
	// goes out.
	if t.Status != transcribe.StatusCompleted {
		h.remove(project, id)
		writeError(w, fromTranscript(t))
		return
	}
	ct, out, err := Render(t, req.renderOptions())
	h.remove(project, id)
	if err != nil {
		h.log.Error("rendering a transcript", "id", t.ID, "format", req.format, "err", err)
		writeError(w, serverError(http.StatusInternalServerError, "The server had an error while processing your request."))
		return
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out)
}

// fail writes the Error for err (an *Error, a too-large body, or an error
// of the Service), logging the server's own failures.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	var e *Error
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &e):
	case errors.As(err, &mbe):
		e = tooLarge(h.cfg.MaxUploadBytes)
	case errors.Is(err, context.Canceled) && r.Context().Err() != nil:
		// The client hung up before its file was stored: its failure, not
		// the server's (nobody reads this answer; the access log and
		// metrics do).
		h.log.InfoContext(r.Context(), "transcription request cancelled by the client before its file was stored", "path", r.URL.Path)
		e = &Error{Status: http.StatusBadRequest, Type: TypeInvalidRequest, Param: "file", Message: "The request was cancelled before its file was stored."}
	default:
		var client bool
		if e, client = fromService(err); !client {
			h.log.Error("transcription request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		}
	}
	if e.Status == http.StatusRequestEntityTooLarge || e.Status == http.StatusBadRequest {
		// The rest of the body is not read: do not keep the connection.
		w.Header().Set("Connection", "close")
	}
	writeError(w, e)
}

// precheck checks the fields that came before the file. A missing model
// is not an error yet: it may follow the file.
func (h *Handler) precheck(before url.Values) *Error {
	v := url.Values{}
	for k, vs := range before {
		v[k] = vs
	}
	if len(v["model"]) == 0 {
		v.Set("model", DefaultModel)
	}
	req, e := parseFields(v)
	if e != nil {
		return e
	}
	eng := &h.cfg.Engines[0]
	if len(before["model"]) > 0 {
		if eng, e = h.engine(req.model); e != nil {
			return e
		}
	}
	_, e = h.params(req, eng)
	return e
}

// params maps a request onto the Service's parameters for engine eng:
//
//   - model selects the engine (speech_model is set to its name);
//   - language becomes language_code; without it, language detection is
//     on, with the engine's first language as the fallback when the audio
//     holds no speech (so silence gives an empty text, as on OpenAI);
//   - prompt is the prompt of an engine that takes one (whisper-class
//     engines), and otherwise becomes keyterms_prompt: its comma-,
//     semicolon- or line-separated phrases of up to six words, so a
//     glossary prompt ("Kubernetes, Terraform, Dr. Okafor") boosts those
//     terms in pocketsphinx;
//   - temperature is checked and echoed;
//   - diarized_json turns speaker_labels on.
func (h *Handler) params(req *request, eng *transcribe.Engine) (transcribe.TranscriptParams, *Error) {
	name := eng.Name
	p := transcribe.TranscriptParams{SpeechModel: &name, Temperature: req.temperature}
	feat := eng.Recognizer.Features()
	if req.language != "" {
		code, ok := languageCode(req.language)
		if !ok {
			return p, invalid("language", "invalid_language_format", "Invalid language '%s'. Language parameter must be specified in ISO-639-1 format (for example 'en').", req.language)
		}
		p.LanguageCode = &code
	} else {
		p.LanguageDetection = transcribe.Ptr(true)
		fallback := "en"
		if len(feat.Languages) > 0 {
			fallback = feat.Languages[0]
		}
		if slices.Contains(transcribe.LanguageCodes(), fallback) {
			p.LanguageDetectionOptions = &transcribe.LanguageDetectionOptions{
				OnNoSpeechDetected: transcribe.Ptr("fallback"), FallbackLanguage: &fallback}
		}
	}
	if prompt := strings.TrimSpace(req.prompt); prompt != "" {
		if feat.Prompt && !slices.Contains(transcribe.KnownSpeechModels(), eng.Name) {
			p.Prompt = &prompt
		} else {
			p.KeytermsPrompt = keyterms(prompt)
		}
	}
	if req.format == FormatDiarizedJSON {
		p.SpeakerLabels = transcribe.Ptr(true)
	}
	return p, nil
}

// keyterms splits a prompt into boost phrases: pieces between commas,
// semicolons, line breaks and sentence ends, trimmed of quotes and
// brackets, of one to transcribe.MaxTermWords words, each once, at most
// transcribe.MaxKeytermsUniversal of them. Longer pieces (prose) are
// left out.
func keyterms(prompt string) []string {
	pieces := strings.FieldsFunc(prompt, func(r rune) bool {
		return r == ',' || r == ';' || r == '\n' || r == '\r' || r == '\t' || r == '|'
	})
	var out []string
	seen := map[string]bool{}
	for _, piece := range pieces {
		for _, s := range splitSentences(piece) {
			s = strings.Trim(strings.TrimSpace(s), "\"'“”‘’()[]{}.?!:")
			s = strings.Join(strings.Fields(s), " ")
			n := len(strings.Fields(s))
			if n == 0 || n > transcribe.MaxTermWords || seen[strings.ToLower(s)] {
				continue
			}
			seen[strings.ToLower(s)] = true
			out = append(out, s)
			if len(out) == transcribe.MaxKeytermsUniversal {
				return out
			}
		}
	}
	return out
}

// splitSentences cuts s after ". ", "? " and "! " (but not after a short
// title such as "Dr. " or "Mr. ").
func splitSentences(s string) []string {
	var out []string
	start := 0
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == '.' || s[i] == '?' || s[i] == '!') && s[i+1] == ' ' {
			if s[i] == '.' {
				words := strings.Fields(s[start:i])
				if len(words) > 0 && len(words[len(words)-1]) <= 3 && isTitle(words[len(words)-1]) {
					continue
				}
			}
			out = append(out, s[start:i+1])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func isTitle(w string) bool {
	switch strings.ToLower(w) {
	case "dr", "mr", "mrs", "ms", "st", "jr", "sr", "prof":
		return true
	}
	return false
}

// wait polls the transcript until it is final. It stops early, with
// errGone when ctx ends, errTimeout after timeout (0: none), and
// errShutdown when Close is called.
func (h *Handler) wait(ctx context.Context, project, id string, timeout time.Duration) (*transcribe.Transcript, error) {
	var deadline <-chan time.Time
	if timeout > 0 {
		tm := time.NewTimer(timeout)
		defer tm.Stop()
		deadline = tm.C
	}
	d := firstPoll
	tick := time.NewTimer(d)
	defer tick.Stop()
	for {
		if ctx.Err() != nil {
			return nil, errGone
		}
		t, err := h.svc.Get(ctx, project, id)
		if err != nil {
			if ctx.Err() != nil {
				return nil, errGone
			}
			return nil, err
		}
		if t.Status.Final() {
			return t, nil
		}
		select {
		case <-ctx.Done():
			return nil, errGone
		case <-deadline:
			return nil, errTimeout
		case <-h.closing:
			return nil, errShutdown
		case <-tick.C:
		}
		d = min(d*2, h.cfg.PollInterval)
		tick.Reset(d)
	}
}

// abandon deletes transcript id of a request nobody waits for any more
// once it is final (or at once when Close is called), in the background.
func (h *Handler) abandon(project, id string) {
	h.wg.Add(1) // the caller holds a count, so Close cannot have finished waiting
	go func() {
		defer h.wg.Done()
		if _, err := h.wait(context.Background(), project, id, 0); err != nil && !errors.Is(err, errShutdown) {
			h.log.Warn("waiting for an abandoned transcript; deleting it now", "id", id, "err", err)
		}
		h.remove(project, id)
	}()
}

// remove deletes transcript id (its content, upload and artifacts); a
// transcript still running is stopped by it. Failures are logged.
func (h *Handler) remove(project, id string) {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	if _, err := h.svc.Delete(ctx, project, id); err != nil {
		h.log.Error("deleting a served transcript", "id", id, "err", err)
	}
}

// discardUpload removes an upload that no transcript will use (the
// request was refused after the file was stored). The Service has no call
// for that, so the upload is attached to a transcript with default
// parameters that is deleted at once, which removes the upload (and
// leaves a content-free record, like every transcript this handler
// serves). Should that fail, the Service's janitor removes the upload
// after its UploadTTL.
func (h *Handler) discardUpload(project, uploadID string) {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	t, err := h.svc.Submit(ctx, project, transcribe.SubmitRequest{UploadID: uploadID})
	if err != nil {
		h.log.Warn("discarding an unused upload; the janitor will remove it", "upload_id", uploadID, "err", err)
		return
	}
	if _, err := h.svc.Delete(ctx, project, t.ID); err != nil {
		h.log.Warn("discarding an unused upload; the janitor will remove it", "upload_id", uploadID, "err", err)
	}
}
