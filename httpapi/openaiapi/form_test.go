package openaiapi

import (
	"bytes"
	"errors"
	"io"
	"mime/multipart"
	"net/url"
	"slices"
	"strings"
	"testing"
)

func TestParseFields(t *testing.T) {
	t.Parallel()
	v := url.Values{"model": {" whisper-1 "}, "response_format": {"verbose_json"}, "timestamp_granularities[]": {"word"},
		"language": {"en"}, "prompt": {"ZyntriQix, Digique Plus"}, "temperature": {"0.2"}, "stream": {"false"}, "include[]": {"logprobs"}}
	r, e := parseFields(v)
	if e != nil {
		t.Fatal(e)
	}
	if r.model != "whisper-1" || r.format != FormatVerboseJSON || !r.words || r.segments || r.language != "en" ||
		r.prompt != "ZyntriQix, Digique Plus" || r.temperature == nil || *r.temperature != 0.2 {
		t.Errorf("%+v", r)
	}
	for _, c := range []struct {
		fields          url.Values
		format          Format
		words, segments bool
	}{
		{url.Values{}, FormatJSON, false, false},
		{url.Values{"response_format": {"verbose_json"}}, FormatVerboseJSON, false, true},
		{url.Values{"response_format": {"verbose_json"}, "timestamp_granularities[]": {"word", "segment"}}, FormatVerboseJSON, true, true},
		{url.Values{"response_format": {"verbose_json"}, "timestamp_granularities": {"word,segment"}}, FormatVerboseJSON, true, true},
		{url.Values{"response_format": {"text"}, "timestamp_granularities[]": {"word"}}, FormatText, true, false},
	} {
		c.fields.Set("model", "m")
		r, e := parseFields(c.fields)
		if e != nil || r.format != c.format || r.words != c.words || r.segments != c.segments {
			t.Errorf("%v: %+v %v", c.fields, r, e)
		}
	}
	for _, c := range []struct {
		fields url.Values
		param  string
	}{
		{url.Values{}, "model"},
		{url.Values{"model": {"  "}}, "model"},
		{url.Values{"model": {strings.Repeat("m", 300)}}, "model"},
		{url.Values{"model": {"a", "b"}}, "model"},
		{url.Values{"model": {"m"}, "response_format": {"JSON"}}, "response_format"},
		{url.Values{"model": {"m"}, "response_format": {"json", "text"}}, "response_format"},
		{url.Values{"model": {"m"}, "timestamp_granularities[]": {"words"}}, "timestamp_granularities[]"},
		{url.Values{"model": {"m"}, "timestamp_granularities[]": {""}}, "timestamp_granularities[]"},
		{url.Values{"model": {"m"}, "temperature": {"hot"}}, "temperature"},
		{url.Values{"model": {"m"}, "temperature": {"-0.1"}}, "temperature"},
		{url.Values{"model": {"m"}, "temperature": {"NaN"}}, "temperature"},
		{url.Values{"model": {"m"}, "stream": {"yes please"}}, "stream"},
		{url.Values{"model": {"m"}, "stream": {"true"}}, "stream"},
	} {
		if _, e := parseFields(c.fields); e == nil || e.Param != c.param || e.Status != 400 || e.Type != TypeInvalidRequest {
			t.Errorf("%v: %v, want a 400 naming %s", c.fields, e, c.param)
		}
	}
}

// testBoundary is the boundary of multipartBody.
const testBoundary = "earshot-test-boundary"

// multipartBody builds a body with fields and, where a field is named
// "file", a file part.
func multipartBody(fields ...[2]string) []byte {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	mw.SetBoundary(testBoundary)
	for _, f := range fields {
		if f[0] == "file" {
			w, _ := mw.CreateFormFile("file", "a.wav")
			w.Write([]byte(f[1]))
		} else {
			mw.WriteField(f[0], f[1])
		}
	}
	mw.Close()
	return b.Bytes()
}

