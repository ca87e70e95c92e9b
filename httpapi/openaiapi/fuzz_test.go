package openaiapi

import (
	"bytes"
	"errors"
	"io"
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzReadForm feeds arbitrary bodies to the multipart reading: it must
// never panic, must keep the fields within their limits, must hand the
// file part to its callback at most once, and must fail only with an
// *Error (a client mistake) or the callback's own error.
func FuzzReadForm(f *testing.F) {
	f.Add(multipartBody([2]string{"model", "whisper-1"}, [2]string{"file", "RIFF"}, [2]string{"response_format", "text"}))
	f.Add(multipartBody([2]string{"file", "a"}, [2]string{"file", "b"}))
	f.Add(multipartBody([2]string{"timestamp_granularities[]", "word"}, [2]string{"timestamp_granularities[]", "segment"}))
	f.Add([]byte("--" + testBoundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"\r\n\r\nxx"))
	f.Add([]byte("--" + testBoundary + "\r\nContent-Type: text/plain\r\n\r\nx\r\n--" + testBoundary + "--\r\n"))
	f.Add([]byte("garbage"))
	const maxForm = 512
	errCallback := errors.New("callback")
	f.Fuzz(func(t *testing.T, body []byte) {
		calls := 0
		v, err := readForm(bytes.NewReader(body), testBoundary, maxForm, func(r io.Reader, before url.Values) error {
			calls++
			if _, err := io.Copy(io.Discard, r); err != nil {
				return errCallback
			}
			return nil
		})
		if calls > 1 {
			t.Fatalf("file callback called %d times", calls)
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) && err != errCallback {
				t.Fatalf("error %v (%T) is neither an *Error nor the callback's", err, err)
			}
			if e != nil && (e.Status != 400 || e.Message == "") {
				t.Fatalf("error %+v", e)
			}
			return
		}
		if calls != 1 {
			t.Fatal("success without a file")
		}
		size, n := 0, 0
		for _, vs := range v {
			for _, x := range vs {
				size += len(x)
				n++
			}
		}
		if size > maxForm || n > maxFields {
			t.Fatalf("%d bytes in %d fields kept", size, n)
		}
	})
}

// FuzzParseFields checks parseFields and what the handler derives from
// its result (language code, key terms) on arbitrary form values: no
// panic, and every accepted request within the documented rules.
func FuzzParseFields(f *testing.F) {
	f.Add("model=whisper-1&response_format=verbose_json&timestamp_granularities[]=word&language=en&prompt=Kubernetes,+Terraform&temperature=0.3")
	f.Add("model=m&timestamp_granularities=word,segment&language=en-US&stream=false")
	f.Add("model=m&language=english&prompt=Dr.+Okafor+met+Mr.+Li.+They+talked.")
	f.Add("model=&response_format=JSON&temperature=NaN")
	f.Fuzz(func(t *testing.T, query string) {
		v, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		r, e := parseFields(v)
		if e != nil {
			if e.Status != 400 || e.Type != TypeInvalidRequest || e.Param == "" || e.Message == "" {
				t.Fatalf("error %+v", e)
			}
			return
		}
		if r.model == "" || len(r.model) > maxModelName || !slices.Contains(Formats(), r.format) ||
			(r.temperature != nil && !(*r.temperature >= 0 && *r.temperature <= 1)) ||
			(r.format == FormatVerboseJSON && !r.words && !r.segments) {
			t.Fatalf("accepted %+v", r)
		}
		if code, ok := languageCode(r.language); ok && code == "" {
			t.Fatalf("language %q accepted as an empty code", r.language)
		}
		terms := keyterms(r.prompt)
		if len(terms) > 200 {
			t.Fatalf("%d terms", len(terms))
		}
		for _, term := range terms {
			if n := len(strings.Fields(term)); n < 1 || n > 6 || !utf8.ValidString(term) && utf8.ValidString(r.prompt) {
				t.Fatalf("term %q of prompt %q", term, r.prompt)
			}
		}
	})
}
