package s3_test

import (
	"testing"

	"github.com/earshot-dev/earshot/internal/testservices"
	"github.com/earshot-dev/earshot/storage/s3"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/transcribe/driver/drivertest"
)

// newStore opens a Store on a fresh bucket of the suite's S3 server.
func newStore(t *testing.T, cfg s3.Config) (*s3.Store, testservices.S3Config) {
	t.Helper()
	srv := testservices.S3(t)
	cfg.Endpoint, cfg.Region, cfg.Bucket = srv.Endpoint, srv.Region, srv.Bucket
	cfg.AccessKey, cfg.SecretKey = srv.AccessKey, srv.SecretKey
	s, err := s3.New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s, srv
}

func TestConformance(t *testing.T) {
	t.Parallel()
	drivertest.RunBlobStoreTests(t, func(t *testing.T) driver.BlobStore {
		s, _ := newStore(t, s3.Config{})
		return s
	})
}

// The same suite through a prefix and with the smallest part size, so that
// its 64 MiB streaming check runs as a 13-part multipart upload.
func TestConformancePrefixSmallParts(t *testing.T) {
	t.Parallel()
	drivertest.RunBlobStoreTests(t, func(t *testing.T) driver.BlobStore {
		s, _ := newStore(t, s3.Config{Prefix: "region-a", PartSize: 5 << 20, Concurrency: 3})
		return s
	})
}
