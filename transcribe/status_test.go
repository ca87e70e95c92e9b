package transcribe

import "testing"

func TestTransitionTable(t *testing.T) {
	allowed := map[[2]Status]bool{
		{StatusQueued, StatusProcessing}:    true,
		{StatusQueued, StatusError}:         true,
		{StatusProcessing, StatusCompleted}: true,
		{StatusProcessing, StatusError}:     true,
		{StatusProcessing, StatusQueued}:    true, // crash recovery
	}
	for _, from := range Statuses() {
		for _, to := range Statuses() {
			if got, want := CanTransition(from, to), allowed[[2]Status{from, to}]; got != want {
				t.Errorf("CanTransition(%s, %s) = %v, want %v", from, to, got, want)
			}
		}
	}
	for _, s := range Statuses() {
		if !s.Valid() {
			t.Errorf("%s not valid", s)
		}
		if s.Final() != (s == StatusCompleted || s == StatusError) {
			t.Errorf("%s.Final() wrong", s)
		}
		if CanTransition(StatusCompleted, s) || CanTransition(StatusError, s) {
			t.Errorf("final state may move to %s", s)
		}
	}
	if Status("deleted").Valid() {
		t.Error("unknown status is valid")
	}
}
