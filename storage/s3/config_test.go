package s3_test

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/earshot-dev/earshot/internal/testservices"
	"github.com/earshot-dev/earshot/storage/s3"
	"github.com/earshot-dev/earshot/transcribe"
)

func TestBadCredentials(t *testing.T) {
	t.Parallel()
	srv := testservices.S3(t)
	for _, tc := range []struct{ name, access, secret string }{
		{"wrong secret", srv.AccessKey, "not-the-secret-0123456789"},
		{"unknown access key", "NOSUCHACCESSKEY12345", srv.SecretKey},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s3.New(t.Context(), s3.Config{Endpoint: srv.Endpoint, Bucket: srv.Bucket, AccessKey: tc.access, SecretKey: tc.secret})
			if !errors.Is(err, s3.ErrAccessDenied) {
				t.Fatalf("New with bad credentials: %v, want ErrAccessDenied", err)
			}
			msg := err.Error()
			t.Logf("error: %s", msg)
			for _, want := range []string{srv.Bucket, srv.Endpoint, "access denied"} {
				if !strings.Contains(msg, want) {
					t.Errorf("error does not name %q: %s", want, msg)
				}
			}
			for _, secret := range []string{tc.access, tc.secret} {
				if strings.Contains(msg, secret) {
					t.Errorf("error reveals a credential: %s", msg)
				}
			}
		})
	}
}

func TestUnreachable(t *testing.T) {
	t.Parallel()
	// A loopback port nobody listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	start := time.Now()
	_, err = s3.New(t.Context(), s3.Config{Endpoint: "http://" + addr, Bucket: "blobs",
		AccessKey: "AKIDEXAMPLE", SecretKey: "wJalrXUtnFEMIEXAMPLEKEY", MaxAttempts: 2})
	if !errors.Is(err, s3.ErrUnreachable) {
		t.Fatalf("New against a closed port: %v, want ErrUnreachable", err)
	}
	msg := err.Error()
	t.Logf("error after %v: %s", time.Since(start).Round(time.Millisecond), msg)
	if !strings.Contains(msg, addr) || !strings.Contains(msg, `"blobs"`) || !strings.Contains(msg, "unreachable") {
		t.Errorf("error does not name the endpoint, bucket and problem: %s", msg)
	}
	if strings.Contains(msg, "wJalrXUtnFEMIEXAMPLEKEY") || strings.Contains(msg, "AKIDEXAMPLE") {
		t.Errorf("error reveals a credential: %s", msg)
	}
	// A cancelled context stops the retries at once.
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start = time.Now()
	_, err = s3.New(ctx, s3.Config{Endpoint: "http://" + addr, Bucket: "blobs", AccessKey: "a", SecretKey: "b"})
	if err == nil || time.Since(start) > 5*time.Second {
		t.Fatalf("New with default retries and a 300ms deadline: %v after %v", err, time.Since(start))
	}
}

func TestBucket(t *testing.T) {
	t.Parallel()
	srv := testservices.S3(t)
	cfg := s3.Config{Endpoint: srv.Endpoint, Bucket: "earshot-missing-" + strconv.FormatInt(time.Now().UnixNano(), 36),
		AccessKey: srv.AccessKey, SecretKey: srv.SecretKey}
	_, err := s3.New(t.Context(), cfg)
	if !errors.Is(err, s3.ErrNoBucket) || !strings.Contains(err.Error(), cfg.Bucket) || !strings.Contains(err.Error(), "CreateBucket") {
		t.Fatalf("New on a missing bucket: %v, want ErrNoBucket naming it and CreateBucket", err)
	}
	cfg.CreateBucket = true
	s, err := s3.New(t.Context(), cfg)
	if err != nil {
		t.Fatalf("New with CreateBucket: %v", err)
	}
	c, _ := srv.Client()
	t.Cleanup(func() {
		c.RemoveObject(context.Background(), cfg.Bucket, "k", minio.RemoveObjectOptions{})
		c.RemoveBucket(context.Background(), cfg.Bucket)
	})
	put(t, s, "k", "v")
	// Creating an existing bucket is fine.
	if _, err := s3.New(t.Context(), cfg); err != nil {
		t.Fatalf("New with CreateBucket on an existing bucket: %v", err)
	}
	// The bucket vanishing later gives ErrNoBucket, not ErrNotFound.
	c.RemoveObject(t.Context(), cfg.Bucket, "k", minio.RemoveObjectOptions{})
	if err := c.RemoveBucket(t.Context(), cfg.Bucket); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Open(t.Context(), "k"); !errors.Is(err, s3.ErrNoBucket) || errors.Is(err, transcribe.ErrNotFound) {
		t.Fatalf("Open in a removed bucket: %v, want ErrNoBucket", err)
	}
}

