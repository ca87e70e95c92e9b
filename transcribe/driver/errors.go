package driver

import (
	"errors"

	"github.com/earshot-dev/earshot/transcribe/queue"
)

// Sentinel errors of the contracts. Adapters wrap them
// (fmt.Errorf("...: %w", ErrNotFound)); callers test with errors.Is.
// Package transcribe re-exports each under the same name (the same
// values), so embedders need not import this package.
var (
	// ErrNotFound: the record, upload or blob does not exist.
	ErrNotFound = errors.New("transcribe: not found")
	// ErrExists: a create with an id (or key) already present.
	ErrExists = errors.New("transcribe: already exists")
	// ErrNoJob: ClaimJob found nothing to do.
	ErrNoJob = errors.New("transcribe: no job available")
	// ErrLeaseLost: the job's lease was taken over by another worker.
	ErrLeaseLost = queue.ErrLeaseLost
	// ErrStorageUnavailable: the blob store could not be reached or
	// answered 5xx: an outage, not a fault of the job (the Service waits
	// for it). BlobStore adapters of remote stores wrap it.
	ErrStorageUnavailable = errors.New("transcribe: storage unavailable")
	// ErrClosed: an adapter was used after Close.
	ErrClosed = errors.New("transcribe: closed")
)
