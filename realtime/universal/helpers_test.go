package universal

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/earshot-dev/earshot/transcribe"
)

// fakeRecognizer is a StreamRecognizer for tests: every burst of energy
// (at least 50 ms above RMS 1000, ended by 30 ms below) is a word named by
// its position in the stream: "one", "two", ...
type fakeRecognizer struct {
	mu       sync.Mutex
	open     int
	newErr   error
	writeErr error
	block    bool     // NewStream waits for ctx, like a pool with no free decoder
	names    []string // the words' names in order; default one, two, ...
}

var numberWords = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}

func (f *fakeRecognizer) Recognize(context.Context, []int16, transcribe.RecognizeOptions) (*transcribe.Recognition, error) {
	return nil, errors.New("fake: batch recognition not supported")
}

func (f *fakeRecognizer) Features() transcribe.RecognizerFeatures {
	return transcribe.RecognizerFeatures{SampleRate: 16000, WordTimestamps: true, Streaming: true, Languages: []string{"en"}}
}

func (f *fakeRecognizer) Close() error { return nil }

func (f *fakeRecognizer) NewStream(ctx context.Context, opts transcribe.StreamOptions) (transcribe.Stream, error) {
	f.mu.Lock()
	block, err := f.block, f.newErr
	f.mu.Unlock()
	if block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.open++
	f.mu.Unlock()
	return &fakeStream{rec: f, rate: opts.SampleRate}, nil
}

func (f *fakeRecognizer) openStreams() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.open
}

type fakeStream struct {
	rec         *fakeRecognizer
	rate        int
	mu          sync.Mutex
	pos         int64
	buf         []int16
	count       int
	words       []transcribe.Word
	loud, quiet int
	start       int64
	closed      bool
}

func (s *fakeStream) Write(x []int16) error {
	s.rec.mu.Lock()
	werr := s.rec.writeErr
	s.rec.mu.Unlock()
	if werr != nil {
		return werr
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	frame := s.rate / 100
	s.buf = append(s.buf, x...)
	for len(s.buf) >= frame {
		var e float64
		for _, v := range s.buf[:frame] {
			e += float64(v) * float64(v)
		}
		s.buf = s.buf[frame:]
		ms := s.pos * 1000 / int64(s.rate)
		s.pos += int64(frame)
		if math.Sqrt(e/float64(frame)) > 1000 {
			if s.loud == 0 {
				s.start = ms
			}
			s.loud++
			s.quiet = 0
			continue
		}
		s.quiet++
		if s.loud >= 5 && s.quiet == 3 {
			s.emit(ms - 20)
		}
		if s.quiet >= 3 {
			s.loud = 0
		}
	}
	return nil
}

func (s *fakeStream) emit(end int64) {
	s.count++
	name := "many"
	if s.count < len(numberWords) {
		name = numberWords[s.count]
	}
	if n := s.rec.names; len(n) > 0 {
		name = n[(s.count-1)%len(n)]
	}
	s.words = append(s.words, transcribe.Word{Text: name, Start: s.start, End: end, Confidence: 0.9})
	s.loud = 0
}

func (s *fakeStream) Partial() (transcribe.Hypothesis, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return transcribe.Hypothesis{Words: append([]transcribe.Word(nil), s.words...)}, nil
}

func (s *fakeStream) EndUtterance() (transcribe.Hypothesis, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loud >= 5 {
		s.emit(s.pos * 1000 / int64(s.rate))
	}
	s.loud, s.quiet = 0, 0
	h := transcribe.Hypothesis{Words: s.words}
	s.words = nil
	return h, nil
}

func (s *fakeStream) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("fake: double close")
	}
	s.closed = true
	s.rec.mu.Lock()
	s.rec.open--
	s.rec.mu.Unlock()
	return nil
}

// fakeClock is an injectable clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Date(2026, 11, 4, 14, 14, 36, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// toneAt returns ms of a 440 Hz tone at rate as little-endian PCM.
func tone(ms, rate int) []byte {
	n := ms * rate / 1000
	b := make([]byte, 2*n)
	for i := range n {
		v := int16(8000 * math.Sin(2*math.Pi*440*float64(i)/float64(rate)))
		binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
	}
	return b
}

func silence(ms, rate int) []byte { return make([]byte, 2*(ms*rate/1000)) }

func chunks(b []byte, ms, rate int) [][]byte {
	size := 2 * ms * rate / 1000
	var out [][]byte
	for len(b) > 0 {
		n := min(size, len(b))
		out = append(out, b[:n])
		b = b[n:]
	}
	return out
}

func cat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// authKeys accepts "key-a" (project a) and "key-b" (project b).
func authKeys(r *http.Request) (string, bool) {
	switch headerKey(r) {
	case "key-a":
		return "a", true
	case "key-b":
		return "b", true
	}
	return "", false
}

// testServer serves /v3/ws and /v3/token over h.
func testServer(t *testing.T, cfg Config) (*Handler, *httptest.Server) {
	t.Helper()
	if cfg.Authenticate == nil {
		cfg.Authenticate = authKeys
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	h, err := NewHandler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/v3/ws", h)
	mux.Handle("/v3/token", h.TokenHandler())
	ts := httptest.NewServer(mux)
	t.Cleanup(func() {
		ts.Close()
		h.Close()
	})
	return h, ts
}

// client is a raw WebSocket client of /v3/ws.
type client struct {
	t *testing.T
	c *websocket.Conn
}

func dial(t *testing.T, ts *httptest.Server, query, key string) *client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h := http.Header{}
	if key != "" {
		h.Set("Authorization", key)
	}
	u := "ws" + strings.TrimPrefix(ts.URL, "http") + "/v3/ws?" + query
	c, _, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		t.Fatalf("dial %s: %v", u, err)
	}
	c.SetReadLimit(1 << 20)
	t.Cleanup(func() { c.CloseNow() })
	return &client{t: t, c: c}
}

// msg is any server message.
type msg map[string]any

func (m msg) typ() string { s, _ := m["type"].(string); return s }

// read returns the next message, or nil and the close error.
func (c *client) read() (msg, error) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, b, err := c.c.Read(ctx)
	if err != nil {
		return nil, err
	}
	var m msg
	if err := json.Unmarshal(b, &m); err != nil {
		c.t.Fatalf("server sent %q: %v", b, err)
	}
	return m, nil
}

// until reads messages until one of type typ, failing on a close.
func (c *client) until(typ string) (msg, []msg) {
	c.t.Helper()
	var seen []msg
	for {
		m, err := c.read()
		if err != nil {
			c.t.Fatalf("waiting for %s: %v (after %v)", typ, err, seen)
		}
		seen = append(seen, m)
		if m.typ() == typ {
			return m, seen
		}
	}
}

// closed reads until the close and returns its code, the messages before
// it and the close reason.
func (c *client) closed() (int, []msg, string) {
	c.t.Helper()
	var seen []msg
	for {
		m, err := c.read()
		if err != nil {
			var ce websocket.CloseError
			if !errors.As(err, &ce) {
				c.t.Fatalf("read: %v (after %v)", err, seen)
			}
			return int(ce.Code), seen, ce.Reason
		}
		seen = append(seen, m)
	}
}

func (c *client) send(b []byte) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.c.Write(ctx, websocket.MessageBinary, b); err != nil {
		c.t.Fatalf("write audio: %v", err)
	}
}

func (c *client) text(s string) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.c.Write(ctx, websocket.MessageText, []byte(s)); err != nil {
		c.t.Fatalf("write text: %v", err)
	}
}
