package transcribe

import (
	"fmt"

	"github.com/earshot-dev/earshot/transcribe/driver"
)

// Status is the processing state of a transcript (the wire enum
// "status"); defined in package driver because Records carry it.
type Status = driver.Status

// The transcript states of the spec's "States and transitions" section.
const (
	StatusQueued     = driver.StatusQueued
	StatusProcessing = driver.StatusProcessing
	StatusCompleted  = driver.StatusCompleted
	StatusError      = driver.StatusError
)

// Statuses lists every Status in lifecycle order.
func Statuses() []Status { return driver.Statuses() }

// transitions is the table of allowed status changes, and every status
// change the Service makes goes through transition, which consults it:
//
//   - queued → processing: a worker claims the job (Store.ClaimJob makes
//     this change atomically; the Service checks the claimed record);
//   - processing → completed or error: the job finishes;
//   - queued → error and processing → error: the transcript is deleted
//     before it finished, so pollers stop.
//
// A job whose worker died stays processing until another worker claims it
// again (processing → processing is not a change). Deletion of a finished
// transcript is not a status change: it keeps its status and is marked
// with IsDeleted, as the real API does.
var transitions = map[Status][]Status{
	StatusQueued:     {StatusProcessing, StatusError},
	StatusProcessing: {StatusCompleted, StatusError},
}

// canTransition reports whether a transcript may move from one status to another.
func canTransition(from, to Status) bool {
	for _, t := range transitions[from] {
		if t == to {
			return true
		}
	}
	return false
}

// transitionError reports a status change the table does not allow.
type transitionError struct{ From, To Status }

func (e *transitionError) Error() string {
	return fmt.Sprintf("transcribe: a transcript cannot go from %s to %s", e.From, e.To)
}

// transitionHook, when set (by tests), sees every status change the
// Service makes.
var transitionHook func(from, to Status)

// transition moves the record and its transcript to status to, after
// checking the table; *transitionError otherwise (nothing is changed).
func transition(rec *driver.Record, t *Transcript, to Status) error {
	from := rec.Status
	if !canTransition(from, to) {
		return &transitionError{From: from, To: to}
	}
	if transitionHook != nil {
		transitionHook(from, to)
	}
	rec.Status = to
	if t != nil {
		t.Status = to
	}
	return nil
}
