package s3_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"hash"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/earshot-dev/earshot/storage/s3"
)

// failAfter yields n bytes and then err.
type failAfter struct {
	n   int64
	err error
}

func (f *failAfter) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, f.err
	}
	if int64(len(p)) > f.n {
		p = p[:f.n]
	}
	clear(p)
	f.n -= int64(len(p))
	return len(p), nil
}

var errBroken = errors.New("broken source")

// A multipart Put that fails (bad source, cancelled context, too many
// parts) aborts its upload: no object and no incomplete upload remain,
// and an old blob under the key survives.
func TestFailedMultipartPutLeavesNothing(t *testing.T) {
	t.Parallel()
	s, srv := newStore(t, s3.Config{PartSize: 5 << 20})
	put(t, s, "uploads/old", "old content")

	_, err := s.Put(t.Context(), "uploads/new", &failAfter{n: 12 << 20, err: errBroken})
	if !errors.Is(err, errBroken) {
		t.Fatalf("Put from a failing reader: %v, want it to wrap the reader's error", err)
	}
	t.Logf("error: %v", err)
	if _, err := s.Put(t.Context(), "uploads/old", &failAfter{n: 7 << 20, err: errBroken}); !errors.Is(err, errBroken) {
		t.Fatalf("replacing Put from a failing reader: %v", err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	r := &cancelAt{r: &failAfter{n: 30 << 20, err: io.EOF}, at: 11 << 20, cancel: cancel}
	if _, err := s.Put(ctx, "uploads/cancelled", r); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Put: %v, want context.Canceled", err)
	}

	if got := incomplete(t, srv); len(got) != 0 {
		t.Fatalf("incomplete uploads left: %v", got)
	}
	if got := strings.Join(objects(t, srv), " "); got != "uploads/old" {
		t.Fatalf("bucket holds %q, want only uploads/old", got)
	}
	if got, err := read(t, s, "uploads/old"); err != nil || got != "old content" {
		t.Fatalf("old blob after failed replacement: %q, %v", got, err)
	}
}

// cancelAt cancels a context once at bytes have been read.
type cancelAt struct {
	r      io.Reader
	at, n  int64
	cancel context.CancelFunc
}

func (c *cancelAt) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n >= c.at {
		c.cancel()
	}
	return n, err
}

// Not parallel: it lowers the package's part limit.
func TestTooManyParts(t *testing.T) {
	defer s3.SetMaxParts(3)()
	s, srv := newStore(t, s3.Config{PartSize: 5 << 20})
	// Exactly 3 parts fit.
	if n, err := s.Put(t.Context(), "fits", &failAfter{n: 15 << 20, err: io.EOF}); err != nil || n != 15<<20 {
		t.Fatalf("Put of 3 full parts: %d, %v", n, err)
	}
	_, err := s.Put(t.Context(), "big", &failAfter{n: 15<<20 + 1, err: io.EOF})
	if !errors.Is(err, s3.ErrTooLarge) {
		t.Fatalf("Put of 3 parts and a byte: %v, want ErrTooLarge", err)
	}
	if !strings.Contains(err.Error(), "PartSize") {
		t.Errorf("error does not say what to change: %v", err)
	}
	if got := incomplete(t, srv); len(got) != 0 {
		t.Fatalf("incomplete uploads left: %v", got)
	}
	if got := strings.Join(objects(t, srv), " "); got != "fits" {
		t.Fatalf("bucket holds %q", got)
	}
}

// corruptingTransport flips one byte of every PUT body after it was
// signed: the server must refuse it (the payload's SHA-256 is signed).
type corruptingTransport struct{ base http.RoundTripper }

func (c corruptingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPut && r.Body != nil && r.ContentLength > 0 {
		b, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, err
		}
		b[len(b)/2] ^= 0xff
		r = r.Clone(r.Context())
		r.Body = io.NopCloser(bytes.NewReader(b))
	}
	return c.base.RoundTrip(r)
}

func TestCorruptedUploadRefused(t *testing.T) {
	t.Parallel()
	base, err := minio.DefaultTransport(false)
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{1000, 11 << 20} { // one PUT; a multipart upload
		s, srv := newStore(t, s3.Config{PartSize: 5 << 20, MaxAttempts: 1, Transport: corruptingTransport{base}})
		_, err := s.Put(t.Context(), "k", bytes.NewReader(bytes.Repeat([]byte("x"), size)))
		if err == nil {
			t.Fatalf("Put of %d bytes corrupted in transit succeeded", size)
		}
		t.Logf("%d bytes: %v", size, err)
		if got := objects(t, srv); len(got) != 0 {
			t.Fatalf("bucket holds %q", got)
		}
	}
}

