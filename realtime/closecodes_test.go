package realtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/earshot-dev/earshot/realtime/realtimetest/streamtest"
	"github.com/earshot-dev/earshot/transcribe"
)

// TestCloseCodes provokes every close code over a real WebSocket.
func TestCloseCodes(t *testing.T) {
	t.Run("4001 bad API key", func(t *testing.T) {
		s := newTestServer(t)
		c := s.dial("/v2/realtime/ws", nil, "wrong")
		if e := expectClose(t, c, CloseNotAuthorized); e != "Not Authorized" {
			t.Fatalf("error %q", e)
		}
	})
	t.Run("4001 no credentials", func(t *testing.T) {
		s := newTestServer(t)
		expectClose(t, s.dial("/v2/realtime/ws", nil, ""), CloseNotAuthorized)
	})
	t.Run("4001 unknown token", func(t *testing.T) {
		s := newTestServer(t)
		expectClose(t, s.dial("/v2/realtime/ws", url.Values{"token": {"abc"}}, ""), CloseNotAuthorized)
	})
	t.Run("4000 bad sample rate", func(t *testing.T) {
		s := newTestServer(t)
		// Present but empty is refused too (issue 25.5); absent is 16000
		// (TestGoSDKRealtime: the Go SDK leaves it out by default).
		for _, v := range []string{"abc", "-16000", "0", "100", "1000000", "", " "} {
			c := s.dial("/v2/realtime/ws", url.Values{"sample_rate": {v}}, "key-a")
			if e := expectClose(t, c, CloseBadSampleRate); !strings.Contains(e, "sample_rate") {
				t.Fatalf("%s: error %q", v, e)
			}
		}
	})
	t.Run("4101 bad encoding", func(t *testing.T) {
		s := newTestServer(t)
		expectClose(t, s.dial("/v2/realtime/ws", url.Values{"encoding": {"opus"}}, "key-a"), CloseBadSchema)
	})
	t.Run("4104 word boost", func(t *testing.T) {
		s := newTestServer(t)
		for _, v := range []string{`["foo"`, `"foo"`, `[1,2]`, `["` + strings.Repeat("a", MaxWordBoostChars) + `"]`} {
			c := s.dial("/v2/realtime/ws", url.Values{"word_boost": {v}}, "key-a")
			expectClose(t, c, CloseBadWordBoost)
		}
	})
	t.Run("4104 word boost the recognizer rejects", func(t *testing.T) {
		s := newTestServer(t)
		s.rec.SetNewErr(fmt.Errorf("pocketsphinx: %w", &transcribe.ParamError{Field: "word_boost", Reason: "at most 2000 terms"}))
		c := s.dial("/v2/realtime/ws", url.Values{"word_boost": {`["a"]`}}, "key-a")
		if e := expectClose(t, c, CloseBadWordBoost); !strings.Contains(e, "2000 terms") {
			t.Fatalf("error %q", e)
		}
	})
	t.Run("4004 unknown session", func(t *testing.T) {
		s := newTestServer(t)
		expectClose(t, s.dial("/v2/realtime/ws/5551a1b8-0000-4000-8000-000000000000", nil, "key-a"), CloseSessionNotFound)
	})
	t.Run("4008 session expires", func(t *testing.T) {
		s := newTestServer(t, func(c *Config) { c.SessionDuration = time.Minute; c.IdleTimeout = time.Hour })
		c, _ := begin(t, s, "key-a", nil)
		s.clock.Advance(time.Minute)
		expectClose(t, c, CloseSessionExpired)
	})
	t.Run("4008 resume after grace", func(t *testing.T) {
		s := newTestServer(t)
		c, id := begin(t, s, "key-a", nil)
		drop(t, s, c, id)
		s.clock.Advance(31 * time.Second)
		expectClose(t, s.dial("/v2/realtime/ws/"+id, nil, "key-a"), CloseSessionExpired)
		if st := s.h.Session(id).State(); st != StateExpired {
			t.Fatalf("state %s", st)
		}
	})
	t.Run("4010 resume a terminated session", func(t *testing.T) {
		s := newTestServer(t)
		c, id := begin(t, s, "key-a", nil)
		send(t, c, websocket.MessageText, []byte(`{"terminate_session":true}`))
		expectCloseAfterMessages(t, c)
		expectClose(t, s.dial("/v2/realtime/ws/"+id, nil, "key-a"), CloseSessionClosed)
	})
	t.Run("4029 audio too fast", func(t *testing.T) {
		s := newTestServer(t)
		c, _ := begin(t, s, "key-a", url.Values{"disable_partial_transcripts": {"true"}})
		chunk := streamtest.Silence(2000, 16000)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		// 31 chunks of 2 s with the clock standing still: 62 s ahead.
		for i := 0; i < 31; i++ {
			if err := c.Write(ctx, websocket.MessageBinary, chunk); err != nil {
				break
			}
		}
		expectClose(t, c, CloseRateLimited)
	})
	t.Run("4030 second connection to a live session", func(t *testing.T) {
		s := newTestServer(t)
		c, id := begin(t, s, "key-a", nil)
		expectClose(t, s.dial("/v2/realtime/ws/"+id, nil, "key-a"), CloseUniqueSession)
		// The first connection still works.
		send(t, c, websocket.MessageText, []byte(`{"terminate_session":true}`))
		expectCloseAfterMessages(t, c)
	})
	t.Run("4031 idle", func(t *testing.T) {
		s := newTestServer(t)
		c, _ := begin(t, s, "key-a", nil)
		s.clock.Advance(61 * time.Second)
		expectClose(t, c, CloseSessionIdle)
	})
	t.Run("4032 too short", func(t *testing.T) {
		s := newTestServer(t)
		c, _ := begin(t, s, "key-a", nil)
		send(t, c, websocket.MessageBinary, streamtest.Tone(50, 16000))
		send(t, c, websocket.MessageBinary, streamtest.Tone(50, 16000))
		expectClose(t, c, CloseAudioTooShort)
	})
	t.Run("4033 too long", func(t *testing.T) {
		s := newTestServer(t)
		c, _ := begin(t, s, "key-a", nil)
		send(t, c, websocket.MessageBinary, streamtest.Tone(2100, 16000))
		expectClose(t, c, CloseAudioTooLong)
	})
	t.Run("4100 invalid JSON", func(t *testing.T) {
		s := newTestServer(t)
		c, _ := begin(t, s, "key-a", nil)
		send(t, c, websocket.MessageText, []byte(`{"terminate_session":`))
		expectClose(t, c, CloseBadJSON)
	})
	t.Run("4101 invalid schema", func(t *testing.T) {
		s := newTestServer(t)
		c, _ := begin(t, s, "key-a", nil)
		send(t, c, websocket.MessageText, []byte(`{"end_utterance_silence_threshold":"fast"}`))
		expectClose(t, c, CloseBadSchema)
	})
	t.Run("4102 too many streams", func(t *testing.T) {
		s := newTestServer(t, func(c *Config) { c.MaxSessionsPerProject = 2 })
		begin(t, s, "key-a", nil)
		c2, id2 := begin(t, s, "key-a2", nil)
		expectClose(t, s.dial("/v2/realtime/ws", nil, "key-a"), CloseTooManyStreams)
		// Other projects are not affected.
		begin(t, s, "key-b", nil)
		// A session waiting for a resume still counts; a terminated one not.
		drop(t, s, c2, id2)
		expectClose(t, s.dial("/v2/realtime/ws", nil, "key-a"), CloseTooManyStreams)
		c3 := s.dial("/v2/realtime/ws/"+id2, nil, "key-a")
		read(t, c3)
		send(t, c3, websocket.MessageText, []byte(`{"terminate_session":true}`))
		expectCloseAfterMessages(t, c3)
		begin(t, s, "key-a", nil)
		if n := s.h.LiveSessions("proj-a"); n != 2 {
			t.Fatalf("live sessions %d", n)
		}
	})
	t.Run("1013 reconnect attempts exhausted", func(t *testing.T) {
		s := newTestServer(t, func(c *Config) { c.MaxResumes = 2 })
		c, id := begin(t, s, "key-a", nil)
		for i := 0; i < 2; i++ {
			drop(t, s, c, id)
			c = s.dial("/v2/realtime/ws/"+id, nil, "key-a")
			read(t, c)
		}
		drop(t, s, c, id)
		expectClose(t, s.dial("/v2/realtime/ws/"+id, nil, "key-a"), CloseTryAgainLater)
		expectClose(t, s.dial("/v2/realtime/ws/"+id, nil, "key-a"), CloseSessionClosed)
	})
	t.Run("1013 no recognizer free", func(t *testing.T) {
		s := newTestServer(t, func(c *Config) { c.StreamWait = 50 * time.Millisecond })
		s.rec.SetBlock(true)
		c := s.dial("/v2/realtime/ws", nil, "key-a")
		if e := expectClose(t, c, CloseTryAgainLater); !strings.Contains(e, "no recognizer free") {
			t.Fatalf("error %q", e)
		}
		if n := s.h.LiveSessions(""); n != 0 {
			t.Fatalf("%d live sessions", n)
		}
	})
	t.Run("1011 recognizer unavailable", func(t *testing.T) {
		var logs *logBuf
		s := newTestServer(t, func(c *Config) { logs = captureLog(c) })
		s.rec.SetNewErr(errors.New("no decoder free"))
		c := s.dial("/v2/realtime/ws", nil, "key-a")
		// The client gets a generic message; the recognizer's words go
		// to the log.
		if e := expectClose(t, c, CloseInternalServerError); e == "" || strings.Contains(e, "no decoder free") {
			t.Fatalf("error %q", e)
		}
		if l := logs.String(); !strings.Contains(l, "no decoder free") {
			t.Fatalf("log:\n%s", l)
		}
	})
}

// expectCloseAfterMessages reads the rest of a terminated session and
// expects SessionTerminated then a normal close.
func expectCloseAfterMessages(t *testing.T, c *websocket.Conn) {
	t.Helper()
	var last string
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			if websocket.CloseStatus(err) != websocket.StatusNormalClosure || last != "SessionTerminated" {
				t.Fatalf("close %v after %q", err, last)
			}
			return
		}
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		last, _ = m["message_type"].(string)
	}
}
