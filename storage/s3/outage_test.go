package s3_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/earshot-dev/earshot/storage/s3"
	"github.com/earshot-dev/earshot/transcribe"
)

// TestOutageIsStorageUnavailable (issue 25.9): an S3 server that cannot
// work now (503, 500), a connection cut in the middle of a blob, and an
// endpoint that stopped answering are transcribe.ErrStorageUnavailable,
// the outage the Service waits out; a missing blob or a refused request
// is not.
func TestOutageIsStorageUnavailable(t *testing.T) {
	t.Parallel()
	var mode atomic.Value
	mode.Store("ok")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/blobs/" || r.URL.Path == "/blobs" { // the bucket check of New: an empty listing
			w.Header().Set("Content-Type", "application/xml")
			io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>blobs</Name><Prefix></Prefix><KeyCount>0</KeyCount><MaxKeys>1</MaxKeys><IsTruncated>false</IsTruncated></ListBucketResult>`)
			return
		}
		w.Header().Set("Content-Type", "application/xml")
		switch mode.Load().(string) {
		case "503":
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `<Error><Code>ServiceUnavailable</Code><Message>Please reduce your request rate.</Message></Error>`)
		case "500":
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, `<Error><Code>InternalError</Code><Message>We encountered an internal error.</Message></Error>`)
		case "404":
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>`)
		case "403":
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`)
		case "cut":
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Header().Set("Content-Length", "100000")
			w.Header().Set("Last-Modified", "Mon, 02 Jan 2006 15:04:05 GMT")
			w.Header().Set("ETag", `"0123456789abcdef0123456789abcdef"`)
			w.WriteHeader(http.StatusOK)
			w.Write(make([]byte, 1000))
			w.(http.Flusher).Flush()
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		}
	}))
	defer srv.Close()
	store, err := s3.New(t.Context(), s3.Config{Endpoint: srv.URL, Bucket: "blobs", AccessKey: "AKIDOUTAGETEST", SecretKey: "outage-test-secret-key", MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	open := func() error {
		rc, err := store.Open(t.Context(), "uploads/x")
		if err != nil {
			return err
		}
		defer rc.Close()
		_, err = io.Copy(io.Discard, rc)
		return err
	}
	for _, c := range []struct {
		mode   string
		outage bool
	}{{"503", true}, {"500", true}, {"cut", true}, {"404", false}, {"403", false}} {
		mode.Store(c.mode)
		err := open()
		if err == nil {
			t.Fatalf("%s: Open and read succeeded", c.mode)
		}
		if got := errors.Is(err, transcribe.ErrStorageUnavailable); got != c.outage {
			t.Errorf("%s: ErrStorageUnavailable %v, want %v (%v)", c.mode, got, c.outage, err)
		}
	}
	srv.Close()
	if err := open(); !errors.Is(err, transcribe.ErrStorageUnavailable) || !errors.Is(err, s3.ErrUnreachable) {
		t.Errorf("endpoint gone: %v, want ErrUnreachable and ErrStorageUnavailable", err)
	}
}
