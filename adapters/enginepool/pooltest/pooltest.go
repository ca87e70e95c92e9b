// Package pooltest holds fake whisper.cpp servers for the tests and
// benchmarks of engine pools (adapters/enginepool): HTTP servers on
// loopback that, like whisper-server, transcribe one request at a time (a
// global mutex) and answer GET /health, taking a fixed time per request
// and, if asked, a time per second of audio, and that count how many requests they hold at once. A server can be
// killed (its listener and connections closed, requests in flight broken
// off), restarted on the same address, or made to answer 503 as while it
// loads its model.
//
// The answers are whisper.cpp's verbose_json (examples/server/server.cpp:
// task, language, duration, text, segments with words and probabilities),
// with one word "word" per two seconds of the uploaded WAV's audio.
package pooltest

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Server is a fake whisper-server.
type Server struct {
	// URL is the server's root, as whispercpp.Config.URL takes it.
	URL string
	// Delay is how long each transcription takes, under the server's
	// mutex, plus PerSecond for each second of the uploaded WAV's audio
	// (a real engine's time grows with the audio). Set them before the
	// first request.
	Delay     time.Duration
	PerSecond time.Duration

	addr    string
	mu      sync.Mutex // whisper-server's: one transcription at a time
	srvMu   sync.Mutex
	srv     *httptest.Server
	loading atomic.Bool

	inFlight    atomic.Int64
	maxInFlight atomic.Int64
	requests    atomic.Int64
	answered    atomic.Int64
	health      atomic.Int64
}

// New starts a server taking delay per request; it is closed when the
// test ends.
func New(t testing.TB, delay time.Duration) *Server {
	s := &Server{Delay: delay}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	s.URL = "http://" + s.addr
	s.serve(ln)
	t.Cleanup(s.Kill)
	return s
}

func (s *Server) serve(ln net.Listener) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(s.handle))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	s.srvMu.Lock()
	s.srv = srv
	s.srvMu.Unlock()
}

// Kill closes the server: new connections are refused and requests in
// flight break off.
func (s *Server) Kill() {
	s.srvMu.Lock()
	srv := s.srv
	s.srv = nil
	s.srvMu.Unlock()
	if srv != nil {
		srv.CloseClientConnections()
		srv.Close()
	}
}

// Restart serves again on the same address after Kill.
func (s *Server) Restart(t testing.TB) {
	var ln net.Listener
	var err error
	for range 50 {
		if ln, err = net.Listen("tcp", s.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	s.serve(ln)
}

// SetLoading makes the server answer 503 {"status":"loading model"} to
// every request (true), as whisper-server does while it loads its model,
// or serve again (false).
func (s *Server) SetLoading(on bool) { s.loading.Store(on) }

// Requests returns how many transcription requests reached the server.
func (s *Server) Requests() int { return int(s.requests.Load()) }

// Answered returns how many transcriptions the server answered with 200.
func (s *Server) Answered() int { return int(s.answered.Load()) }

// HealthChecks returns how many GET /health requests reached the server.
func (s *Server) HealthChecks() int { return int(s.health.Load()) }

// MaxInFlight returns the most transcription requests the server held at
// once (waiting for its mutex included).
func (s *Server) MaxInFlight() int { return int(s.maxInFlight.Load()) }

// InFlight returns the transcription requests the server holds now.
func (s *Server) InFlight() int { return int(s.inFlight.Load()) }

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Server", "whisper.cpp")
	if r.Method == http.MethodGet && r.URL.Path == "/health" {
		s.health.Add(1)
		if s.loading.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"status":"loading model"}`)
			return
		}
		io.WriteString(w, `{"status":"ok"}`)
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/inference" {
		http.NotFound(w, r)
		return
	}
	s.requests.Add(1)
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		m := s.maxInFlight.Load()
		if n <= m || s.maxInFlight.CompareAndSwap(m, n) {
			break
		}
	}
	if s.loading.Load() {
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"error":"Server is loading model"}`)
		return
	}
	f, _, err := r.FormFile("file")
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":"no 'file' field in the request"}`)
		return
	}
	secs := wavSeconds(f)
	f.Close()
	s.mu.Lock()
	t := time.NewTimer(s.Delay + time.Duration(secs*float64(s.PerSecond)))
	select {
	case <-t.C:
	case <-r.Context().Done():
		t.Stop()
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(answer(secs))
	s.answered.Add(1)
}

// wavSeconds reads the length of a 16-bit PCM WAV from its header (the
// data chunk's size), 1 s for anything else.
func wavSeconds(r io.Reader) float64 {
	head := make([]byte, 4096)
	n, _ := io.ReadFull(r, head)
	head = head[:n]
	if n < 44 || string(head[:4]) != "RIFF" || string(head[8:12]) != "WAVE" {
		return 1
	}
	rate, channels := 16000.0, 1.0
	for p := 12; p+8 <= len(head); {
		id, size := string(head[p:p+4]), int(binary.LittleEndian.Uint32(head[p+4:p+8]))
		switch {
		case id == "fmt " && p+24 <= len(head):
			channels = float64(binary.LittleEndian.Uint16(head[p+10:]))
			rate = float64(binary.LittleEndian.Uint32(head[p+12:]))
		case id == "data":
			return float64(size) / (2 * rate * channels)
		}
		p += 8 + size + size%2
	}
	return 1
}

type word struct {
	Word        string  `json:"word"`
	Start       float64 `json:"start"`
	End         float64 `json:"end"`
	TDTW        int     `json:"t_dtw"`
	Probability float64 `json:"probability"`
}

type segment struct {
	ID     int     `json:"id"`
	Text   string  `json:"text"`
	Start  float64 `json:"start"`
	End    float64 `json:"end"`
	Tokens []int   `json:"tokens"`
	Words  []word  `json:"words"`
}

// answer is whisper-server's verbose_json for secs of audio: one word per
// two seconds.
func answer(secs float64) any {
	var ws []word
	var text []string
	var tokens []int
	for at := 0.0; at+1 <= secs || len(ws) == 0; at += 2 {
		ws = append(ws, word{Word: " word", Start: at, End: min(at+1, max(secs, 0.5)), TDTW: -1, Probability: 0.9})
		text = append(text, "word")
		tokens = append(tokens, 1754)
	}
	t := " " + strings.Join(text, " ")
	return map[string]any{
		"task": "transcribe", "language": "english", "duration": secs, "text": t + "\n",
		"segments": []segment{{ID: 0, Text: t, Start: 0, End: secs, Tokens: tokens, Words: ws}},
	}
}

// String names the server in test failures.
func (s *Server) String() string { return fmt.Sprintf("server %s", s.addr) }
