package driver

import "context"

// A PageStore is a Store that reads the fields of a list page alone
// (storage/sqlite and storage/postgres implement it). List uses it when
// the Store has it.
type PageStore interface {
	// ListPage is List, returning each record with Seq, ID, Status,
	// Created, Completed and Summary alone set. The records may be
	// shared with other calls (a Store's cache of pages): callers must
	// not modify them.
	ListPage(ctx context.Context, q ListQuery) ([]Record, error)
}

// A ReadStore is a Store that can leave out the sealed transcript of a
// read when the caller already holds it (storage/sqlite and
// storage/postgres implement it). The Service reads GETs through it,
// with a bounded cache of opened records (see Service.ReadJSON).
type ReadStore interface {
	// GetUnlessSummary is Get returning the fields a read shows alone
	// (ID, ProjectID, Status, Deleted, Created, Completed, WebhookStatus,
	// Summary and Data), except that when summary is not empty and equal
	// to the record's stored Summary, Data is nil: the caller holds the
	// Data stored with that Summary.
	GetUnlessSummary(ctx context.Context, id string, summary []byte) (*Record, error)
}

// JobCounter is an optional extension of Store, found by type assertion,
// for metrics: CountJobs returns how many records not deleted have
// status, across every project and every process sharing the Store, with
// one query that must stay cheap however many finished transcripts the
// Store holds (count queued and processing records through an index of
// the claimable ones). It is only called with StatusQueued or
// StatusProcessing.
type JobCounter interface {
	CountJobs(ctx context.Context, status Status) (int, error)
}
