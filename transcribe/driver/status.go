package driver

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
