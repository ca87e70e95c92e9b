package server

import (
	"log/slog"

	"github.com/earshot-dev/earshot/httpapi"
	"github.com/earshot-dev/earshot/realtime"
	"github.com/earshot-dev/earshot/realtime/engine"
	"github.com/earshot-dev/earshot/realtime/universal"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/textfmt"
)

// streaming is the realtime API: v2 (POST /v2/realtime/token,
// /v2/realtime/ws) and Universal-Streaming v3 (GET /v3/token, /v3/ws).
type streaming struct {
	v2 *realtime.Handler
	v3 *universal.Handler
}

// buildRealtime returns the v2 and v3 realtime handlers on the same
// streaming pool (stream), admission, Guard, session state (state: the
// database's with PostgreSQL, so that a session resumes on any process;
// nil: the v2 Handler's memory) and hooks, their words formatted by text.
// Sessions are admitted while the measured load leaves the cores room to
// keep them at real time (1013 beyond), never more than the streaming
// pool holds (streamSessions); one project holds at most
// EARSHOT_REALTIME_SESSIONS of them and realtimeShare of the capacity.
func buildRealtime(cfg *Config, acc *access, stream transcribe.StreamRecognizer, text textfmt.Options, state realtime.StateStore,
	worker string, ops *ops, log *slog.Logger) (*streaming, error) {
	adm, err := realtime.NewLoadAdmission(realtime.LoadAdmissionConfig{MaxSessions: streamSessions(cfg)})
	if err != nil {
		return nil, err
	}
	format := func(ws []transcribe.Word) []transcribe.Word { return text.Format(ws, nil) }
	v2, err := realtime.NewHandler(realtime.Config{
		Recognizer:            stream,
		Admission:             adm,
		Authenticate:          httpapi.AuthFunc(acc.auth),
		Format:                format,
		MaxSessionsPerProject: cfg.RealtimeLimit,
		ProjectShare:          realtimeShare(cfg, acc.auth),
		Guard:                 acc.guard,
		State:                 state,
		ProcessID:             worker,
		OnSession:             ops.sessionHook(),
		OnTranscript:          ops.transcriptHook(),
		Logger:                log,
	})
	if err != nil {
		return nil, err
	}
	v3, err := universal.NewHandler(universal.Config{
		Engine:                engine.Config{Recognizer: stream, Format: format},
		Authenticate:          httpapi.AuthFunc(acc.auth),
		State:                 state,
		Admission:             adm,
		Guard:                 acc.guard,
		MaxSessionsPerProject: cfg.RealtimeLimit,
		ProjectSessions:       v2.LiveSessions,
		ProcessID:             worker,
		OnSession:             ops.sessionHook(),
		OnTranscript:          ops.transcriptHook(),
		Logger:                log,
	})
	if err != nil {
		_ = v2.Close()
		return nil, err
	}
	return &streaming{v2: v2, v3: v3}, nil
}

// close ends the sessions of both protocols (v2's resumable elsewhere
// within their grace) and stops their housekeeping.
func (s *streaming) close() {
	_ = s.v3.Close()
	_ = s.v2.Close()
}

// realtimeShare is EARSHOT_REALTIME_PROJECT_SHARE, or by default half of
// the streaming capacity per project when the keys name several projects
// (none can starve the others), all of it with one.
func realtimeShare(cfg *Config, keys map[string]string) float64 {
	if cfg.RealtimeShare > 0 {
		return min(cfg.RealtimeShare, 1)
	}
	projects := map[string]bool{}
	for _, p := range keys {
		projects[p] = true
	}
	if len(projects) > 1 {
		return 0.5
	}
	return 1
}
