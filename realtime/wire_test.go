package realtime

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/realtime/realtimetest/streamtest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// TestWireGolden pins the exact JSON of every server message of a
// session: begins, partials, a final, information, terminated.
func TestWireGolden(t *testing.T) {
	h := newHarness(t, SessionOptions{}, func(c *Config) {
		c.NewID = func() string { return "4a3ee2d2-5f1c-4b8a-9e5b-7c6d2b1a0f9e" }
	})
	var buf bytes.Buffer
	write := func(m Message) {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	write(h.s.Begins())
	write(h.s.Resumed())
	if err := h.stream(streamtest.Cat(streamtest.Tone(500, 16000), streamtest.Silence(200, 16000), streamtest.Tone(300, 16000), streamtest.Silence(800, 16000)), 16000); err != nil {
		t.Fatal(err)
	}
	if err := h.text(`{"terminate_session":true}`); err != nil {
		t.Fatal(err)
	}
	for _, m := range h.msgs {
		write(m)
	}
	write(ErrorMessage{Error: ErrNotAuthorized.Message()})
	path := filepath.Join("testdata", "session.golden")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("wire messages differ from %s:\n%s", path, buf.String())
	}
	// Every line has a message_type from MessageTypes, except the error.
	known := map[string]bool{}
	for _, mt := range MessageTypes() {
		known[string(mt)] = true
	}
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		if mt, ok := m["message_type"].(string); ok && !known[mt] {
			t.Errorf("unknown message_type %q", mt)
		} else if !ok && m["error"] == nil {
			t.Errorf("message without message_type or error: %s", line)
		}
	}
}

// FuzzHandleText feeds arbitrary text frames to a session: no panics, and
// every failure is a close error.
func FuzzHandleText(f *testing.F) {
	for _, s := range []string{
		`{"terminate_session":true}`, `{"force_end_utterance":true}` + "\n", `{"end_utterance_silence_threshold":500}`,
		`{"audio_data":"AAAAAAAA"}`, `{"audio_data":""}`, `[]`, `{}`, `null`, `"x"`, `{"audio_data":"` + strings.Repeat("QUFB", 1200) + `"}`,
	} {
		f.Add([]byte(s))
	}
	rec := &streamtest.FakeRecognizer{}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := NewSession(context.Background(), Config{Recognizer: rec, Now: func() time.Time { return time.Unix(0, 0) }}, SessionOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Abort(StateTerminated)
		if _, err := s.HandleText(b); err != nil {
			var ce *CloseError
			if !asCloseError(err, &ce) {
				t.Fatalf("error %v is not a *CloseError", err)
			}
		}
	})
}

func asCloseError(err error, ce **CloseError) bool {
	c, ok := err.(*CloseError)
	*ce = c
	return ok
}
