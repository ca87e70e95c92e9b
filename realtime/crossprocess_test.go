package realtime

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"
	"github.com/coder/websocket"
	"github.com/earshot-dev/earshot/internal/proxytest"
	"github.com/earshot-dev/earshot/realtime/realtimetest/streamtest"
)

// Two Handlers on one StateStore are two processes of one region: these
// tests open, drop, resume and end sessions across them.

// pair returns two test servers ("processes" A and B) sharing a
// StateStore and a clock.
func pair(t *testing.T, state StateStore, tweak ...func(*Config)) (a, b *testServer) {
	t.Helper()
	clock := newFakeClock()
	mk := func(id string, st StateStore) *testServer {
		s := newTestServer(t, append([]func(*Config){func(c *Config) {
			c.State, c.ProcessID, c.Now = st, id, clock.Now
			c.StateInterval = 5 * time.Millisecond
		}}, tweak...)...)
		s.clock = clock
		return s
	}
	return mk("A", state), mk("B", state)
}

// sdkMux serves h's endpoints over loopback HTTP.
func sdkMux(h *Handler) *httptest.Server {
	mux := http.NewServeMux()
	mux.Handle("GET /v2/realtime/ws", h)
	mux.Handle("GET /v2/realtime/ws/{session_id}", h)
	mux.Handle("POST /v2/realtime/token", h.TokenHandler())
	return httptest.NewServer(mux)
}

// moved waits until the session has left s's handler (its stream
// released).
func moved(t *testing.T, s *testServer, id string) {
	t.Helper()
	waitFor(t, func() bool { return s.h.Session(id) == nil && s.rec.OpenStreams() == 0 })
}

func TestCrossProcessResume(t *testing.T) {
	t.Parallel()
	a, b := pair(t, NewMemoryState())
	tok := a.token("key-a", 60)
	c, id := begin(t, a, "", url.Values{"token": {tok}, "disable_partial_transcripts": {"true"}})
	send(t, c, websocket.MessageText, []byte(`{"end_utterance_silence_threshold":300}`))
	// The token is spent on every process.
	expectClose(t, b.dial("/v2/realtime/ws", url.Values{"token": {tok}}, ""), CloseNotAuthorized)
	// A live session cannot be taken from another process.
	expectClose(t, b.dial("/v2/realtime/ws/"+id, nil, "key-a"), CloseUniqueSession)

	for _, ch := range streamtest.Chunks(streamtest.Cat(streamtest.Tone(500, 16000), streamtest.Silence(500, 16000)), 100, 16000) {
		a.clock.Advance(100 * time.Millisecond)
		send(t, c, websocket.MessageBinary, ch)
	}
	if m := read(t, c); m["message_type"] != "FinalTranscript" || m["text"] != "One." {
		t.Fatalf("final on A: %v", m)
	}
	waitFor(t, func() bool { return a.h.Session(id).AudioDuration() >= time.Second })
	drop(t, a, c, id)

	// Another project, and another token, find nothing to resume.
	expectClose(t, b.dial("/v2/realtime/ws/"+id, nil, "key-b"), CloseSessionNotFound)
	expectClose(t, b.dial("/v2/realtime/ws/"+id, url.Values{"token": {b.token("key-a", 60)}}, ""), CloseNotAuthorized)

	a.clock.Advance(5 * time.Second)
	c2 := b.dial("/v2/realtime/ws/"+id, url.Values{"token": {tok}}, "")
	if m := read(t, c2); m["message_type"] != "SessionResumed" || m["session_id"] != id {
		t.Fatalf("resume on B: %v", m)
	}
	moved(t, a, id)
	sb := b.h.Session(id)
	if sb == nil || sb.SilenceThreshold() != 300*time.Millisecond || !sb.Options().DisablePartialTranscripts || sb.AudioDuration() != time.Second {
		t.Fatalf("session on B: %+v", sb)
	}
	for _, ch := range streamtest.Chunks(streamtest.Cat(streamtest.Tone(500, 16000), streamtest.Silence(500, 16000)), 100, 16000) {
		a.clock.Advance(100 * time.Millisecond)
		send(t, c2, websocket.MessageBinary, ch)
	}
	m := read(t, c2)
	// B's fresh stream counts its own words, but times go on from A's.
	if m["message_type"] != "FinalTranscript" || m["text"] != "One." {
		t.Fatalf("final on B: %v", m)
	}
	if start := m["audio_start"].(float64); start < 1000 || start > 1100 {
		t.Fatalf("final on B starts at %v ms, want just after the first second", start)
	}
	send(t, c2, websocket.MessageText, []byte(`{"terminate_session":true}`))
	if m := read(t, c2); m["message_type"] != "SessionInformation" || m["audio_duration_seconds"] != 2.0 {
		t.Fatalf("info %v", m)
	}
	expectCloseAfterMessages(t, c2)
	// Ended on B: a resume anywhere is 4010.
	expectClose(t, a.dial("/v2/realtime/ws/"+id, nil, "key-a"), CloseSessionClosed)
	expectClose(t, b.dial("/v2/realtime/ws/"+id, nil, "key-a"), CloseSessionClosed)
	expectClose(t, a.dial("/v2/realtime/ws/5551a1b8-0000-4000-8000-000000000000", nil, "key-a"), CloseSessionNotFound)
}

