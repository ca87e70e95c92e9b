package transcribe

import (
	"context"
	"errors"
	"time"

	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/transcribe/queue"
)

// janitorBatch is how many uploads one store query returns.
const janitorBatch = 100

// attachGrace is how long an upload may be attached to a transcript that
// does not exist yet: Submit attaches the upload just before it creates
// the record.
const attachGrace = 5 * time.Minute

// janitor sweeps uploads every UploadSweepInterval, starting at once,
// until ctx (the Service's Runner) ends.
func (s *Service) janitor(ctx context.Context) {
	queue.Every(ctx, s.cfg.UploadSweepInterval, func(ctx context.Context) { s.sweepUploads(ctx) })
}

// sweepUploads deletes (blob and record) every upload that
//
//   - no transcript used within UploadTTL, or
//   - belongs to a transcript that finished, was deleted, or does not
//     exist (a crash between storing a transcript's outcome and deleting
//     its upload leaves such an upload behind),
//
// and returns how many it deleted. A blob that cannot be deleted keeps its
// record, so the next sweep retries it.
func (s *Service) sweepUploads(ctx context.Context) int {
	now := s.now()
	expired, orphaned := 0, 0
	defer func() {
		if expired+orphaned > 0 {
			s.log.Info("uploads deleted by the janitor", "unused", expired, "orphaned", orphaned, "ttl", s.cfg.UploadTTL)
		}
	}()
	q := driver.UploadQuery{CreatedBefore: now.Add(-min(s.cfg.UploadTTL, attachGrace)), Limit: janitorBatch}
	for ctx.Err() == nil {
		us, err := s.cfg.Uploads.ListUploads(ctx, q)
		if err != nil {
			if ctx.Err() == nil {
				s.log.Error("listing uploads", "err", err)
			}
			return expired + orphaned
		}
		for _, u := range us {
			if ctx.Err() != nil {
				break
			}
			switch {
			case u.TranscriptID == "" && u.Created.Before(now.Add(-s.cfg.UploadTTL)):
				// Re-read: a Submit may have attached it since the listing.
				if cur, err := s.cfg.Uploads.GetUpload(ctx, u.ID); err == nil && cur.TranscriptID == "" && s.removeUpload(ctx, u.ID) {
					expired++
				}
			case u.TranscriptID != "" && s.finishedWith(ctx, u) && s.removeUpload(ctx, u.ID):
				orphaned++
			}
		}
		if len(us) < janitorBatch {
			break
		}
		last := us[len(us)-1]
		q.AfterCreated, q.AfterID = last.Created, last.ID
	}
	return expired + orphaned
}

// finishedWith reports whether the transcript using upload u no longer
// needs it: it is final, deleted, or absent past the attach grace.
func (s *Service) finishedWith(ctx context.Context, u *driver.Upload) bool {
	rec, err := s.cfg.Store.Get(ctx, u.TranscriptID)
	switch {
	case errors.Is(err, ErrNotFound):
		return u.Created.Before(s.now().Add(-attachGrace))
	case err != nil:
		s.log.Error("reading the transcript of an upload", "upload_id", u.ID, "id", u.TranscriptID, "err", err)
		return false
	}
	return rec.Deleted || rec.Status.Final()
}

// removeUpload deletes an upload's blob, then its record.
func (s *Service) removeUpload(ctx context.Context, id string) bool {
	if err := s.cfg.Blobs.Delete(ctx, uploadKey(id)); err != nil {
		s.log.Error("deleting upload", "upload_id", id, "err", err)
		return false
	}
	if err := s.cfg.Uploads.DeleteUpload(ctx, id); err != nil {
		s.log.Error("deleting upload record", "upload_id", id, "err", err)
		return false
	}
	return true
}
