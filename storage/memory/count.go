package memory

import (
	"context"
	"fmt"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

var _ driver.JobCounter = (*Store)(nil)

// CountJobs implements driver.JobCounter: the records not deleted
// with status (queued or processing), across all projects. It walks every
// record, which is fine for the tests and single processes this store is
// for.
func (s *Store) CountJobs(ctx context.Context, status transcribe.Status) (int, error) {
	if status != transcribe.StatusQueued && status != transcribe.StatusProcessing {
		return 0, fmt.Errorf("memory: CountJobs counts queued or processing records, not %q", status)
	}
	if err := s.lock(ctx); err != nil {
		return 0, err
	}
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.order {
		if !r.Deleted && r.Status == status {
			n++
		}
	}
	return n, nil
}
