package realtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/coder/websocket"
	"github.com/earshot-dev/earshot/realtime"
	"github.com/earshot-dev/earshot/transcribe"
)

// silentRecognizer hears nothing; it stands in for a real
// transcribe.StreamRecognizer such as adapters/pocketsphinx.
type silentRecognizer struct{}

func (silentRecognizer) Recognize(context.Context, []int16, transcribe.RecognizeOptions) (*transcribe.Recognition, error) {
	return &transcribe.Recognition{}, nil
}
func (silentRecognizer) Features() transcribe.RecognizerFeatures {
	return transcribe.RecognizerFeatures{SampleRate: 16000, Streaming: true}
}
func (silentRecognizer) Close() error { return nil }
func (silentRecognizer) NewStream(context.Context, transcribe.StreamOptions) (transcribe.Stream, error) {
	return silentStream{}, nil
}

type silentStream struct{}

func (silentStream) Write([]int16) error                     { return nil }
func (silentStream) Partial() (transcribe.Hypothesis, error) { return transcribe.Hypothesis{}, nil }
func (silentStream) EndUtterance() (transcribe.Hypothesis, error) {
	return transcribe.Hypothesis{}, nil
}
func (silentStream) Close() error { return nil }

// The session engine without a transport: feed audio and control
// messages, send what comes back.
func ExampleNewSession() {
	s, err := realtime.NewSession(context.Background(), realtime.Config{Recognizer: silentRecognizer{}},
		realtime.SessionOptions{SampleRate: 16000})
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Begins().Type())
	msgs, _ := s.Audio(make([]byte, 3200)) // 100 ms of silence
	fmt.Println(len(msgs), s.State())
	msgs, _ = s.HandleText([]byte(`{"terminate_session":true}` + "\n"))
	for _, m := range msgs {
		b, _ := json.Marshal(m)
		fmt.Println(m.Type(), strings.Contains(string(b), `"audio_duration_seconds":0.1`))
	}
	fmt.Println(s.State())
	// Output:
	// SessionBegins
	// 0 streaming
	// SessionInformation true
	// SessionTerminated false
	// terminated
}

// Mounting the endpoints on a mux. Authenticate maps the raw
// authorization header to a project.
func ExampleNewHandler() {
	h, err := realtime.NewHandler(realtime.Config{
		Recognizer: silentRecognizer{},
		Authenticate: func(r *http.Request) (string, bool) {
			return "project-1", r.Header.Get("Authorization") == "secret-key"
		},
	})
	if err != nil {
		panic(err)
	}
	defer h.Close()
	mux := http.NewServeMux()
	mux.Handle("GET /v2/realtime/ws", h)
	mux.Handle("GET /v2/realtime/ws/{session_id}", h)
	mux.Handle("POST /v2/realtime/token", h.TokenHandler())
	srv := httptest.NewServer(mux)
	defer srv.Close()

	ctx := context.Background()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/v2/realtime/ws",
		&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"secret-key"}}})
	if err != nil {
		panic(err)
	}
	_, b, _ := c.Read(ctx)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	fmt.Println(m["message_type"])
	_ = c.Write(ctx, websocket.MessageText, []byte(`{"terminate_session":true}`))
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			fmt.Println(websocket.CloseStatus(err))
			break
		}
		_ = json.Unmarshal(b, &m)
		fmt.Println(m["message_type"])
	}
	// Output:
	// SessionBegins
	// SessionInformation
	// SessionTerminated
	// StatusNormalClosure
}
