package transcribe_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// unreachableBlobs is a blob store that is down: Put fails at once (connection
// refused), and Delete retries as the S3 client does, until its context
// ends.
type unreachableBlobs struct{ driver.BlobStore }

func (unreachableBlobs) Put(context.Context, string, io.Reader) (int64, error) {
	return 0, errors.Join(transcribe.ErrStorageUnavailable, errors.New("dial tcp 127.0.0.1:9000: connect: connection refused"))
}

func (unreachableBlobs) Delete(ctx context.Context, key string) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Minute):
		return errors.New("still down")
	}
}

// TestUploadFailsFastWhileBlobStoreDown (issue 25): an upload while the
// blob store is down fails at once with the store's error, though the
// removal of what it made cannot reach the store either; the record it
// made is left for the janitor. Before, the removal ran without a
// deadline, holding the answer as long as the store's client retried (3 s
// and more in the outage test, past the request's store timeout).
func TestUploadFailsFastWhileBlobStoreDown(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *transcribe.Config) { c.Blobs = unreachableBlobs{c.Blobs}; c.Workers = -1 })
	start := time.Now()
	_, err := e.svc.Upload(context.Background(), "p", bytes.NewReader([]byte("RIFF....")))
	took := time.Since(start)
	if !errors.Is(err, transcribe.ErrStorageUnavailable) {
		t.Errorf("error %v, want the store's outage", err)
	}
	if took > 3*time.Second {
		t.Errorf("the failed upload was answered after %v", took)
	}
}
