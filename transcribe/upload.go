package transcribe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/google/uuid"

	"github.com/earshot-dev/earshot/transcribe/driver"
)

// uploadKey is the blob key of an upload's bytes.
func uploadKey(id string) string { return "uploads/" + id }

// Upload streams r into the BlobStore for project and returns the upload;
// its ID is what Submit takes as SubmitRequest.UploadID. Errors:
// ErrEmptyUpload for an empty body, a *LimitError (wrapping ErrTooLarge)
// past MaxUploadBytes, and the reader's own error when the body could not
// be read (for example io.ErrUnexpectedEOF for a cut-off request).
//
// The record is created before the bytes are stored, so that a process
// killed mid-upload leaves a record, which the janitor removes with
// whatever part of the blob was written once UploadTTL has passed, and
// never a blob no record points to. That record's Size is therefore 0
// (the returned Upload carries the real size): nothing reads it back. A
// failed upload's record and bytes are removed at once, within
// uploadCleanupTimeout (1 s), so that a blob store that is down does not
// hold the answer; what that leaves, the janitor removes too.
func (s *Service) Upload(ctx context.Context, projectID string, r io.Reader) (*driver.Upload, error) {
	id := uuid.NewString()
	key := uploadKey(id)
	u := &driver.Upload{ID: id, ProjectID: projectID, Created: s.utcNow()}
	if err := s.cfg.Uploads.CreateUpload(ctx, u); err != nil {
		return nil, fmt.Errorf("transcribe: recording upload: %w", err)
	}
	lr := &limitedReader{r: r, n: s.cfg.MaxUploadBytes}
	n, err := s.cfg.Blobs.Put(ctx, key, lr)
	if err == nil && !lr.over && lr.err == nil && n > 0 {
		// An upload slower than UploadTTL may have been swept meanwhile.
		if _, gerr := s.cfg.Uploads.GetUpload(ctx, id); gerr != nil {
			err = fmt.Errorf("the upload record went away while its bytes were stored: %w", gerr)
		}
	}
	if err != nil || lr.over || lr.err != nil || n == 0 {
		// Bounded: a blob store that is down (and so failed the Put)
		// would hold the answer for as long as its client retries the
		// delete. What is left, the janitor removes after UploadTTL.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), uploadCleanupTimeout)
		s.removeUpload(cctx, id)
		cancel()
		switch {
		case lr.over:
			return nil, &LimitError{What: "upload", Limit: s.cfg.MaxUploadBytes, Unit: "bytes"}
		case lr.err != nil:
			return nil, &ReadError{Err: lr.err}
		case err != nil:
			return nil, fmt.Errorf("transcribe: storing upload: %w", err)
		default:
			return nil, ErrEmptyUpload
		}
	}
	u.Size = n
	s.log.InfoContext(ctx, "upload stored", "upload_id", id, "project", projectID, "bytes", n)
	return u, nil
}

// uploadCleanupTimeout bounds the removal of a failed upload's record and
// bytes inside the request that made it.
const uploadCleanupTimeout = time.Second

// limitedReader reads at most n bytes and notes whether the source had
// more (over) and any error of the source itself (err), so that Upload can
// tell a client's cut-off body from a storage failure.
type limitedReader struct {
	r    io.Reader
	n    int64
	over bool
	err  error
}

var errOverLimit = errors.New("transcribe: upload over the size limit")

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n < 0 {
		l.over = true
		return 0, errOverLimit
	}
	if int64(len(p)) > l.n+1 {
		p = p[:l.n+1]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	if l.n < 0 {
		l.over = true
		return n, errOverLimit
	}
	if err != nil && err != io.EOF {
		l.err = err
	}
	return n, err
}
