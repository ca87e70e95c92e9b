package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// The Universal-Streaming (v3) client of earshot stream: the Go SDK
// (v1.10.0) has only the v2 real-time client, so this one speaks the
// protocol of realtime/universal over github.com/coder/websocket.

// v3Turn is the part of a Turn message the text output reads.
type v3Turn struct {
	TurnOrder       int    `json:"turn_order"`
	EndOfTurn       bool   `json:"end_of_turn"`
	TurnIsFormatted bool   `json:"turn_is_formatted"`
	Transcript      string `json:"transcript"`
	Words           []struct {
		Text string `json:"text"`
	} `json:"words"`
}

// v3Message is a server message: its type and the fields of Begin,
// Termination, Error and Warning.
type v3Message struct {
	Type        string `json:"type"`
	ID          string `json:"id"`
	ErrorCode   int    `json:"error_code"`
	Error       string `json:"error"`
	WarningCode int    `json:"warning_code"`
	Warning     string `json:"warning"`
}

// v3SessionError is the server's Error message and close, or a broken
// connection.
type v3SessionError struct {
	code int    // close code, 0 when the connection broke without one
	text string // the Error message's text, else the close reason
	err  error
}

func (e *v3SessionError) Error() string {
	if e.code != 0 {
		return fmt.Sprintf("the server closed the session: %d %s", e.code, e.text)
	}
	return e.err.Error()
}

func (e *v3SessionError) Unwrap() error { return e.err }

// v3Error describes a failed v3 session: 1008 (a refused key or token)
// exits 3, other closes 1.
func v3Error(what string, err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	var se *v3SessionError
	if errors.As(err, &se) && se.code != 0 {
		code := exitFailed
		if se.code == int(websocket.StatusPolicyViolation) {
			code = exitAuth
		}
		return &cliError{code: code, msg: what + ": " + se.Error(), err: err}
	}
	return fmt.Errorf("%s: %w", what, err)
}

