package drivertest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// RunBlobStoreTests checks every clause of the driver.BlobStore
// contract, and of driver.FileBlobStore when the store implements it.
// newBlobStore must return a fresh, empty store each time; when it also
// implements io.Closer the suite closes it at the end of the subtest.
//
// The streaming check puts 64 MiB (8 MiB with -short) from a generator;
// for a FileBlobStore it also checks that the Put allocates far less than
// the body's size. Beyond the contract's letter the suite expects an empty
// body to store an empty blob, and a reader opened before a replacing Put
// or a Delete to return either the old content in full or a read error,
// never a mix.
func RunBlobStoreTests(t *testing.T, newBlobStore func(t *testing.T) driver.BlobStore) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, b driver.BlobStore)
	}{
		{"PutOpen", testBlobPutOpen},
		{"Keys", testBlobKeys},
		{"Replace", testBlobReplace},
		{"NotFound", testBlobNotFound},
		{"Delete", testBlobDelete},
		{"Large", testBlobLarge},
		{"FailedPut", testBlobFailedPut},
		{"CancelledPut", testBlobCancelledPut},
		{"Concurrent", testBlobConcurrent},
		{"ConcurrentReplace", testBlobConcurrentReplace},
		{"Path", testBlobPath},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBlobStore(t)
			if b == nil {
				t.Fatal("newBlobStore returned nil")
			}
			if c, ok := b.(io.Closer); ok {
				t.Cleanup(func() {
					if err := c.Close(); err != nil {
						t.Errorf("Close: %v", err)
					}
				})
			}
			tc.fn(t, b)
		})
	}
}

func mustPut(t *testing.T, b driver.BlobStore, key string, data []byte) {
	t.Helper()
	n, err := b.Put(t.Context(), key, bytes.NewReader(data))
	if err != nil {
		t.Fatalf("Put(%s): %v", key, err)
	}
	if n != int64(len(data)) {
		t.Fatalf("Put(%s) = %d bytes, want %d", key, n, len(data))
	}
}

func readBlob(ctx context.Context, b driver.BlobStore, key string) ([]byte, error) {
	rc, err := b.Open(ctx, key)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(rc)
	if cerr := rc.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("Close: %w", cerr)
	}
	return data, err
}

