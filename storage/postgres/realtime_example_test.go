package postgres_test

import (
	"context"
	"log"
	"net/http"
	"os"

	"github.com/earshot-dev/earshot/realtime"
	"github.com/earshot-dev/earshot/storage/postgres"
	"github.com/earshot-dev/earshot/transcribe"
)

// Given elsewhere in a real program: the streaming recognizer and the
// API-key check.
var (
	streamRecognizer transcribe.StreamRecognizer
	authenticate     func(*http.Request) (string, bool)
)

// The realtime Handlers of every process share tokens and sessions
// through the store: a token minted on one process opens a session on
// another, and a session whose connection drops resumes on any of them.
// Each process names itself (leases show which process holds a session).
// (Compiled, not run; TestRealtimeConformance makes these calls against a
// real PostgreSQL.)
func ExampleStore_Realtime() {
	store, err := postgres.Open(context.Background(), postgres.Config{URL: os.Getenv("DATABASE_URL")})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	host, _ := os.Hostname()
	h, err := realtime.NewHandler(realtime.Config{
		Recognizer:   streamRecognizer,
		Authenticate: authenticate,
		State:        store.Realtime(),
		ProcessID:    host + "-1",
	})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()
	http.Handle("/v2/realtime/ws", h)
	http.Handle("/v2/realtime/ws/{session_id}", h)
	http.Handle("/v2/realtime/token", h.TokenHandler())
}
