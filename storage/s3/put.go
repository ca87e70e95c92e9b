package s3

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"sort"
	"sync"

	"github.com/minio/minio-go/v7"
)

// Put stores all of r under key, replacing any previous blob, and returns
// the byte count. A body shorter than PartSize goes up in one PUT; a longer
// one as a multipart upload of PartSize parts read from r as it goes, with
// at most Concurrency parts in memory (a body under 1 MiB takes a 1 MiB
// buffer only). The object appears only when the
// upload completes: a failed or cancelled Put aborts the multipart upload
// and leaves the previous blob (or nothing) under key. An error reading r
// is wrapped (errors.Is finds it).
func (s *Store) Put(ctx context.Context, key string, r io.Reader) (int64, error) {
	name, err := s.object("put", key)
	if err != nil {
		return 0, err
	}
	r = sourceReader{r}
	// Most blobs are small: read up to smallSize first, so that a Put of a
	// small body holds a small buffer, and take a PartSize buffer only
	// when more follows.
	small := s.small.Get().(*[]byte)
	n, rerr := io.ReadFull(r, *small)
	data := *small
	if rerr == nil {
		buf := s.bufs.Get().(*[]byte)
		copy(*buf, *small)
		s.small.Put(small)
		var m int
		m, rerr = io.ReadFull(r, (*buf)[n:])
		n += m
		if rerr == nil {
			return s.putMultipart(ctx, key, name, buf, r)
		}
		data = *buf
		defer s.bufs.Put(buf)
	} else {
		defer s.small.Put(small)
	}
	if rerr != io.EOF && rerr != io.ErrUnexpectedEOF {
		return 0, s.fail("put", key, fmt.Errorf("reading the body: %w", rerr))
	}
	if err := context.Cause(ctx); err != nil {
		return 0, s.fail("put", key, err)
	}
	body := data[:n]
	if _, err := s.core.PutObject(ctx, s.bucket, name, bytes.NewReader(body), int64(n), "", sha256Hex(body), signedPayload); err != nil {
		return 0, s.fail("put", key, err)
	}
	return int64(n), nil
}

// sourceReader reports the source's own io.ErrUnexpectedEOF (what
// net/http returns for a request body cut off before its Content-Length)
// as errBodyCut: io.ReadFull returns io.ErrUnexpectedEOF for a short final
// chunk too, the normal end of a body, and the two must not be confused.
type sourceReader struct{ r io.Reader }

var errBodyCut = fmt.Errorf("the body broke off: %w", io.ErrUnexpectedEOF)

func (s sourceReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err == io.ErrUnexpectedEOF {
		err = errBodyCut
	}
	return n, err
}

// signedPayload makes minio-go sign the SHA-256 the Store computed over
// the whole body (the server checks it) instead of streaming the body as
// aws-chunked with per-chunk signatures over plain HTTP: versitygw 1.8.0
// leaves an empty aws-chunked body unread on the connection, which then
// answers the next request with 400.
var signedPayload = minio.PutObjectOptions{DisableContentSha256: true}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// putMultipart uploads first (a full part) and the rest of r as a
// multipart upload, aborting it on any failure.
func (s *Store) putMultipart(ctx context.Context, key, name string, first *[]byte, r io.Reader) (int64, error) {
	uploadID, err := s.core.NewMultipartUpload(ctx, s.bucket, name, minio.PutObjectOptions{})
	if err != nil {
		s.bufs.Put(first)
		return 0, s.fail("put", key, err)
	}
	uctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		parts []minio.CompletePart
		upErr error // first part upload error
	)
	slots := make(chan struct{}, s.concurrency)
	upload := func(num int, buf *[]byte, n int) {
		defer wg.Done()
		defer func() { <-slots }()
		defer s.bufs.Put(buf)
		body := (*buf)[:n]
		p, err := s.core.PutObjectPart(uctx, s.bucket, name, uploadID, num, bytes.NewReader(body), int64(n),
			minio.PutObjectPartOptions{Sha256Hex: sha256Hex(body), DisableContentSha256: true})
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			if upErr == nil {
				upErr = fmt.Errorf("part %d: %w", num, err)
				cancel(upErr)
			}
			return
		}
		parts = append(parts, minio.CompletePart{PartNumber: num, ETag: p.ETag,
			ChecksumCRC32: p.ChecksumCRC32, ChecksumCRC32C: p.ChecksumCRC32C, ChecksumSHA1: p.ChecksumSHA1,
			ChecksumSHA256: p.ChecksumSHA256, ChecksumCRC64NVME: p.ChecksumCRC64NVME})
	}
	var total int64
	slots <- struct{}{}
	wg.Add(1)
	go upload(1, first, len(*first))
	total = int64(len(*first))
	for num := 2; ; num++ {
		select {
		case slots <- struct{}{}:
		case <-uctx.Done():
			err = context.Cause(uctx)
		}
		if err != nil {
			break
		}
		buf := s.bufs.Get().(*[]byte)
		n, rerr := io.ReadFull(r, *buf)
		switch {
		case rerr == io.EOF: // the previous part was the last
		case rerr != nil && rerr != io.ErrUnexpectedEOF:
			err = fmt.Errorf("reading the body: %w", rerr)
		case num > maxParts:
			err = fmt.Errorf("%w: more than %d parts of %d bytes; raise Config.PartSize", ErrTooLarge, maxParts, s.partSize)
		}
		if rerr == io.EOF || err != nil {
			s.bufs.Put(buf)
			<-slots
			break
		}
		wg.Add(1)
		go upload(num, buf, n)
		total += int64(n)
		if rerr == io.ErrUnexpectedEOF {
			break
		}
	}
	wg.Wait()
	if err == nil {
		err = upErr
	}
	if err == nil {
		err = context.Cause(ctx)
	}
	if err == nil {
		sort.Slice(parts, func(i, j int) bool { return parts[i].PartNumber < parts[j].PartNumber })
		if _, err = s.core.CompleteMultipartUpload(ctx, s.bucket, name, uploadID, parts, minio.PutObjectOptions{}); err == nil {
			return total, nil
		}
	}
	// Abort even when ctx is done: the parts would otherwise stay (and be
	// billed) until AbortIncomplete or a bucket lifecycle rule removes them.
	actx, acancel := context.WithTimeout(context.WithoutCancel(ctx), abortTimeout)
	defer acancel()
	if aerr := s.core.AbortMultipartUpload(actx, s.bucket, name, uploadID); aerr != nil {
		err = fmt.Errorf("%w (and aborting the incomplete upload failed: %v; AbortIncomplete removes it later)", err, aerr)
	}
	return 0, s.fail("put", key, err)
}
