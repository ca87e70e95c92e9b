package transcribe

// Status is the processing state of a transcript.
type Status string

// The transcript states of the spec's "States and transitions" section.
const (
	StatusQueued     Status = "queued"
	StatusProcessing Status = "processing"
	StatusCompleted  Status = "completed"
	StatusError      Status = "error"
)

// Statuses lists every Status in lifecycle order.
func Statuses() []Status {
	return []Status{StatusQueued, StatusProcessing, StatusCompleted, StatusError}
}

// Valid reports whether s is one of Statuses.
func (s Status) Valid() bool {
	for _, v := range Statuses() {
		if s == v {
			return true
		}
	}
	return false
}

// Final reports whether s is a state a client polls for (completed or error).
func (s Status) Final() bool { return s == StatusCompleted || s == StatusError }

// transitions is the table of allowed status changes. Deletion is not a
// status change: a deleted transcript keeps its status and is marked with
// IsDeleted, as the real API does.
//
// processing → queued exists for crash recovery: a job whose worker died is
// handed back to the queue when its lease runs out. queued → error covers
// jobs that fail before processing starts (for example an upload that was
// deleted in the meantime).
var transitions = map[Status][]Status{
	StatusQueued:     {StatusProcessing, StatusError},
	StatusProcessing: {StatusCompleted, StatusError, StatusQueued},
}

// CanTransition reports whether a transcript may move from one status to another.
func CanTransition(from, to Status) bool {
	for _, t := range transitions[from] {
		if t == to {
			return true
		}
	}
	return false
}