// streamV3 streams samples over /v3/ws with format_turns, in 100 ms
// frames paced by pace, prints the Turns with pr, and ends with Terminate
// and the server's Termination. It returns the session's id.
func (c *cli) streamV3(ctx context.Context, cl *client, samples []int16, o *streamOptions, boost []string, pr *streamPrinter, prog *progress, began func(id string)) (string, error) {
	q := url.Values{}
	q.Set("sample_rate", strconv.Itoa(streamRate))
	q.Set("encoding", "pcm_s16le")
	q.Set("format_turns", "true")
	if len(boost) > 0 {
		b, _ := json.Marshal(boost)
		q.Set("keyterms_prompt", string(b))
	}
	header := http.Header{}
	header.Set("User-Agent", "earshot-cli/"+version())
	if o.token {
		body, err := cl.raw(ctx, http.MethodGet, "/v3/token?expires_in_seconds=60", nil)
		if err != nil {
			return "", fmt.Errorf("creating a temporary token: %w", err)
		}
		var tok struct {
			Token string `json:"token"`
		}
		if err := json.Unmarshal(body, &tok); err != nil || tok.Token == "" {
			return "", failf(exitFailed, "creating a temporary token: the server's answer holds no token: %.200q", body)
		}
		q.Set("token", tok.Token)
	} else {
		header.Set("Authorization", cl.key)
	}

	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	dctx, dcancel := context.WithTimeout(sctx, 30*time.Second)
	conn, _, err := websocket.Dial(dctx, wsURL(cl.base)+"/v3/ws?"+q.Encode(), &websocket.DialOptions{HTTPHeader: header})
	dcancel()
	if err != nil {
		return "", v3Error("starting the session", err)
	}
	defer conn.CloseNow()
	conn.SetReadLimit(16 << 20)

	// The reader: Begin's id, Turns to the printer, Termination, and the
	// session's end (an Error message and close, or a broken connection).
	begin := make(chan string, 1)
	terminated := make(chan struct{})
	sessionErr := make(chan error, 1)
	go func() {
		var last *v3Message // the Error message before the close
		for {
			typ, data, err := conn.Read(sctx)
			if err != nil {
				select {
				case <-terminated:
					return // Termination came: the close after it is the normal end
				default:
				}
				se := &v3SessionError{err: err}
				var ce websocket.CloseError
				if errors.As(err, &ce) {
					se.code, se.text = int(ce.Code), ce.Reason
					if last != nil && last.Error != "" {
						se.text = last.Error
					}
				}
				sessionErr <- se
				return
			}
			if typ != websocket.MessageText {
				continue
			}
			var m v3Message
			if err := json.Unmarshal(data, &m); err != nil {
				continue
			}
			switch m.Type {
			case "Begin":
				begin <- m.ID
			case "Turn":
				var t v3Turn
				if err := json.Unmarshal(data, &t); err == nil {
					pr.turn(t, data)
				}
			case "Termination":
				close(terminated)
			case "Error":
				last = &m
			case "Warning":
				prog.Printf("server warning %d: %s", m.WarningCode, m.Warning)
			}
		}
	}()

	var sessionID string
	wait := time.NewTimer(30 * time.Second)
	defer wait.Stop()
	select {
	case sessionID = <-begin:
	case err := <-sessionErr:
		return "", v3Error("starting the session", err)
	case <-wait.C:
		return "", failf(exitFailed, "starting the session: no Begin from the server within 30 s")
	case <-ctx.Done():
		return "", ctx.Err()
	}
	began(sessionID)

	per := streamRate * int(streamChunk/time.Millisecond) / 1000
	buf := make([]byte, 2*per)
	start := time.Now()
	for i := 0; i*per < len(samples); i++ {
		if err := pace(ctx, start, i, o.speed, sessionErr); err != nil {
			return "", v3Error("streaming", err)
		}
		if err := conn.Write(sctx, websocket.MessageBinary, pcmFrame(buf, samples[i*per:min((i+1)*per, len(samples))])); err != nil {
			return "", v3Error("streaming", firstError(sessionErr, err))
		}
	}

	// Terminate: the server ends the open turn (and sends its formatted
	// copy), then Termination, and closes with 1000.
	if err := conn.Write(sctx, websocket.MessageText, []byte(`{"type":"Terminate"}`)); err != nil {
		return "", v3Error("ending the session", firstError(sessionErr, err))
	}
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	select {
	case <-terminated:
		conn.Close(websocket.StatusNormalClosure, "")
	case err := <-sessionErr:
		return "", v3Error("ending the session", err)
	case <-timeout.C:
		return "", failf(exitFailed, "the server did not end the session within 30 s of the end of the audio")
	case <-ctx.Done():
		return "", ctx.Err()
	}
	return sessionID, nil
}

// firstError prefers the session's own error (the server's Error and
// close) to the write error it caused.
func firstError(sessionErr <-chan error, err error) error {
	select {
	case serr := <-sessionErr:
		return serr
	case <-time.After(time.Second):
		return err
	}
}

// turn prints a v3 Turn: with --format json the message as the server
// sent it; else the formatted copy of an ended turn as a line, and (with
// partials) the words so far of the open turn, and the ended turn until
// its formatted copy comes, in place.
func (p *streamPrinter) turn(t v3Turn, raw []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json {
		p.w.Write(append(safeJSON(raw), '\n'))
		return
	}
	if t.TurnIsFormatted {
		if p.showing {
			fmt.Fprint(p.w, "\r\033[K")
			p.showing = false
		}
		if t.Transcript != "" {
			fmt.Fprintln(p.w, escapeText(t.Transcript, false))
		}
		return
	}
	if !p.partials {
		return
	}
	words := make([]string, len(t.Words))
	for i, w := range t.Words {
		words[i] = w.Text
	}
	if text := strings.Join(words, " "); text != "" {
		fmt.Fprint(p.w, "\r"+p.partialLine(escapeText(text, false))+"\033[K")
		p.showing = true
	}
}
