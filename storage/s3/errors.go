package s3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"github.com/minio/minio-go/v7"

	"github.com/earshot-dev/earshot/transcribe"
)

// Error is the error every Store method and New return. It names the
// operation, the endpoint, the bucket and the key; credentials never
// appear in its text. errors.Is finds its sentinel (transcribe.ErrNotFound,
// ErrNoBucket, ErrAccessDenied, ErrUnreachable, ErrInvalidKey,
// ErrTooLarge) and anything Err wraps (a reader's error, context.Canceled).
type Error struct {
	Op       string // "new", "put", "open", "read", "delete", "create bucket", "abort incomplete"
	Endpoint string // scheme://host[:port]
	Bucket   string
	Key      string // the Store's key (without Prefix); empty for bucket operations
	Code     string // S3 error code ("NoSuchKey", "AccessDenied"); empty without a response
	Status   int    // HTTP status; 0 without a response
	Err      error  // the cause

	kind    error    // sentinel, may be nil
	secrets []string // redacted from the text
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("s3: ")
	b.WriteString(e.Op)
	if e.Key != "" {
		fmt.Fprintf(&b, " %q", e.Key)
	}
	fmt.Fprintf(&b, " (bucket %q at %s)", e.Bucket, e.Endpoint)
	switch {
	case e.kind == ErrAccessDenied:
		b.WriteString(": access denied (check the access key, secret key and the bucket policy)")
	case e.kind == ErrUnreachable:
		b.WriteString(": endpoint unreachable")
	case e.kind == ErrNoBucket:
		b.WriteString(": bucket does not exist")
	case e.kind == transcribe.ErrNotFound:
		b.WriteString(": not found")
	case e.kind == ErrInvalidKey:
		b.WriteString(": invalid key")
	}
	if e.Code != "" && e.Err != nil && !strings.Contains(e.Err.Error(), e.Code) {
		fmt.Fprintf(&b, ": %s", e.Code)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	msg := b.String()
	for _, s := range e.secrets {
		msg = strings.ReplaceAll(msg, s, "[redacted]")
	}
	return msg
}

// Unwrap returns the sentinel and the cause; an unreachable endpoint and a
// 5xx answer (the server failing or overloaded) are also
// transcribe.ErrStorageUnavailable, an outage the Service waits out.
func (e *Error) Unwrap() []error {
	var out []error
	if e.kind != nil {
		out = append(out, e.kind)
	}
	if e.kind == ErrUnreachable || e.Status >= 500 {
		out = append(out, transcribe.ErrStorageUnavailable)
	}
	if e.Err != nil {
		out = append(out, e.Err)
	}
	return out
}

// fail wraps err from an operation on key into an *Error, classifying it.
func (s *Store) fail(op, key string, err error) error {
	var already *Error
	if errors.As(err, &already) {
		return err
	}
	e := &Error{Op: op, Endpoint: s.endpoint, Bucket: s.bucket, Key: key, Err: err, secrets: s.secrets}
	var resp minio.ErrorResponse
	if errors.As(err, &resp) && (resp.Code != "" || resp.StatusCode != 0) {
		e.Code, e.Status = resp.Code, resp.StatusCode
		switch resp.Code {
		case "NoSuchKey":
			e.kind = transcribe.ErrNotFound
		case "NoSuchBucket":
			e.kind = ErrNoBucket
		case "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "ExpiredToken", "InvalidToken",
			"XAdminUserNotFound": // versitygw's answer (404) to an unknown access key
			e.kind = ErrAccessDenied
		case "", "NotFound", "Forbidden": // a response without an S3 error body
			switch {
			case resp.StatusCode == http.StatusForbidden:
				e.kind = ErrAccessDenied
			case resp.StatusCode == http.StatusNotFound && (op == "open" || op == "delete"):
				e.kind = transcribe.ErrNotFound
			}
		}
		return e
	}
	if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) &&
		(isTransport(err) || (op == "read" && isCut(err))) {
		e.kind = ErrUnreachable
	}
	return e
}

// isCut reports whether err is a connection cut while a body was read.
func isCut(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed)
}

// isTransport reports whether err came from the HTTP round trip (no
// response): net/http returns those as *url.Error, and minio-go passes
// them on.
func isTransport(err error) bool {
	var ue *url.Error
	var oe *net.OpError
	return errors.As(err, &ue) || errors.As(err, &oe)
}