func TestReadForm(t *testing.T) {
	t.Parallel()
	body := multipartBody([2]string{"model", "whisper-1"}, [2]string{"file", "RIFF-audio"}, [2]string{"response_format", "text"})
	boundary := testBoundary
	var file string
	var before url.Values
	v, err := readForm(bytes.NewReader(body), boundary, 1000, func(r io.Reader, b url.Values) error {
		data, err := io.ReadAll(r)
		file, before = string(data), url.Values{}
		for k, vs := range b {
			before[k] = slices.Clone(vs)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if file != "RIFF-audio" || before.Encode() != "model=whisper-1" || v.Encode() != "model=whisper-1&response_format=text" {
		t.Errorf("file %q, before %v, all %v", file, before, v)
	}

	// The file callback's error is returned as it is.
	boom := errors.New("boom")
	if _, err := readForm(bytes.NewReader(body), boundary, 1000, func(io.Reader, url.Values) error { return boom }); err != boom {
		t.Errorf("callback error: %v", err)
	}
	discard := func(r io.Reader, _ url.Values) error { _, err := io.Copy(io.Discard, r); return err }
	full := string(multipartBody([2]string{"file", "abc"}, [2]string{"prompt", strings.Repeat("p", 100)}))
	cutOff := full[:strings.Index(full, "ppp")+50]
	for _, c := range []struct {
		name, body, param, message string
		max                        int64
	}{
		{"no file", string(multipartBody([2]string{"model", "m"})), "file", "file is required", 1000},
		{"two files", string(multipartBody([2]string{"file", "a"}, [2]string{"file", "b"})), "file", "more than one file", 1000},
		{"fields too large", string(multipartBody([2]string{"prompt", strings.Repeat("p", 600)}, [2]string{"model", strings.Repeat("m", 600)}, [2]string{"file", "a"})), "model", "larger than 1000 bytes", 1000},
		{"no parts", "not multipart at all", "file", "file is required", 1000},
		{"bad part header", "--" + testBoundary + "\r\nthis is no header\r\n\r\nx\r\n--" + testBoundary + "--\r\n", "", "malformed", 1000},
		{"cut off in a field", cutOff, "", "ended early", 1000},
	} {
		_, err := readForm(strings.NewReader(c.body), boundary, c.max, discard)
		var e *Error
		if !errors.As(err, &e) || e.Status != 400 || e.Param != c.param || !strings.Contains(e.Message, c.message) {
			t.Errorf("%s: %v, want a 400 naming %q saying %q", c.name, err, c.param, c.message)
		}
	}
	// Too many fields.
	var many [][2]string
	for range maxFields + 1 {
		many = append(many, [2]string{"x", "1"})
	}
	if _, err := readForm(bytes.NewReader(multipartBody(many...)), boundary, 1000, discard); err == nil || !strings.Contains(err.Error(), "more than 64 fields") {
		t.Errorf("too many fields: %v", err)
	}
}

func TestBoundaryOf(t *testing.T) {
	t.Parallel()
	if b, e := boundaryOf("multipart/form-data; boundary=abc"); e != nil || b != "abc" {
		t.Errorf("%q %v", b, e)
	}
	for _, ct := range []string{"", "application/json", "multipart/form-data", "multipart/mixed; boundary=x", "multipart/form-data; boundary"} {
		if _, e := boundaryOf(ct); e == nil || e.Status != 400 {
			t.Errorf("%q: %v", ct, e)
		}
	}
}

func TestLanguageCode(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"en": "en", "EN": "en", "en-US": "en_us", "en_uk": "en_uk", "de-CH": "de_ch", "de-AT": "de",
		"english": "en", "German": "de", "iw": "he", "jv": "jw", "nb": "no", "haitian creole": "ht", " fr ": "fr"} {
		if got, ok := languageCode(in); !ok || got != want {
			t.Errorf("languageCode(%q) = %q %v, want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "klingon", "xx", "auto", "en-", "_"} {
		if got, ok := languageCode(in); ok {
			t.Errorf("languageCode(%q) = %q, want refused", in, got)
		}
	}
	for in, want := range map[string]string{"en": "english", "en_us": "english", "zh": "chinese", "jw": "javanese", "xx": "xx", "": ""} {
		if got := languageName(in); got != want {
			t.Errorf("languageName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestKeyterms(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][]string{
		"ZyntriQix, Digique Plus, CynapseFive":                                  {"ZyntriQix", "Digique Plus", "CynapseFive"},
		"Kubernetes; terraform\nkubernetes":                                     {"Kubernetes", "terraform"},
		"Dr. Okafor met Mr. Li. They talked.":                                   {"Dr. Okafor met Mr. Li", "They talked"},
		"\"New York\", (Boston)":                                                {"New York", "Boston"},
		"Umm, let me think like, hmm... Okay, here's what I'm, like, thinking.": {"Umm", "let me think like", "hmm", "Okay", "here's what I'm", "like", "thinking"},
		"This sentence has far too many words to be a key term at all":          nil,
		"  ,, ;\n": nil,
	} {
		if got := keyterms(in); !slices.Equal(got, want) {
			t.Errorf("keyterms(%q) = %q, want %q", in, got, want)
		}
	}
	var long []string
	for i := range 300 {
		long = append(long, "term"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+string(rune('a'+i/26)))
	}
	if n := len(keyterms(strings.Join(long, ", "))); n != 200 {
		t.Errorf("%d terms, want the cap of 200", n)
	}
}
