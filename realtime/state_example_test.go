package realtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/earshot-dev/earshot/realtime"
)

// Two Handlers on one StateStore serve as one: here two in one process
// share a MemoryState; processes on several machines share
// storage/postgres's Store.Realtime() the same way. A session begun on
// A, whose connection drops, resumes on B.
func ExampleStateStore() {
	state := realtime.NewMemoryState()
	serve := func(id string) (*realtime.Handler, *httptest.Server) {
		h, err := realtime.NewHandler(realtime.Config{
			Recognizer: silentRecognizer{},
			Authenticate: func(r *http.Request) (string, bool) {
				return "project-1", r.Header.Get("Authorization") == "secret-key"
			},
			State: state, ProcessID: id,
		})
		if err != nil {
			panic(err)
		}
		mux := http.NewServeMux()
		mux.Handle("GET /v2/realtime/ws", h)
		mux.Handle("GET /v2/realtime/ws/{session_id}", h)
		return h, httptest.NewServer(mux)
	}
	a, srvA := serve("process-a")
	defer func() { srvA.Close(); a.Close() }()
	b, srvB := serve("process-b")
	defer func() { srvB.Close(); b.Close() }()

	ctx := context.Background()
	dial := func(srv *httptest.Server, path string) (*websocket.Conn, map[string]any) {
		c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+path,
			&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"secret-key"}}})
		if err != nil {
			panic(err)
		}
		_, msg, _ := c.Read(ctx)
		var m map[string]any
		_ = json.Unmarshal(msg, &m)
		return c, m
	}
	c, m := dial(srvA, "/v2/realtime/ws")
	id := m["session_id"].(string)
	fmt.Println("on A:", m["message_type"])
	c.CloseNow() // the connection drops without terminate_session
	for {
		if rec, _ := state.GetSession(ctx, id); !rec.Attached {
			break // A has recorded the drop
		}
		time.Sleep(time.Millisecond)
	}
	c2, m := dial(srvB, "/v2/realtime/ws/"+id)
	defer c2.CloseNow()
	fmt.Println("on B:", m["message_type"], m["session_id"] == id)
	rec, _ := state.GetSession(ctx, id)
	fmt.Println("held by", rec.Owner, "after", rec.Resumes, "resume")
	// Output:
	// on A: SessionBegins
	// on B: SessionResumed true
	// held by process-b after 1 resume
}
