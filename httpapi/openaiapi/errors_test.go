package openaiapi_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/httpapi/openaiapi"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// TestRequestErrors sends every kind of bad request to a real Service and
// checks OpenAI's error envelope, status, type, param and code, and that
// nothing is kept: a file stored before the mistake was found is removed.
func TestRequestErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{handler: func(c *openaiapi.Config) { c.AuthFailureRate = -1 }})
	wav := string(sentence(t))
	const bad = "invalid_request_error"
	cases := []struct {
		name                        string
		fields                      []field
		status                      int
		param, code, messagePattern string
	}{
		{"no file", []field{{"model", "whisper-1"}}, 400, "file", "", "file is required"},
		{"empty file", []field{{"model", "whisper-1"}, {"file", ""}}, 400, "file", "", "empty"},
		{"no model", []field{{"file", wav}}, 400, "model", "", "must provide a model"},
		{"unknown model", []field{{"model", "gpt-9-transcribe"}, {"file", wav}}, 400, "model", "model_not_found", "this server has whisper-1, pocketsphinx"},
		{"unknown model after the file", []field{{"file", wav}, {"model", "gpt-9-transcribe"}}, 400, "model", "model_not_found", "gpt-9-transcribe"},
		{"model twice", []field{{"model", "whisper-1"}, {"model", "whisper-1"}, {"file", wav}}, 400, "model", "", "given 2 times"},
		{"bad format", []field{{"model", "whisper-1"}, {"response_format", "xml"}, {"file", wav}}, 400, "response_format", "invalid_value", "'verbose_json'"},
		{"bad format after the file", []field{{"model", "whisper-1"}, {"file", wav}, {"response_format", "json2"}}, 400, "response_format", "invalid_value", "json2"},
		{"bad granularity", []field{{"model", "whisper-1"}, {"timestamp_granularities[]", "sentence"}, {"file", wav}}, 400, "timestamp_granularities[]", "invalid_value", "'word' or 'segment'"},
		{"bad temperature", []field{{"model", "whisper-1"}, {"temperature", "1.5"}, {"file", wav}}, 400, "temperature", "invalid_value", "between 0 and 1"},
		{"bad language", []field{{"model", "whisper-1"}, {"language", "klingon"}, {"file", wav}}, 400, "language", "invalid_language_format", "ISO-639-1"},
		// The Service refuses it at Submit: pocketsphinx transcribes en only.
		{"language the engine lacks", []field{{"model", "whisper-1"}, {"language", "fr"}, {"file", wav}}, 400, "language", "", `transcribes en, not "fr"`},
		{"stream", []field{{"model", "whisper-1"}, {"stream", "true"}, {"file", wav}}, 400, "stream", "unsupported_value", "not supported"},
		{"two files", []field{{"model", "whisper-1"}, {"file", wav}, {"file", wav}}, 400, "file", "", "more than one file"},
		{"undecodable file", []field{{"model", "whisper-1"}, {"file", strings.Repeat("this is not audio ", 200)}}, 400, "file", "", "could not be transcribed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := f.transcribe(t, c.fields...)
			expectError(t, r, c.status, bad, c.param, c.code, c.messagePattern)
		})
	}
	t.Run("file in another field", func(t *testing.T) {
		t.Parallel()
		body := "--B\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n" +
			"--B\r\nContent-Disposition: form-data; name=\"audio\"; filename=\"a.wav\"\r\n\r\nRIFF\r\n--B--\r\n"
		r := f.do(t, context.Background(), "POST", "/v1/audio/transcriptions", key1, "multipart/form-data; boundary=B", strings.NewReader(body))
		expectError(t, r, 400, bad, "audio", "", `goes in the field "file"`)
	})
	t.Run("not multipart", func(t *testing.T) {
		t.Parallel()
		r := f.do(t, context.Background(), "POST", "/v1/audio/transcriptions", key1, "application/json", strings.NewReader(`{"model":"whisper-1"}`))
		expectError(t, r, 400, bad, "", "", "expected multipart/form-data")
	})
	t.Run("cut-off body", func(t *testing.T) {
		t.Parallel()
		body, ct := form(t, field{"model", "whisper-1"}, field{"file", wav})
		r := f.do(t, context.Background(), "POST", "/v1/audio/transcriptions", key1, ct, bytes.NewReader(body[:len(body)/2]))
		expectError(t, r, 400, bad, "file", "", "cut off")
	})
	t.Run("wrong key", func(t *testing.T) {
		t.Parallel()
		body, ct := form(t, field{"model", "whisper-1"}, field{"file", wav})
		r := f.do(t, context.Background(), "POST", "/v1/audio/transcriptions", "sk-wrong-key-1234567890", ct, bytes.NewReader(body))
		expectError(t, r, 401, bad, "", "invalid_api_key", "Incorrect API key provided: sk-****************7890")
		if !r.close {
			t.Error("the connection is kept after a failed authentication")
		}
	})
	t.Run("no key", func(t *testing.T) {
		t.Parallel()
		r := f.do(t, context.Background(), "GET", "/v1/models", "", "", nil)
		expectError(t, r, 401, bad, "", "", "You didn't provide an API key")
	})
	t.Run("method", func(t *testing.T) {
		t.Parallel()
		r := f.do(t, context.Background(), "GET", "/v1/audio/transcriptions", key1, "", nil)
		expectError(t, r, 405, bad, "", "", "use POST")
		if r.header.Get("Allow") != "POST" {
			t.Errorf("Allow %q", r.header.Get("Allow"))
		}
	})
	t.Run("unknown path", func(t *testing.T) {
		t.Parallel()
		r := f.do(t, context.Background(), "POST", "/v1/audio/translations", key1, "", nil)
		expectError(t, r, 404, bad, "", "", "Invalid URL (POST /v1/audio/translations)")
	})
	t.Cleanup(func() { f.expectNothingKept(t) })
}