func TestConfigErrors(t *testing.T) {
	t.Parallel()
	base := s3.Config{Endpoint: "127.0.0.1:1", Bucket: "blobs", AccessKey: "a", SecretKey: "b"}
	for _, tc := range []struct {
		name string
		mod  func(*s3.Config)
		want string
	}{
		{"no endpoint", func(c *s3.Config) { c.Endpoint = "" }, "Endpoint is empty"},
		{"path", func(c *s3.Config) { c.Endpoint = "http://h:1/base" }, "path"},
		{"scheme", func(c *s3.Config) { c.Endpoint = "ftp://h:1" }, "scheme"},
		{"user info", func(c *s3.Config) { c.Endpoint = "https://AKID:topsecret@h" }, "user information"},
		// Found by FuzzEndpoint: URLs the parser refuses, or reads as a
		// path, were repeated in the error with their password.
		{"unparsable with password", func(c *s3.Config) { c.Endpoint = "://AKID:topsecret@" }, "not a valid URL"},
		{"password with a slash", func(c *s3.Config) { c.Endpoint = "http://AKID:top/topsecret@h" }, "not a valid URL"},
		{"password without scheme", func(c *s3.Config) { c.Endpoint = "AKID:topsecret@h" }, "want host:port"},
		{"insecure https", func(c *s3.Config) { c.Endpoint = "https://h"; c.Insecure = true }, "Insecure"},
		{"no bucket", func(c *s3.Config) { c.Bucket = "" }, "Bucket is empty"},
		{"bad bucket", func(c *s3.Config) { c.Bucket = "Upper_Case" }, "Bucket"},
		{"bad prefix", func(c *s3.Config) { c.Prefix = "a/../b" }, "Prefix"},
		{"absolute prefix", func(c *s3.Config) { c.Prefix = "/a" }, "Prefix"},
		{"half credentials", func(c *s3.Config) { c.SecretKey = "" }, "AccessKey and SecretKey"},
		{"small parts", func(c *s3.Config) { c.PartSize = 1 << 20 }, "PartSize"},
		{"huge parts", func(c *s3.Config) { c.PartSize = 6 << 30 }, "PartSize"},
		{"concurrency", func(c *s3.Config) { c.Concurrency = -1 }, "Concurrency"},
		{"attempts", func(c *s3.Config) { c.MaxAttempts = -1 }, "MaxAttempts"},
	} {
		cfg := base
		tc.mod(&cfg)
		_, err := s3.New(t.Context(), cfg)
		if !errors.Is(err, s3.ErrInvalidConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrInvalidConfig mentioning %q", tc.name, err, tc.want)
		}
		if err != nil && (strings.Contains(err.Error(), "topsecret") || strings.Contains(err.Error(), "top/")) {
			t.Errorf("%s: error reveals the password: %v", tc.name, err)
		}
	}
}

// Not parallel: it sets environment variables.
func TestNoCredentials(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	cfg := s3.Config{Endpoint: "127.0.0.1:1", Bucket: "blobs"}
	if _, err := s3.New(t.Context(), cfg); !errors.Is(err, s3.ErrInvalidConfig) || !strings.Contains(err.Error(), "AWS_ACCESS_KEY_ID") {
		t.Errorf("no credentials anywhere: %v", err)
	}
}

// Credentials come from the AWS_* environment when the Config has none.
func TestEnvironmentCredentials(t *testing.T) {
	srv := testservices.S3(t)
	t.Setenv("AWS_ACCESS_KEY_ID", srv.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", srv.SecretKey)
	s, err := s3.New(t.Context(), s3.Config{Endpoint: srv.Endpoint, Bucket: srv.Bucket})
	if err != nil {
		t.Fatal(err)
	}
	put(t, s, "k", "v")
}
