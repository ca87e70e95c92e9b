package realtime

import (
	"slices"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/realtime/realtimetest/streamtest"
)

// observed records OnSession and OnTranscript events.
type observed struct {
	sessions    []SessionEvent
	transcripts []TranscriptEvent
}

func (o *observed) tweak(c *Config) {
	c.OnSession = func(e SessionEvent) { o.sessions = append(o.sessions, e) }
	c.OnTranscript = func(e TranscriptEvent) { o.transcripts = append(o.transcripts, e) }
}

func (o *observed) latencies(final bool) []time.Duration {
	var out []time.Duration
	for _, e := range o.transcripts {
		if e.Final == final {
			out = append(out, e.Latency)
		}
	}
	return out
}

// TestOnTranscriptLatency: with audio sent in real time (100 ms chunks,
// the clock moving 100 ms per chunk), the fake recognizer shows a word in
// the partial of the chunk after the one that ends it, so the partial
// latency is one chunk; the final comes when the 700 ms pause is complete,
// so its latency from the end of speech is the pause.
func TestOnTranscriptLatency(t *testing.T) {
	var o observed
	h := newHarness(t, SessionOptions{ProjectID: "p"}, o.tweak)
	// "one" ends at 300 ms (chunk 3), "two" at 800 ms (chunk 8), then a
	// pause ends the utterance.
	if err := h.stream(streamtest.Cat(streamtest.Tone(300, 16000), streamtest.Silence(200, 16000), streamtest.Tone(300, 16000), streamtest.Silence(1200, 16000)), 16000); err != nil {
		t.Fatal(err)
	}
	if f := h.finals(); len(f) != 1 || f[0].Text != "One two." {
		t.Fatalf("finals %+v", f)
	}
	if got := o.latencies(false); !slices.Equal(got, []time.Duration{100 * time.Millisecond, 100 * time.Millisecond}) {
		t.Errorf("partial latencies %v, want one chunk (100ms) for each new word", got)
	}
	final := o.latencies(true)
	if len(final) != 1 || final[0] < DefaultSilenceThreshold || final[0] > DefaultSilenceThreshold+100*time.Millisecond {
		t.Errorf("final latency %v, want the 700ms pause (to the chunk that completes it)", final)
	}
	for _, e := range o.transcripts {
		if e.Session != h.s.ID() {
			t.Errorf("event of session %q, want %q", e.Session, h.s.ID())
		}
	}
	// The next utterance's new word is reported; the final the client
	// forces is not.
	o.transcripts = nil
	if err := h.stream(streamtest.Cat(streamtest.Tone(300, 16000), streamtest.Silence(200, 16000)), 16000); err != nil {
		t.Fatal(err)
	}
	if err := h.text(`{"force_end_utterance": true}`); err != nil {
		t.Fatal(err)
	}
	if n := len(h.finals()); n != 2 {
		t.Fatalf("%d finals, want 2", n)
	}
	if got := o.latencies(true); len(got) != 0 {
		t.Errorf("a forced final was reported: %v", got)
	}
	if got := o.latencies(false); len(got) != 1 {
		t.Errorf("partials of the second utterance: %v, want one new word", got)
	}
}

// TestOnTranscriptTickFinal: when the client stops sending after speech,
// the final that Tick makes is reported, its latency counted from the
// audio that held the end of speech.
func TestOnTranscriptTickFinal(t *testing.T) {
	var o observed
	h := newHarness(t, SessionOptions{}, o.tweak)
	if err := h.stream(streamtest.Cat(streamtest.Tone(300, 16000), streamtest.Silence(100, 16000)), 16000); err != nil {
		t.Fatal(err)
	}
	// The last audio arrived; 1.2 s later (threshold + 500 ms) Tick ends
	// the utterance.
	h.clock.Advance(DefaultSilenceThreshold + 500*time.Millisecond)
	msgs, err := h.s.Tick()
	if err != nil || len(msgs) != 1 {
		t.Fatalf("Tick: %v %+v", err, msgs)
	}
	// "one" ends at 300 ms, in the chunk that arrived 100 ms before the
	// last one.
	if got := o.latencies(true); !slices.Equal(got, []time.Duration{1300 * time.Millisecond}) {
		t.Errorf("final latency %v, want 1.3s", got)
	}
}

// TestOnSession: a session reports its beginning and, once, its end with
// the state it ended in and the audio it received.
func TestOnSession(t *testing.T) {
	for _, c := range []struct {
		name string
		end  func(h *harness)
		want State
	}{
		{"terminate", func(h *harness) { h.text(`{"terminate_session": true}`) }, StateTerminated},
		{"expired", func(h *harness) { h.clock.Advance(2 * time.Hour); h.s.Tick() }, StateExpired},
		{"aborted", func(h *harness) { h.s.Abort(StateExpired) }, StateExpired},
	} {
		t.Run(c.name, func(t *testing.T) {
			var o observed
			h := newHarness(t, SessionOptions{ProjectID: "proj"}, o.tweak)
			if len(o.sessions) != 1 || o.sessions[0] != (SessionEvent{Kind: SessionBegan, Session: h.s.ID(), Project: "proj"}) {
				t.Fatalf("after NewSession: %+v", o.sessions)
			}
			h.stream(streamtest.Tone(500, 16000), 16000)
			c.end(h)
			h.s.Abort(StateTerminated) // already ended: no second event
			h.s.Tick()
			want := SessionEvent{Kind: SessionEnded, Session: h.s.ID(), Project: "proj", State: c.want, Audio: 500 * time.Millisecond}
			if len(o.sessions) != 2 || o.sessions[1] != want {
				t.Fatalf("events %+v, want began then %+v", o.sessions, want)
			}
		})
	}
}