func TestCrossProcessCloseCodes(t *testing.T) {
	t.Parallel()
	t.Run("4008 after the grace", func(t *testing.T) {
		t.Parallel()
		a, b := pair(t, NewMemoryState())
		c, id := begin(t, a, "key-a", nil)
		drop(t, a, c, id)
		a.clock.Advance(31 * time.Second)
		expectClose(t, b.dial("/v2/realtime/ws/"+id, nil, "key-a"), CloseSessionExpired)
		expectClose(t, a.dial("/v2/realtime/ws/"+id, nil, "key-a"), CloseSessionExpired)
		if st := a.h.Session(id).State(); st != StateExpired || a.rec.OpenStreams() != 0 {
			t.Fatalf("on A: state %s, %d streams open", st, a.rec.OpenStreams())
		}
	})
	t.Run("4008 past expires_at", func(t *testing.T) {
		t.Parallel()
		a, b := pair(t, NewMemoryState(), func(c *Config) { c.SessionDuration = time.Minute; c.IdleTimeout = time.Hour; c.ResumeGrace = time.Hour })
		c, id := begin(t, a, "key-a", nil)
		drop(t, a, c, id)
		a.clock.Advance(time.Minute)
		expectClose(t, b.dial("/v2/realtime/ws/"+id, nil, "key-a"), CloseSessionExpired)
	})
	t.Run("1013 resumes counted across processes", func(t *testing.T) {
		t.Parallel()
		a, b := pair(t, NewMemoryState(), func(c *Config) { c.MaxResumes = 3 })
		c, id := begin(t, a, "key-a", nil)
		on := a
		for i := 0; i < 3; i++ {
			drop(t, on, c, id)
			if on == a {
				on = b
			} else {
				on = a
			}
			c = on.dial("/v2/realtime/ws/"+id, nil, "key-a")
			if m := read(t, c); m["message_type"] != "SessionResumed" {
				t.Fatalf("resume %d: %v", i, m)
			}
		}
		drop(t, on, c, id)
		expectClose(t, a.dial("/v2/realtime/ws/"+id, nil, "key-a"), CloseTryAgainLater)
		expectClose(t, b.dial("/v2/realtime/ws/"+id, nil, "key-a"), CloseSessionClosed)
	})
	t.Run("graceful shutdown leaves the session resumable", func(t *testing.T) {
		t.Parallel()
		a, b := pair(t, NewMemoryState())
		c, id := begin(t, a, "key-a", nil)
		a.h.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, _, err := c.Read(ctx); websocket.CloseStatus(err) != websocket.StatusGoingAway {
			t.Fatalf("connection on the stopping process: %v", err)
		}
		c2 := b.dial("/v2/realtime/ws/"+id, nil, "key-a")
		if m := read(t, c2); m["message_type"] != "SessionResumed" {
			t.Fatalf("resume on B: %v", m)
		}
	})
}

// cutState is a StateStore whose writes fail while cut: a process cut
// off from the shared store, or dead as far as the store can tell.
type cutState struct {
	StateStore
	cut atomic.Bool
}

var errCut = errors.New("test: store unreachable")

func (c *cutState) UpdateSession(ctx context.Context, r SessionRecord) (SessionRecord, error) {
	if c.cut.Load() {
		return SessionRecord{}, errCut
	}
	return c.StateStore.UpdateSession(ctx, r)
}

// A process that stops renewing its lease (it died, or lost the store)
// loses its attached session to a resume elsewhere once the lease has run
// out; when it finds out, it closes its own connection with 4030.
func TestCrossProcessLeaseTakeover(t *testing.T) {
	t.Parallel()
	shared := NewMemoryState()
	cutA := &cutState{StateStore: shared}
	clock := newFakeClock()
	mk := func(id string, st StateStore) *testServer {
		s := newTestServer(t, func(c *Config) {
			c.State, c.ProcessID, c.Now = st, id, clock.Now
			c.StateInterval, c.SessionLease = 5*time.Millisecond, 10*time.Second
			c.IdleTimeout = time.Hour
		})
		s.clock = clock
		return s
	}
	a, b := mk("A", cutA), mk("B", shared)
	c, id := begin(t, a, "key-a", nil)
	cutA.cut.Store(true)
	clock.Advance(9 * time.Second)
	expectClose(t, b.dial("/v2/realtime/ws/"+id, nil, "key-a"), CloseUniqueSession)
	clock.Advance(2 * time.Second)
	c2 := b.dial("/v2/realtime/ws/"+id, nil, "key-a")
	if m := read(t, c2); m["message_type"] != "SessionResumed" {
		t.Fatalf("resume after the lease: %v", m)
	}
	cutA.cut.Store(false)
	// A learns that B holds the session and lets go of its connection.
	expectClose(t, c, CloseUniqueSession)
	moved(t, a, id)
	if b.h.Session(id) == nil {
		t.Fatal("B lost the session")
	}
}

