package openaiapi

import (
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Format is a response_format.
type Format string

// The response formats of OpenAI's createTranscription.
const (
	FormatJSON         Format = "json"          // {"text", "usage"}
	FormatText         Format = "text"          // the text, text/plain
	FormatSRT          Format = "srt"           // SubRip captions, text/plain
	FormatVTT          Format = "vtt"           // WebVTT captions, text/plain
	FormatVerboseJSON  Format = "verbose_json"  // text, language, duration, segments and/or words
	FormatDiarizedJSON Format = "diarized_json" // segments with speaker labels
)

// Formats lists every Format, in OpenAI's documentation order.
func Formats() []Format {
	return []Format{FormatJSON, FormatText, FormatSRT, FormatVerboseJSON, FormatVTT, FormatDiarizedJSON}
}

// request is a transcription request's fields other than the file.
type request struct {
	model       string
	language    string // as sent (normalized by languageCode)
	prompt      string
	format      Format
	words       bool // timestamp_granularities[] has "word"
	segments    bool // ... "segment" (the default of verbose_json)
	temperature *float64
}

// Limits of single fields.
const (
	maxModelName = 256
	maxFields    = 64
)

// parseFields checks the form fields of a transcription request (all but
// the file) and returns the request, or an *Error naming the field.
// Unknown fields (chunking_strategy, include[], known_speaker_names[]...)
// are ignored; a single-valued field given twice is an error.
func parseFields(v url.Values) (*request, *Error) {
	for _, name := range []string{"model", "language", "prompt", "response_format", "temperature", "stream"} {
		if len(v[name]) > 1 {
			return nil, invalid(name, "", "The field %s is given %d times; give it once.", name, len(v[name]))
		}
	}
	req := &request{format: FormatJSON}
	req.model = strings.TrimSpace(v.Get("model"))
	switch {
	case req.model == "":
		return nil, invalid("model", "", "you must provide a model parameter")
	case len(req.model) > maxModelName:
		return nil, invalid("model", "", "The model name is longer than %d bytes.", maxModelName)
	}
	if f := strings.TrimSpace(v.Get("response_format")); f != "" {
		req.format = Format(f)
		if !slices.Contains(Formats(), req.format) {
			names := make([]string, 0, len(Formats()))
			for _, f := range Formats() {
				names = append(names, "'"+string(f)+"'")
			}
			return nil, invalid("response_format", "invalid_value", "Invalid response_format %q: must be one of %s.", f, strings.Join(names, ", "))
		}
	}
	// The SDKs send arrays as repeated "name[]" fields; some clients send
	// the bare name or one comma-separated value.
	for _, name := range []string{"timestamp_granularities[]", "timestamp_granularities"} {
		for _, raw := range v[name] {
			for _, g := range strings.Split(raw, ",") {
				switch strings.TrimSpace(g) {
				case "word":
					req.words = true
				case "segment":
					req.segments = true
				default:
					return nil, invalid("timestamp_granularities[]", "invalid_value", "Invalid timestamp granularity %q: must be 'word' or 'segment'.", g)
				}
			}
		}
	}
	if req.format == FormatVerboseJSON && !req.words {
		// OpenAI's default granularity is segment.
		req.segments = true
	}
	req.language = strings.TrimSpace(v.Get("language"))
	req.prompt = v.Get("prompt")
	if t := strings.TrimSpace(v.Get("temperature")); t != "" {
		f, err := strconv.ParseFloat(t, 64)
		if err != nil || !(f >= 0 && f <= 1) {
			return nil, invalid("temperature", "invalid_value", "Invalid temperature %q: must be a number between 0 and 1.", t)
		}
		req.temperature = &f
	}
	if s := strings.TrimSpace(v.Get("stream")); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return nil, invalid("stream", "invalid_value", "Invalid stream %q: must be true or false.", s)
		}
		if b {
			return nil, invalid("stream", "unsupported_value", "Streaming transcriptions are not supported here; leave stream unset, or use the realtime API (/v2/realtime/ws).")
		}
	}
	return req, nil
}

// errNoMultipart is a request whose body is not multipart/form-data.
func errNoMultipart(ct string) *Error {
	if ct == "" {
		ct = "none"
	}
	return invalid("", "", "Invalid Content-Type header (%s), expected multipart/form-data.", ct)
}

// boundaryOf returns the multipart boundary of a Content-Type header.
func boundaryOf(contentType string) (string, *Error) {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || mt != "multipart/form-data" {
		return "", errNoMultipart(contentType)
	}
	b := params["boundary"]
	if b == "" {
		return "", invalid("", "", "The multipart/form-data Content-Type header has no boundary.")
	}
	return b, nil
}

// fileFunc receives the "file" part and the fields read before it; it
// must read the part to its end (or fail). Its error ends readForm and is
// returned as it is.
type fileFunc func(file io.Reader, before url.Values) error

// readForm reads a multipart/form-data body part by part, never holding
// the file in memory: fields go into the returned values (at most maxForm
// bytes of them together, and at most maxFields), the "file" part goes to
// file. Client mistakes are *Error: a malformed body, fields over the
// limit, a second file, a file in another field, no file.
func readForm(body io.Reader, boundary string, maxForm int64, file fileFunc) (url.Values, error) {
	mr := multipart.NewReader(body, boundary)
	v := url.Values{}
	left := maxForm
	seenFile, fields := false, 0
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, malformed(err)
		}
		name := p.FormName()
		if name == "file" {
			if seenFile {
				p.Close()
				return nil, invalid("file", "", "The form has more than one file field; send one file per request.")
			}
			seenFile = true
			if err := file(p, v); err != nil {
				p.Close()
				return nil, err
			}
			p.Close()
			continue
		}
		if p.FileName() != "" {
			p.Close()
			return nil, invalid(name, "", "Unexpected file in the field %q: the audio goes in the field \"file\".", name)
		}
		if fields++; fields > maxFields {
			p.Close()
			return nil, invalid("", "", "The form has more than %d fields.", maxFields)
		}
		b, err := io.ReadAll(io.LimitReader(p, left+1))
		p.Close()
		if err != nil {
			return nil, malformed(err)
		}
		if left -= int64(len(b)); left < 0 {
			return nil, invalid(name, "", "The form's fields (besides the file) are larger than %d bytes.", maxForm)
		}
		if name != "" {
			v.Add(name, string(b))
		}
	}
	if !seenFile {
		return nil, invalid("file", "", "The field file is required: send the audio as the multipart/form-data field \"file\".")
	}
	return v, nil
}

// malformed is the Error for a body the multipart reader rejects, or one
// cut off mid-field.
func malformed(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return err
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return invalid("", "", "The multipart/form-data body ended early (it was cut off or stopped flowing).")
	}
	return invalid("", "", "The multipart/form-data body is malformed: %s", strings.TrimPrefix(err.Error(), "multipart: "))
}
