package localfs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
)

func newStore(t *testing.T) *Store {
	t.Helper()
	s, err := New(filepath.Join(t.TempDir(), "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func get(t *testing.T, s *Store, key string) string {
	t.Helper()
	rc, err := s.Open(context.Background(), key)
	if err != nil {
		t.Fatalf("Open(%q): %v", key, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestPutOpenDelete(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	n, err := s.Put(ctx, "uploads/abc", strings.NewReader("hello"))
	if err != nil || n != 5 {
		t.Fatalf("Put = %d, %v", n, err)
	}
	if got := get(t, s, "uploads/abc"); got != "hello" {
		t.Fatalf("got %q", got)
	}
	// Replace.
	if _, err := s.Put(ctx, "uploads/abc", strings.NewReader("bye")); err != nil {
		t.Fatal(err)
	}
	if got := get(t, s, "uploads/abc"); got != "bye" {
		t.Fatalf("after replace got %q", got)
	}
	p, err := s.Path("uploads/abc")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(s.Dir(), "uploads", "abc"); p != want {
		t.Fatalf("Path = %q, want %q", p, want)
	}
	if b, _ := os.ReadFile(p); string(b) != "bye" {
		t.Fatalf("file holds %q", b)
	}
	if err := s.Delete(ctx, "uploads/abc"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Open(ctx, "uploads/abc"); !errors.Is(err, transcribe.ErrNotFound) {
		t.Fatalf("Open after Delete: %v", err)
	}
	if _, err := s.Path("uploads/abc"); !errors.Is(err, transcribe.ErrNotFound) {
		t.Fatalf("Path after Delete: %v", err)
	}
	if err := s.Delete(ctx, "uploads/abc"); err != nil {
		t.Fatalf("second Delete: %v", err)
	}
	if err := s.Delete(ctx, "never/was"); err != nil {
		t.Fatalf("Delete missing: %v", err)
	}
}

func TestEmptyBlob(t *testing.T) {
	s := newStore(t)
	n, err := s.Put(context.Background(), "empty", strings.NewReader(""))
	if err != nil || n != 0 {
		t.Fatalf("Put = %d, %v", n, err)
	}
	if got := get(t, s, "empty"); got != "" {
		t.Fatalf("got %q", got)
	}
}

func TestModes(t *testing.T) {
	s := newStore(t)
	if _, err := s.Put(context.Background(), "a/b/c", strings.NewReader("x")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		mode os.FileMode
	}{
		{s.Dir(), 0o700 | os.ModeDir},
		{filepath.Join(s.Dir(), "a"), 0o700 | os.ModeDir},
		{filepath.Join(s.Dir(), "a", "b"), 0o700 | os.ModeDir},
		{filepath.Join(s.Dir(), "a", "b", "c"), 0o600},
	} {
		st, err := os.Stat(c.path)
		if err != nil {
			t.Fatal(err)
		}
		// The umask can only remove bits; 0700/0600 have none it removes
		// for a normal umask, so compare exactly.
		if st.Mode() != c.mode {
			t.Errorf("%s: mode %v, want %v", c.path, st.Mode(), c.mode)
		}
	}
}

func TestBadKeys(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	outside := filepath.Join(filepath.Dir(s.Dir()), "escaped")
	for _, key := range []string{
		"", "/etc/passwd", "../escaped", "a/../../escaped", "a//b", "a/", "./a", "a/.", "..",
		"a\\..\\b", "a\x00b", "x/" + tempPrefix + "123",
	} {
		if _, err := s.Put(ctx, key, strings.NewReader("x")); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("Put(%q) = %v, want ErrInvalidKey", key, err)
		}
		if _, err := s.Open(ctx, key); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("Open(%q) = %v, want ErrInvalidKey", key, err)
		}
		if err := s.Delete(ctx, key); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("Delete(%q) = %v, want ErrInvalidKey", key, err)
		}
		if _, err := s.Path(key); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("Path(%q) = %v, want ErrInvalidKey", key, err)
		}
	}
	if _, err := os.Stat(outside); !os.IsNotExist(err) {
		t.Fatalf("a bad key escaped the root: %v", err)
	}
	// Keys with dots inside segments are fine.
	for _, key := range []string{"a.b", "redacted/x.mp3", "..a", "a..", ".hidden"} {
		if _, err := s.Put(ctx, key, strings.NewReader("x")); err != nil {
			t.Errorf("Put(%q): %v", key, err)
		}
	}
}

func TestDirectoryIsNotABlob(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	if _, err := s.Put(ctx, "uploads/x", strings.NewReader("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Open(ctx, "uploads"); !errors.Is(err, transcribe.ErrNotFound) {
		t.Fatalf("Open(dir) = %v", err)
	}
	if _, err := s.Path("uploads"); !errors.Is(err, transcribe.ErrNotFound) {
		t.Fatalf("Path(dir) = %v", err)
	}
	if err := s.Delete(ctx, "uploads"); err != nil {
		t.Fatalf("Delete(dir) = %v", err)
	}
	if got := get(t, s, "uploads/x"); got != "x" {
		t.Fatalf("Delete(dir) removed content: %q", got)
	}
	// A key below a blob does not exist.
	if _, err := s.Open(ctx, "uploads/x/y"); !errors.Is(err, transcribe.ErrNotFound) {
		t.Fatalf("Open below a blob = %v", err)
	}
	if err := s.Delete(ctx, "uploads/x/y"); err != nil {
		t.Fatalf("Delete below a blob = %v", err)
	}
}

type failingReader struct {
	n   int
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, f.err
	}
	m := min(len(p), f.n)
	for i := range p[:m] {
		p[i] = 'z'
	}
	f.n -= m
	return m, nil
}

func listAll(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func TestFailedPutLeavesNothing(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	boom := errors.New("boom")
	if _, err := s.Put(ctx, "k/new", &failingReader{n: 100000, err: boom}); !errors.Is(err, boom) {
		t.Fatalf("Put = %v, want boom", err)
	}
	if _, err := s.Open(ctx, "k/new"); !errors.Is(err, transcribe.ErrNotFound) {
		t.Fatalf("partial blob visible: %v", err)
	}
	// A failed replace keeps the old content.
	if _, err := s.Put(ctx, "k/old", strings.NewReader("old")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, "k/old", &failingReader{n: 10, err: boom}); !errors.Is(err, boom) {
		t.Fatalf("Put = %v", err)
	}
	if got := get(t, s, "k/old"); got != "old" {
		t.Fatalf("old content lost: %q", got)
	}
	// Cancellation.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Put(cctx, "k/cancelled", strings.NewReader("x")); !errors.Is(err, context.Canceled) {
		t.Fatalf("Put(cancelled) = %v", err)
	}
	files := listAll(t, s.Dir())
	if len(files) != 1 || filepath.Base(files[0]) != "old" {
		t.Fatalf("files left behind: %v", files)
	}
}

func TestPutStreamsLargeBlob(t *testing.T) {
	s := newStore(t)
	const size = 64 << 20
	n, err := s.Put(context.Background(), "big", io.LimitReader(zeros{}, size))
	if err != nil || n != size {
		t.Fatalf("Put = %d, %v", n, err)
	}
	p, _ := s.Path("big")
	st, err := os.Stat(p)
	if err != nil || st.Size() != size {
		t.Fatalf("stat = %v, %v", st, err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func TestConcurrent(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 30 {
				shared := fmt.Sprintf("shared/%d", i%3)
				body := bytes.Repeat([]byte{byte('a' + g)}, 1000+i)
				if _, err := s.Put(ctx, shared, bytes.NewReader(body)); err != nil {
					t.Error(err)
					return
				}
				// Whatever we read back is one complete writer's blob.
				rc, err := s.Open(ctx, shared)
				if err == nil {
					b, _ := io.ReadAll(rc)
					rc.Close()
					if len(b) < 1000 || !bytes.Equal(b, bytes.Repeat(b[:1], len(b))) {
						t.Errorf("torn read of %s: %d bytes", shared, len(b))
					}
				} else if !errors.Is(err, transcribe.ErrNotFound) {
					t.Error(err)
				}
				own := fmt.Sprintf("own/%d/%d", g, i)
				if _, err := s.Put(ctx, own, bytes.NewReader(body)); err != nil {
					t.Error(err)
				}
				if i%2 == 0 {
					if err := s.Delete(ctx, own); err != nil {
						t.Error(err)
					}
					if err := s.Delete(ctx, shared); err != nil {
						t.Error(err)
					}
				}
			}
		}()
	}
	wg.Wait()
	for _, f := range listAll(t, s.Dir()) {
		if strings.HasPrefix(filepath.Base(f), tempPrefix) {
			t.Errorf("temporary file left: %s", f)
		}
	}
}

func TestNewErrors(t *testing.T) {
	if _, err := New(""); err == nil {
		t.Fatal("New(\"\") succeeded")
	}
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, []byte("x"), 0o600)
	if _, err := New(f); err == nil {
		t.Fatal("New(file) succeeded")
	}
	// Relative directories are made absolute.
	t.Chdir(t.TempDir())
	s, err := New("rel")
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(s.Dir()) {
		t.Fatalf("Dir = %q", s.Dir())
	}
}

func TestRemoveStale(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	if _, err := s.Put(ctx, "uploads/keep", strings.NewReader("x")); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(s.Dir(), "uploads")
	old := filepath.Join(dir, tempPrefix+"old")
	fresh := filepath.Join(dir, tempPrefix+"fresh")
	for _, p := range []string{old, fresh} {
		if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-2 * time.Hour)
	os.Chtimes(old, past, past)
	n, err := s.RemoveStale(ctx, time.Hour)
	if err != nil || n != 1 {
		t.Fatalf("RemoveStale = %d, %v", n, err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Error("stale temp file kept")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("fresh temp file (a Put in progress) removed")
	}
	if got := get(t, s, "uploads/keep"); got != "x" {
		t.Errorf("blob changed: %q", got)
	}
}