// TestGoSDKResumeAcrossProcesses runs the official Go SDK against two
// Handlers on one StateStore with real speech: a session started with a
// temporary token on A loses its connection and resumes on B, where the
// recognition goes on and times continue from A's audio.
func TestGoSDKResumeAcrossProcesses(t *testing.T) {
	const text1 = "the quick brown fox jumps over the lazy dog"
	const text2 = "hello world this is a test of the transcription service"
	pcm1, pcm2 := speechClip(t, "slt", text1), speechClip(t, "rms", text2)
	rec, _ := speechRecognizer(t)
	state := NewMemoryState()
	serve := func(id string) (*Handler, *httptest.Server) {
		h, err := NewHandler(Config{Recognizer: rec, Authenticate: authKeys, State: state, ProcessID: id, SessionLease: 3 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		ts := sdkMux(h)
		t.Cleanup(func() { ts.Close(); h.Close() })
		return h, ts
	}
	hA, tsA := serve("A")
	hB, tsB := serve("B")
	proxyA := proxytest.New(t, tsA.Listener.Addr().String())
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tok, err := aai.NewClientWithOptions(aai.WithAPIKey("key-a"), aai.WithBaseURL(tsA.URL)).RealTime.CreateTemporaryToken(ctx, 60)
	if err != nil {
		t.Fatal(err)
	}
	wsA := "ws://" + proxyA.Addr() + "/v2/realtime/ws"
	wsB := "ws" + strings.TrimPrefix(tsB.URL, "http") + "/v2/realtime/ws"

	ev1 := &sdkEvents{}
	rt1 := aai.NewRealTimeClientWithOptions(aai.WithRealTimeBaseURL(wsA), aai.WithRealTimeAuthToken(*tok.Token),
		aai.WithRealTimeTranscriber(ev1.transcriber(false, false)))
	if err := rt1.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	id := ev1.begins[0].SessionID
	if err := streamRealTime(ctx, rt1.Send, pcm1); err != nil {
		t.Fatal(err)
	}
	if err := rt1.ForceEndUtterance(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { ev1.mu.Lock(); defer ev1.mu.Unlock(); return len(ev1.finals) > 0 })
	// A's connections break (its network, its load balancer).
	proxyA.BreakAll()
	waitFor(t, func() bool {
		hA.mu.Lock()
		defer hA.mu.Unlock()
		return hA.sessions[id] != nil && !hA.sessions[id].attached
	})

	ev2 := &sdkEvents{}
	rt2 := aai.NewRealTimeClientWithOptions(aai.WithRealTimeBaseURL(wsB+"/"+id), aai.WithRealTimeAuthToken(*tok.Token),
		aai.WithRealTimeTranscriber(ev2.transcriber(true, true)))
	if err := rt2.Connect(ctx); err != nil {
		t.Fatalf("resume on B: %v", err)
	}
	if ev2.begins[0].SessionID != id || ev2.begins[0].ExpiresAt != ev1.begins[0].ExpiresAt {
		t.Fatalf("SessionResumed %+v after SessionBegins %+v", ev2.begins[0], ev1.begins[0])
	}
	waitFor(t, func() bool { return hA.Session(id) == nil })
	if err := streamRealTime(ctx, rt2.Send, pcm2); err != nil {
		t.Fatal(err)
	}
	if err := rt2.ForceEndUtterance(ctx); err != nil {
		t.Fatal(err)
	}
	if err := rt2.Disconnect(ctx, true); err != nil {
		t.Fatal(err)
	}
	ev1.mu.Lock()
	defer ev1.mu.Unlock()
	ev2.mu.Lock()
	defer ev2.mu.Unlock()
	join := func(fs []aai.FinalTranscript) string {
		var ts []string
		for _, f := range fs {
			ts = append(ts, f.Text)
		}
		return strings.Join(ts, " ")
	}
	got1, got2 := join(ev1.finals), join(ev2.finals)
	t.Logf("on A: %q; on B: %q", got1, got2)
	if ov := streamtest.WordOverlap(text1, got1); ov < 0.7 {
		t.Errorf("A recognized %q (%.0f%% of %q)", got1, ov*100, text1)
	}
	if ov := streamtest.WordOverlap(text2, got2); ov < 0.7 {
		t.Errorf("B recognized %q (%.0f%% of %q)", got2, ov*100, text2)
	}
	len1 := int64(len(pcm1) / 32) // ms of audio sent to A
	if len(ev2.finals) == 0 || ev2.finals[0].AudioStart < len1 {
		t.Errorf("B's first final starts at %v ms; A had %d ms", ev2.finals, len1)
	}
	total := float64(len(pcm1)+len(pcm2)) / 32000
	if len(ev2.info) != 1 || ev2.info[0].AudioDurationSeconds < total-0.2 || ev2.info[0].AudioDurationSeconds > total+0.01 {
		t.Errorf("SessionInformation %+v, want about %.2f s", ev2.info, total)
	}
	if ev2.terminated != 1 || hB.Session(id).State() != StateTerminated {
		t.Errorf("terminated %d, state %s", ev2.terminated, hB.Session(id).State())
	}
}
