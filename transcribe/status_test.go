package transcribe

import (
	"errors"
	"testing"

	"github.com/earshot-dev/earshot/transcribe/driver"
)

func TestTransitionTable(t *testing.T) {
	allowed := map[[2]Status]bool{
		{StatusQueued, StatusProcessing}:    true,
		{StatusQueued, StatusError}:         true,
		{StatusProcessing, StatusCompleted}: true,
		{StatusProcessing, StatusError}:     true,
	}
	for _, from := range Statuses() {
		for _, to := range Statuses() {
			want := allowed[[2]Status{from, to}]
			if got := canTransition(from, to); got != want {
				t.Errorf("canTransition(%s, %s) = %v, want %v", from, to, got, want)
			}
			rec, tr := &driver.Record{Status: from}, &Transcript{Status: from}
			err := transition(rec, tr, to)
			var te *transitionError
			switch {
			case want && (err != nil || rec.Status != to || tr.Status != to):
				t.Errorf("transition(%s, %s) = %v, record %s, transcript %s", from, to, err, rec.Status, tr.Status)
			case !want && (!errors.As(err, &te) || te.From != from || te.To != to || rec.Status != from || tr.Status != from):
				t.Errorf("transition(%s, %s) = %v (record %s, transcript %s); want a *transitionError and no change", from, to, err, rec.Status, tr.Status)
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
		if canTransition(StatusCompleted, s) || canTransition(StatusError, s) {
			t.Errorf("final state may move to %s", s)
		}
	}
	if Status("deleted").Valid() {
		t.Error("unknown status is valid")
	}
}
