package memory

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// BlobStore is an in-memory driver.BlobStore. The zero value is not
// usable; call NewBlobStore. It is safe for concurrent use. Put keeps the
// whole body in memory, in chunks of up to 1 MiB so that it never copies
// or doubles it, which suits tests and small deployments only. A blob is
// immutable once stored: Put swaps in a new one, so a reader opened
// earlier keeps seeing the old content, and a failed Put changes nothing.
type BlobStore struct {
	mu     sync.RWMutex
	closed bool
	blobs  map[string]blob
}

// blob is stored content: chunks that are never modified once stored.
type blob [][]byte

func (b blob) reader() io.Reader {
	rs := make([]io.Reader, len(b))
	for i, c := range b {
		rs[i] = bytes.NewReader(c)
	}
	return io.MultiReader(rs...)
}

// readBlob reads r to EOF into chunks that start at 4 KiB and double up
// to 1 MiB.
func readBlob(ctx context.Context, r io.Reader) (blob, int64, error) {
	const first, limit = 4 << 10, 1 << 20
	var (
		b    blob
		n    int64
		size = first
	)
	for {
		if err := ctx.Err(); err != nil {
			return nil, n, err
		}
		// Fill the chunk read by read: io.ReadFull would report a short
		// chunk as io.ErrUnexpectedEOF, the same value a source cut off
		// mid-body returns, and the two must not be confused.
		c := make([]byte, size)
		m := 0
		var err error
		for m < len(c) && err == nil {
			var k int
			k, err = r.Read(c[m:])
			m += k
		}
		n += int64(m)
		if m > 0 {
			b = append(b, c[:m:m])
		}
		switch {
		case err == io.EOF:
			return b, n, nil
		case err != nil:
			return nil, n, err
		}
		size = min(2*size, limit)
	}
}

var _ driver.BlobStore = (*BlobStore)(nil)

// NewBlobStore returns an empty BlobStore.
func NewBlobStore() *BlobStore {
	return &BlobStore{blobs: map[string]blob{}}
}

// Put implements driver.BlobStore. The key must be non-empty. A read
// error or a cancelled ctx leaves the store as it was.
func (b *BlobStore) Put(ctx context.Context, key string, r io.Reader) (int64, error) {
	if key == "" {
		return 0, errors.New("memory: Put: empty key")
	}
	if r == nil {
		return 0, errors.New("memory: Put: nil reader")
	}
	data, n, err := readBlob(ctx, r)
	if err != nil {
		return n, fmt.Errorf("memory: Put %s: %w", key, err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return 0, ErrClosed
	}
	b.blobs[key] = data
	return n, nil
}

// Open implements driver.BlobStore.
func (b *BlobStore) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return nil, ErrClosed
	}
	data, ok := b.blobs[key]
	if !ok {
		return nil, fmt.Errorf("memory: blob %s: %w", key, transcribe.ErrNotFound)
	}
	return io.NopCloser(data.reader()), nil
}

// Delete implements driver.BlobStore; deleting a missing key is nil.
func (b *BlobStore) Delete(ctx context.Context, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return ErrClosed
	}
	delete(b.blobs, key)
	return nil
}

// Len returns the number of stored blobs (for tests that check cleanup).
func (b *BlobStore) Len() int {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return len(b.blobs)
}

// Keys returns the stored keys, sorted.
func (b *BlobStore) Keys() []string {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return slices.Sorted(maps.Keys(b.blobs))
}

// Close drops every blob; later calls return ErrClosed.
func (b *BlobStore) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	b.blobs = nil
	return nil
}
