package postgres

import (
	"context"
	"fmt"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

var _ driver.JobCounter = (*Store)(nil)

// countJobsSQL repeats the condition of the transcripts_claimable partial
// index word for word, so PostgreSQL counts over that index (the
// unfinished jobs only) however many finished transcripts the table holds.
const countJobsSQL = `SELECT count(*) FROM transcripts
	WHERE NOT deleted AND status IN ('queued', 'processing') AND status = $1`

// CountJobs implements driver.JobCounter with one query over the index
// of unfinished jobs: the records not deleted with status (queued or
// processing), across all projects and every process sharing the schema.
func (s *Store) CountJobs(ctx context.Context, status transcribe.Status) (int, error) {
	if status != transcribe.StatusQueued && status != transcribe.StatusProcessing {
		return 0, fmt.Errorf("postgres: CountJobs counts queued or processing records, not %q", status)
	}
	if s.closed.Load() {
		return 0, errClosed("CountJobs")
	}
	var n int64
	if err := s.pool.QueryRow(ctx, countJobsSQL, string(status)).Scan(&n); err != nil {
		return 0, s.fail("counting jobs", err)
	}
	return int(n), nil
}

// Ping checks that the database answers (the reference server's readiness
// check uses it).
func (s *Store) Ping(ctx context.Context) error {
	if s.closed.Load() {
		return errClosed("Ping")
	}
	if err := s.pool.Ping(ctx); err != nil {
		return s.fail("ping", err)
	}
	return nil
}