// TestTooLarge checks the 413 for a file over the handler's cap and over
// the Service's own cap, and that neither keeps anything.
func TestTooLarge(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 64<<10)
	for _, c := range []struct {
		name string
		o    fixtureOptions
	}{
		{"handler cap", fixtureOptions{workers: -1, handler: func(c *openaiapi.Config) { c.MaxUploadBytes = 1000 }}},
		{"service cap", fixtureOptions{workers: -1, service: func(c *transcribe.Config) { c.MaxUploadBytes = 1000 }}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, c.o)
			r := f.transcribe(t, field{"model", "whisper-1"}, field{"file", big})
			expectError(t, r, 413, "invalid_request_error", "file", "", "1000")
			f.expectNothingKept(t)
		})
	}
}

// TestAuthFailureLimit checks that an address that keeps sending wrong
// keys gets 429 before its key is looked at (a right key included).
func TestAuthFailureLimit(t *testing.T) {
	t.Parallel()
	// One failure per 100 s, a burst of 1.
	f := newFixture(t, fixtureOptions{workers: -1, handler: func(c *openaiapi.Config) { c.AuthFailureRate = 0.01 }})
	ctx := context.Background()
	if r := f.do(t, ctx, "GET", "/v1/models", "wrong-key-number-000", "", nil); r.status != 401 {
		t.Fatalf("first failure: status %d", r.status)
	}
	r := f.do(t, ctx, "GET", "/v1/models", key1, "", nil)
	expectError(t, r, 429, "requests", "", "rate_limit_exceeded", "failed authentications")
}

// TestEngineFailures pins how a transcript that failed for the server's
// reasons is answered: 503 when the engine is unavailable, 500 for
// anything else, with fixed messages; their detail stays in the log. It
// fails if the Service's fixed sentences change (see errors.go).
func TestEngineFailures(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err     error
		status  int
		message string
	}{
		{transcribe.ErrUnavailable, http.StatusServiceUnavailable, "engine is unavailable"},
		{errors.New("decoder exploded at /secret/path"), http.StatusInternalServerError, "server had an error"},
	} {
		t.Run(c.message, func(t *testing.T) {
			t.Parallel()
			rec := &transcribetest.FakeRecognizer{Err: c.err}
			f := newFixture(t, fixtureOptions{engines: []transcribe.Engine{{Name: "fake", Recognizer: rec}}})
			r := f.transcribe(t, field{"model", "whisper-1"}, field{"file", string(sentence(t))})
			expectError(t, r, c.status, "server_error", "", "", c.message)
			if strings.Contains(string(r.body), "secret") {
				t.Errorf("internal detail leaked: %s", r.body)
			}
			f.expectNothingKept(t)
		})
	}
}
