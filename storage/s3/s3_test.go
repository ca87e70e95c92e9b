package s3_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/earshot-dev/earshot/internal/testservices"
	"github.com/earshot-dev/earshot/storage/s3"
	"github.com/earshot-dev/earshot/transcribe"
)

func put(t *testing.T, s *s3.Store, key, data string) {
	t.Helper()
	if n, err := s.Put(t.Context(), key, strings.NewReader(data)); err != nil || n != int64(len(data)) {
		t.Fatalf("Put(%s) = %d, %v", key, n, err)
	}
}

func read(t *testing.T, s *s3.Store, key string) (string, error) {
	t.Helper()
	rc, err := s.Open(t.Context(), key)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	return string(b), err
}

// objects lists every object name in the bucket.
func objects(t *testing.T, srv testservices.S3Config) []string {
	t.Helper()
	c, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for o := range c.ListObjects(t.Context(), srv.Bucket, minio.ListObjectsOptions{Recursive: true}) {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		names = append(names, o.Key)
	}
	return names
}

// incomplete lists the bucket's unfinished multipart uploads.
func incomplete(t *testing.T, srv testservices.S3Config) []string {
	t.Helper()
	c, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for u := range c.ListIncompleteUploads(t.Context(), srv.Bucket, "", true) {
		if u.Err != nil {
			t.Fatal(u.Err)
		}
		keys = append(keys, u.Key)
	}
	return keys
}

// Two stores with different prefixes share a bucket without seeing each
// other's blobs, and their objects sit under their prefixes.
func TestPrefixIsolation(t *testing.T) {
	t.Parallel()
	a, srv := newStore(t, s3.Config{Prefix: "region-a"})
	b, err := s3.New(t.Context(), s3.Config{Endpoint: srv.Endpoint, Region: srv.Region, Bucket: srv.Bucket,
		AccessKey: srv.AccessKey, SecretKey: srv.SecretKey, Prefix: "region-b/"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Prefix() != "region-a/" || b.Prefix() != "region-b/" {
		t.Fatalf("prefixes %q %q, want region-a/ region-b/", a.Prefix(), b.Prefix())
	}
	put(t, a, "uploads/1", "from a")
	put(t, b, "uploads/1", "from b")
	put(t, a, "only-a", "a")
	if got, err := read(t, a, "uploads/1"); err != nil || got != "from a" {
		t.Fatalf("a reads %q, %v", got, err)
	}
	if got, err := read(t, b, "uploads/1"); err != nil || got != "from b" {
		t.Fatalf("b reads %q, %v", got, err)
	}
	if _, err := read(t, b, "only-a"); !errors.Is(err, transcribe.ErrNotFound) {
		t.Fatalf("b sees a's blob: %v", err)
	}
	if err := b.Delete(t.Context(), "uploads/1"); err != nil {
		t.Fatal(err)
	}
	if got, err := read(t, a, "uploads/1"); err != nil || got != "from a" {
		t.Fatalf("after b's Delete a reads %q, %v", got, err)
	}
	got := strings.Join(objects(t, srv), " ")
	if got != "region-a/only-a region-a/uploads/1" {
		t.Fatalf("bucket holds %q", got)
	}
}

func TestOpenReadsOneVersion(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t, s3.Config{})
	big := strings.Repeat("1", 3<<20)
	put(t, s, "k", big)
	rc, err := s.Open(t.Context(), "k")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	head := make([]byte, 10)
	if _, err := io.ReadFull(rc, head); err != nil {
		t.Fatal(err)
	}
	put(t, s, "k", strings.Repeat("2", 3<<20))
	if err := s.Delete(t.Context(), "k"); err != nil {
		t.Fatal(err)
	}
	rest, err := io.ReadAll(rc)
	if err == nil && string(head)+string(rest) != big {
		t.Fatalf("reader opened before a replacement read %d bytes that are not the old version", len(head)+len(rest))
	}
	t.Logf("reader after replace+delete: %d bytes, %v", len(head)+len(rest), err)
}

func TestInvalidKeys(t *testing.T) {
	t.Parallel()
	s, srv := newStore(t, s3.Config{Prefix: "p"})
	for _, key := range []string{"", "/abs", "a//b", "a/./b", "../up", "a/..", "tab\there", "nul\x00", "bad\xffutf8", strings.Repeat("k", 1023)} {
		if _, err := s.Put(t.Context(), key, strings.NewReader("x")); !errors.Is(err, s3.ErrInvalidKey) {
			t.Errorf("Put(%q): %v, want ErrInvalidKey", key, err)
		}
		if _, err := s.Open(t.Context(), key); !errors.Is(err, s3.ErrInvalidKey) {
			t.Errorf("Open(%q): %v, want ErrInvalidKey", key, err)
		}
		if err := s.Delete(t.Context(), key); !errors.Is(err, s3.ErrInvalidKey) {
			t.Errorf("Delete(%q): %v, want ErrInvalidKey", key, err)
		}
	}
	put(t, s, "ok key/with spaces+plus&amp=é", "fine")
	if got, err := read(t, s, "ok key/with spaces+plus&amp=é"); err != nil || got != "fine" {
		t.Fatalf("odd but valid key: %q, %v", got, err)
	}
	if got := objects(t, srv); len(got) != 1 {
		t.Fatalf("bucket holds %q", got)
	}
}
