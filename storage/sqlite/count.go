package sqlite

import (
	"context"
	"fmt"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

var _ driver.JobCounter = (*Store)(nil)

// countJobsSQL repeats the condition of the transcripts_active partial
// index word for word, so SQLite counts over that index (the unfinished
// jobs only) however many finished transcripts the table holds.
const countJobsSQL = `SELECT count(*) FROM transcripts
	WHERE deleted = 0 AND status IN ('queued', 'processing') AND status = ?`

// CountJobs implements driver.JobCounter with one query over the index
// of unfinished jobs: the records not deleted with status (queued or
// processing), across all projects and every process sharing the file.
func (s *Store) CountJobs(ctx context.Context, status transcribe.Status) (int, error) {
	if status != transcribe.StatusQueued && status != transcribe.StatusProcessing {
		return 0, fmt.Errorf("sqlite: CountJobs counts queued or processing records, not %q", status)
	}
	var n int
	if err := s.db.QueryRowContext(ctx, countJobsSQL, string(status)).Scan(&n); err != nil {
		return 0, fmt.Errorf("sqlite: counting %s jobs: %w", status, err)
	}
	return n, nil
}