func wantBlob(t *testing.T, b driver.BlobStore, key string, want []byte) {
	t.Helper()
	got, err := readBlob(t.Context(), b, key)
	if err != nil {
		t.Fatalf("reading %s: %v", key, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("blob %s = %d bytes %q..., want %d bytes %q...", key, len(got), clip(got), len(want), clip(want))
	}
}

func wantNoBlob(t *testing.T, b driver.BlobStore, key string) {
	t.Helper()
	rc, err := b.Open(t.Context(), key)
	if err == nil {
		data, _ := io.ReadAll(rc)
		rc.Close()
		t.Fatalf("Open(%s) found %d bytes, want ErrNotFound", key, len(data))
	}
	if !errors.Is(err, transcribe.ErrNotFound) {
		t.Fatalf("Open(%s): err = %v, want ErrNotFound", key, err)
	}
}

func testBlobPutOpen(t *testing.T, b driver.BlobStore) {
	all := make([]byte, 256*3)
	for i := range all {
		all[i] = byte(i)
	}
	mustPut(t, b, "uploads/0b8e5c1a-7d6f-4e0c-9a51-2f3c4d5e6f70", all)
	wantBlob(t, b, "uploads/0b8e5c1a-7d6f-4e0c-9a51-2f3c4d5e6f70", all)
	mustPut(t, b, "empty", nil)
	wantBlob(t, b, "empty", []byte{})
	// Put reads to EOF through small reads (iotest-style one byte at a time).
	mustPutReader(t, b, "bytewise", oneByteReader{bytes.NewReader([]byte("one byte at a time"))}, 18)
	wantBlob(t, b, "bytewise", []byte("one byte at a time"))
	// The store keeps its own copy of the bytes.
	src := []byte("original")
	mustPut(t, b, "copy", src)
	copy(src, "mutated!")
	wantBlob(t, b, "copy", []byte("original"))
	// Two opens read independently.
	r1, err := b.Open(t.Context(), "copy")
	if err != nil {
		t.Fatal(err)
	}
	r2, err := b.Open(t.Context(), "copy")
	if err != nil {
		t.Fatal(err)
	}
	p := make([]byte, 4)
	if _, err := io.ReadFull(r1, p); err != nil || string(p) != "orig" {
		t.Fatalf("first reader: %q %v", p, err)
	}
	if d, err := io.ReadAll(r2); err != nil || string(d) != "original" {
		t.Fatalf("second reader: %q %v", d, err)
	}
	if d, err := io.ReadAll(r1); err != nil || string(d) != "inal" {
		t.Fatalf("first reader, rest: %q %v", d, err)
	}
	if err := r1.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := r2.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

func mustPutReader(t *testing.T, b driver.BlobStore, key string, r io.Reader, want int64) {
	t.Helper()
	n, err := b.Put(t.Context(), key, r)
	if err != nil {
		t.Fatalf("Put(%s): %v", key, err)
	}
	if n != want {
		t.Fatalf("Put(%s) = %d bytes, want %d", key, n, want)
	}
}

type oneByteReader struct{ r io.Reader }

func (o oneByteReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

func testBlobKeys(t *testing.T, b driver.BlobStore) {
	keys := []string{"uploads/a", "uploads/b", "redacted/a.mp3", "x/y/z/deep", "plain", "uploads/a.tmp", "with space"}
	for i, k := range keys {
		mustPut(t, b, k, []byte(fmt.Sprintf("blob %d at %s", i, k)))
	}
	for i, k := range keys {
		wantBlob(t, b, k, []byte(fmt.Sprintf("blob %d at %s", i, k)))
	}
	wantNoBlob(t, b, "uploads")
	wantNoBlob(t, b, "x/y")
	wantNoBlob(t, b, "uploads/c")
}

func testBlobReplace(t *testing.T, b driver.BlobStore) {
	long := bytes.Repeat([]byte("0123456789"), 1000)
	mustPut(t, b, "k", long)
	mustPut(t, b, "k", []byte("short"))
	wantBlob(t, b, "k", []byte("short")) // no tail of the longer content
	mustPut(t, b, "k", long)
	wantBlob(t, b, "k", long)
	mustPut(t, b, "k", nil)
	wantBlob(t, b, "k", []byte{})
	mustPut(t, b, "other", []byte("untouched"))
	mustPut(t, b, "k", []byte("again"))
	wantBlob(t, b, "other", []byte("untouched"))
}

func testBlobNotFound(t *testing.T, b driver.BlobStore) {
	wantNoBlob(t, b, "uploads/missing")
	mustPut(t, b, "uploads/present", []byte("x"))
	wantNoBlob(t, b, "uploads/missing")
	wantNoBlob(t, b, "uploads/present/child")
}

func testBlobDelete(t *testing.T, b driver.BlobStore) {
	ctx := t.Context()
	mustPut(t, b, "uploads/a", []byte("a"))
	mustPut(t, b, "uploads/b", []byte("b"))
	if err := b.Delete(ctx, "uploads/a"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	wantNoBlob(t, b, "uploads/a")
	wantBlob(t, b, "uploads/b", []byte("b"))
	for _, k := range []string{"uploads/a", "never/was", "uploads/a"} {
		if err := b.Delete(ctx, k); err != nil {
			t.Errorf("Delete(%s) of a missing key: %v, want nil", k, err)
		}
	}
	// A deleted key can be written again.
	mustPut(t, b, "uploads/a", []byte("again"))
	wantBlob(t, b, "uploads/a", []byte("again"))
}

// genReader yields n deterministic pseudo-random bytes without holding
// them, hashing what it hands out.
type genReader struct {
	left    int64
	state   uint64
	pending []byte // generated but not yet handed out
	word    [8]byte
	sum     interface {
		io.Writer
		Sum([]byte) []byte
	}
}

func newGenReader(n int64, seed uint64) *genReader {
	return &genReader{left: n, state: seed | 1, sum: sha256.New()}
}

func (g *genReader) next() uint64 {
	// xorshift64*
	g.state ^= g.state >> 12
	g.state ^= g.state << 25
	g.state ^= g.state >> 27
	return g.state * 2685821657736338717
}

func (g *genReader) Read(p []byte) (int, error) {
	if g.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > g.left {
		p = p[:g.left]
	}
	n := copy(p, g.pending)
	g.pending = g.pending[n:]
	for ; n+8 <= len(p); n += 8 {
		binary.LittleEndian.PutUint64(p[n:], g.next())
	}
	if n < len(p) {
		binary.LittleEndian.PutUint64(g.word[:], g.next())
		k := copy(p[n:], g.word[:])
		g.pending = g.word[k:]
		n += k
	}
	g.left -= int64(n)
	g.sum.Write(p[:n])
	return n, nil
}

func testBlobLarge(t *testing.T, b driver.BlobStore) {
	size := int64(64 << 20)
	if testing.Short() {
		size = 8 << 20
	}
	_, isFile := b.(driver.FileBlobStore)
	gen := newGenReader(size, 0x9e3779b97f4a7c15)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	n, err := b.Put(t.Context(), "uploads/large", gen)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatalf("Put of %d bytes: %v", size, err)
	}
	if n != size {
		t.Fatalf("Put = %d bytes, want %d", n, size)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("Put of %d MiB allocated %.1f MiB", size>>20, float64(allocated)/(1<<20))
	if isFile && allocated > uint64(size/4) {
		t.Errorf("a FileBlobStore Put of %d MiB allocated %.1f MiB: it does not stream", size>>20, float64(allocated)/(1<<20))
	}
	rc, err := b.Open(t.Context(), "uploads/large")
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer rc.Close()
	h := sha256.New()
	got, err := io.Copy(h, rc)
	if err != nil {
		t.Fatalf("reading back: %v", err)
	}
	if got != size || !bytes.Equal(h.Sum(nil), gen.sum.Sum(nil)) {
		t.Fatalf("read back %d bytes with a different hash; want %d bytes as written", got, size)
	}
}

// failingReader returns n bytes of data and then err.
type failingReader struct {
	n   int
	err error
}

var errInjected = errors.New("transcribetest: injected read error")

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n == 0 {
		return 0, f.err
	}
	if len(p) > f.n {
		p = p[:f.n]
	}
	for i := range p {
		p[i] = 'x'
	}
	f.n -= len(p)
	return len(p), nil
}

func testBlobFailedPut(t *testing.T, b driver.BlobStore) {
	ctx := t.Context()
	for _, n := range []int{0, 1000, 300 << 10} {
		key := fmt.Sprintf("uploads/fail-%d", n)
		if _, err := b.Put(ctx, key, &failingReader{n: n, err: errInjected}); err == nil {
			t.Fatalf("Put from a reader failing after %d bytes returned nil error", n)
		} else if !errors.Is(err, errInjected) {
			t.Logf("Put error does not wrap the reader's error (allowed): %v", err)
		}
		wantNoBlob(t, b, key)
	}
	// A source cut off mid-body (io.ErrUnexpectedEOF, what net/http returns
	// for a request body shorter than its Content-Length) is a failure, not
	// the end of the blob.
	for _, n := range []int{0, 100, 5000} {
		key := fmt.Sprintf("uploads/cut-%d", n)
		if _, err := b.Put(ctx, key, &failingReader{n: n, err: io.ErrUnexpectedEOF}); err == nil {
			t.Fatalf("Put from a reader cut off (io.ErrUnexpectedEOF) after %d bytes returned nil error", n)
		}
		wantNoBlob(t, b, key)
	}
	// A failed replacement leaves the old content or nothing, never a part.
	old := bytes.Repeat([]byte("old content "), 100)
	mustPut(t, b, "uploads/keep", old)
	if _, err := b.Put(ctx, "uploads/keep", &failingReader{n: 100 << 10, err: errInjected}); err == nil {
		t.Fatal("failing Put over an existing blob returned nil error")
	}
	got, err := readBlob(ctx, b, "uploads/keep")
	switch {
	case errors.Is(err, transcribe.ErrNotFound):
		t.Log("a failed Put removed the previous blob (allowed)")
	case err != nil:
		t.Fatalf("reading after a failed replacing Put: %v", err)
	case !bytes.Equal(got, old):
		t.Fatalf("after a failed replacing Put the blob is %d bytes %q..., want the old %d bytes", len(got), clip(got), len(old))
	}
	// The store still works.
	mustPut(t, b, "uploads/fail-0", []byte("fine"))
	wantBlob(t, b, "uploads/fail-0", []byte("fine"))
}

func testBlobCancelledPut(t *testing.T, b driver.BlobStore) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := b.Put(ctx, "uploads/cancelled", bytes.NewReader([]byte("data")))
	if err != nil {
		wantNoBlob(t, b, "uploads/cancelled")
	}
	// Cancelled midway through the body.
	ctx, cancel = context.WithCancel(t.Context())
	r := &cancellingReader{left: 4 << 20, cancelAt: 1 << 20, cancel: cancel}
	if _, err := b.Put(ctx, "uploads/midway", r); err != nil {
		wantNoBlob(t, b, "uploads/midway")
	} else {
		wantBlob(t, b, "uploads/midway", bytes.Repeat([]byte{'c'}, 4<<20))
	}
}

type cancellingReader struct {
	left, cancelAt, read int
	cancel               context.CancelFunc
}

func (c *cancellingReader) Read(p []byte) (int, error) {
	if c.left == 0 {
		return 0, io.EOF
	}
	if len(p) > c.left {
		p = p[:c.left]
	}
	for i := range p {
		p[i] = 'c'
	}
	c.left -= len(p)
	c.read += len(p)
	if c.read >= c.cancelAt {
		c.cancel()
	}
	return len(p), nil
}

func testBlobConcurrent(t *testing.T, b driver.BlobStore) {
	const workers, rounds = 8, 20
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			for i := range rounds {
				key := fmt.Sprintf("uploads/w%d-%d", w, i%5)
				data := bytes.Repeat([]byte(fmt.Sprintf("%d/%d;", w, i)), 100+i*37)
				if n, err := b.Put(ctx, key, bytes.NewReader(data)); err != nil || n != int64(len(data)) {
					errs <- fmt.Errorf("Put(%s) = %d, %v", key, n, err)
					return
				}
				got, err := readBlob(ctx, b, key)
				if err != nil || !bytes.Equal(got, data) {
					errs <- fmt.Errorf("worker %d read back %s: %d bytes, %v", w, key, len(got), err)
					return
				}
				if i%3 == 0 {
					if err := b.Delete(ctx, key); err != nil {
						errs <- fmt.Errorf("Delete(%s): %v", key, err)
						return
					}
					if _, err := b.Open(ctx, key); !errors.Is(err, transcribe.ErrNotFound) {
						errs <- fmt.Errorf("Open(%s) after Delete: %v", key, err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// testBlobConcurrentReplace puts whole versions of one key while readers
// open it: every read sees one version in full.
func testBlobConcurrentReplace(t *testing.T, b driver.BlobStore) {
	const versions, size = 6, 256 << 10
	content := func(v int) []byte { return bytes.Repeat([]byte{byte('a' + v)}, size+v*1000) }
	mustPut(t, b, "shared", content(0))
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 16)
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				v := (i + w) % versions
				if _, err := b.Put(context.Background(), "shared", bytes.NewReader(content(v))); err != nil {
					errs <- fmt.Errorf("Put: %v", err)
					return
				}
			}
		}()
	}
	readers := sync.WaitGroup{}
	for range 3 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for range 15 {
				got, err := readBlob(context.Background(), b, "shared")
				if err != nil {
					// A reader may lose a race with a replacement on some stores.
					if errors.Is(err, transcribe.ErrNotFound) {
						errs <- fmt.Errorf("Open during replacement: %v (a replacing Put must not make the key vanish)", err)
						return
					}
					continue
				}
				v := -1
				if len(got) > 0 {
					v = int(got[0] - 'a')
				}
				if v < 0 || v >= versions || !bytes.Equal(got, content(v)) {
					errs <- fmt.Errorf("read %d bytes that are no complete version", len(got))
					return
				}
			}
		}()
	}
	readers.Wait()
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func testBlobPath(t *testing.T, b driver.BlobStore) {
	fb, ok := b.(driver.FileBlobStore)
	if !ok {
		t.Skip("not a FileBlobStore")
	}
	data := []byte("bytes on disk")
	mustPut(t, b, "uploads/onfile", data)
	p, err := fb.Path("uploads/onfile")
	if err != nil {
		t.Fatalf("Path: %v", err)
	}
	got, err := os.ReadFile(p)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("reading Path %s: %q, %v; want %q", p, got, err, data)
	}
	if _, err := fb.Path("uploads/absent"); !errors.Is(err, transcribe.ErrNotFound) {
		t.Errorf("Path of a missing key: err = %v, want ErrNotFound", err)
	}
	if err := b.Delete(t.Context(), "uploads/onfile"); err != nil {
		t.Fatal(err)
	}
	if _, err := fb.Path("uploads/onfile"); !errors.Is(err, transcribe.ErrNotFound) {
		t.Errorf("Path after Delete: err = %v, want ErrNotFound", err)
	}
}