func TestAbortIncomplete(t *testing.T) {
	t.Parallel()
	var clock atomic.Int64
	clock.Store(time.Now().UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()) }
	s, srv := newStore(t, s3.Config{Prefix: "mine", Now: now})
	c, _ := srv.Client()
	core := minio.Core{Client: c}
	// Uploads a crashed process left behind, in and out of the prefix.
	for _, k := range []string{"mine/uploads/1", "mine/uploads/2", "theirs/uploads/1"} {
		if _, err := core.NewMultipartUpload(t.Context(), srv.Bucket, k, minio.PutObjectOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	n, err := s.AbortIncomplete(t.Context(), time.Hour)
	if err != nil || n != 0 {
		t.Fatalf("AbortIncomplete of uploads younger than an hour: %d, %v; want 0", n, err)
	}
	clock.Add(int64(2 * time.Hour))
	n, err = s.AbortIncomplete(t.Context(), time.Hour)
	if err != nil || n != 2 {
		t.Fatalf("AbortIncomplete two hours later: %d, %v; want 2", n, err)
	}
	if got := strings.Join(incomplete(t, srv), " "); got != "theirs/uploads/1" {
		t.Fatalf("incomplete uploads left: %q, want only the other prefix's", got)
	}
}

// genReader yields left pseudo-random bytes (xorshift64*, whole 8-byte
// words: left and the reads are multiples of 8) without holding them,
// hashing what it hands out.
type genReader struct {
	left  int64
	state uint64
	sum   hash.Hash
}

func (g *genReader) Read(p []byte) (int, error) {
	if g.left <= 0 {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), g.left)&^7]
	if len(p) == 0 {
		return 0, io.ErrShortBuffer // a read of under 8 bytes
	}
	for i := 0; i+8 <= len(p); i += 8 {
		g.state ^= g.state >> 12
		g.state ^= g.state << 25
		g.state ^= g.state >> 27
		binary.LittleEndian.PutUint64(p[i:], g.state*2685821657736338717)
	}
	g.sum.Write(p)
	g.left -= int64(len(p))
	return len(p), nil
}

// peakSampler records the peak of the live heap (and of RSS on Linux)
// while it runs.
type peakSampler struct {
	stop               chan struct{}
	done               sync.WaitGroup
	heap, rss          atomic.Uint64
	baseHeap, baseRSS  uint64
	heapSample, sample []metrics.Sample
}

func heapNow(s []metrics.Sample) uint64 {
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func rssNow() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	pages, _ := strconv.ParseUint(f[1], 10, 64)
	return pages * uint64(os.Getpagesize())
}

func startSampler() *peakSampler {
	runtime.GC()
	p := &peakSampler{stop: make(chan struct{}), heapSample: []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}}
	p.baseHeap, p.baseRSS = heapNow(p.heapSample), rssNow()
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		local := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			if h := heapNow(local); h > p.heap.Load() {
				p.heap.Store(h)
			}
			if r := rssNow(); r > p.rss.Load() {
				p.rss.Store(r)
			}
			select {
			case <-p.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return p
}

func (p *peakSampler) end() (heapGrowth, rssGrowth int64) {
	close(p.stop)
	p.done.Wait()
	return int64(p.heap.Load()) - int64(p.baseHeap), int64(p.rss.Load()) - int64(p.baseRSS)
}

// A Put of unknown size streams: 1 GiB (256 MiB with -short) goes up from
// a generator while the live heap grows by about Concurrency × PartSize,
// not by the object's size; the object reads back byte for byte.
// Not parallel, so that the heap it measures is its own.
//
//	go test -run TestPutMemoryBounded -v ./storage/s3
func TestPutMemoryBounded(t *testing.T) {
	size := int64(1 << 30)
	if testing.Short() {
		size = 256 << 20
	}
	const partSize, concurrency = 8 << 20, 2
	s, _ := newStore(t, s3.Config{PartSize: partSize, Concurrency: concurrency})
	gen := &genReader{left: size, state: 0x9e3779b97f4a7c15, sum: sha256.New()}
	sampler := startSampler()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	n, err := s.Put(t.Context(), "uploads/huge", gen)
	elapsed := time.Since(start)
	heapGrowth, rssGrowth := sampler.end()
	runtime.ReadMemStats(&after)
	if err != nil || n != size {
		t.Fatalf("Put = %d, %v; want %d bytes", n, err, size)
	}
	// The part buffers in flight, twice over because the collector lets
	// the heap reach twice its live size (GOGC=100) before it runs, plus
	// slack for HTTP and the test's own hashing.
	bound := int64(2*concurrency*partSize) + 16<<20
	t.Logf("Put of %d MiB in %v (%.0f MiB/s): peak heap +%.1f MiB, peak RSS +%.1f MiB, allocated %.1f MiB in all (PartSize %d MiB × Concurrency %d = %d MiB)",
		size>>20, elapsed.Round(time.Millisecond), float64(size)/(1<<20)/elapsed.Seconds(),
		float64(heapGrowth)/(1<<20), float64(rssGrowth)/(1<<20), float64(after.TotalAlloc-before.TotalAlloc)/(1<<20),
		partSize>>20, concurrency, concurrency*partSize>>20)
	if heapGrowth > bound {
		t.Errorf("peak heap grew by %d MiB, more than %d MiB: the Put does not stream", heapGrowth>>20, bound>>20)
	}
	rc, err := s.Open(t.Context(), "uploads/huge")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	h := sha256.New()
	if got, err := io.Copy(h, rc); err != nil || got != size {
		t.Fatalf("read back %d bytes, %v", got, err)
	}
	if !bytes.Equal(h.Sum(nil), gen.sum.Sum(nil)) {
		t.Fatal("read back different bytes")
	}
	if err := s.Delete(t.Context(), "uploads/huge"); err != nil {
		t.Fatal(err)
	}
}
