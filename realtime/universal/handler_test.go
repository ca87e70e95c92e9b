package universal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/realtime"
	"github.com/earshot-dev/earshot/realtime/engine"
	"github.com/earshot-dev/earshot/realtime/realtimetest/streamtest"
	"github.com/earshot-dev/earshot/transcribe"
)

// words returns the words of a Turn message.
func words(m msg) []map[string]any {
	ws, _ := m["words"].([]any)
	out := make([]map[string]any, len(ws))
	for i, w := range ws {
		out[i] = w.(map[string]any)
	}
	return out
}

// TestSessionTurns streams two bursts of "speech" (two words, a pause, one
// word) and checks the v3 message sequence: Begin, SpeechStarted, partial
// Turns with word finality, the ended turn and its formatted copy, the
// next turn's order, Termination on Terminate and close 1000.
func TestSessionTurns(t *testing.T) {
	t.Parallel()
	rec := &streamtest.FakeRecognizer{}
	var mu sync.Mutex
	var lat []realtime.TranscriptEvent
	var sess []realtime.SessionEvent
	_, ts := testServer(t, Config{Engine: engineConfig(rec),
		OnTranscript: func(e realtime.TranscriptEvent) { mu.Lock(); lat = append(lat, e); mu.Unlock() },
		OnSession:    func(e realtime.SessionEvent) { mu.Lock(); sess = append(sess, e); mu.Unlock() },
	})
	c := dial(t, ts, "sample_rate=16000&format_turns=true&language_detection=true&min_turn_silence=300&max_turn_silence=600", "key-a")
	begin, _ := c.until("Begin")
	if id, _ := begin["id"].(string); id == "" || begin["expires_at"].(float64) < float64(time.Now().Add(2*time.Hour).Unix()) {
		t.Fatalf("Begin %v", begin)
	}
	audio := streamtest.Cat(streamtest.Silence(200, 16000), streamtest.Tone(200, 16000), streamtest.Silence(100, 16000), streamtest.Tone(200, 16000), streamtest.Silence(1000, 16000), streamtest.Tone(200, 16000), streamtest.Silence(300, 16000))
	for _, ch := range streamtest.Chunks(audio, 100, 16000) {
		c.send(ch)
	}
	c.text(`{"type":"Terminate"}`)
	code, msgs, _ := c.closed()
	if code != 1000 {
		t.Fatalf("close %d after %v", code, msgs)
	}
	var types []string
	var ended []msg
	sawFinalWordInPartial := false
	for _, m := range msgs {
		types = append(types, m.typ())
		if m.typ() != "Turn" {
			continue
		}
		if m["end_of_turn"] == true {
			ended = append(ended, m)
			continue
		}
		for _, w := range words(m) {
			if w["word_is_final"] == true {
				sawFinalWordInPartial = true
			}
		}
	}
	if types[0] != "SpeechStarted" || types[len(types)-1] != "Termination" {
		t.Fatalf("types %v", types)
	}
	if !sawFinalWordInPartial {
		t.Errorf("no partial Turn had a final word: %v", msgs)
	}
	// Turn 0 ("one two") unformatted then formatted; turn 1 ("three") the same.
	if len(ended) != 4 {
		t.Fatalf("ended turns %v", ended)
	}
	wantText := []string{"one two", "One two.", "three", "Three."}
	for i, m := range ended {
		if m["transcript"] != wantText[i] || m["turn_order"].(float64) != float64(i/2) || m["turn_is_formatted"] != (i%2 == 1) {
			t.Errorf("ended turn %d: %v", i, m)
		}
		if c := m["end_of_turn_confidence"].(float64); c <= 0 || c > 1 {
			t.Errorf("end_of_turn_confidence %v", c)
		}
		if m["language_code"] != "en" {
			t.Errorf("language_code %v", m["language_code"])
		}
		for _, w := range words(m) {
			if w["word_is_final"] != true || w["end"].(float64) <= w["start"].(float64) {
				t.Errorf("word %v", w)
			}
		}
	}
	term := msgs[len(msgs)-1]
	if term["audio_duration_seconds"].(float64) != 2.2 || term["session_duration_seconds"] == nil {
		t.Errorf("Termination %v", term)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(sess) != 2 || sess[0].Kind != realtime.SessionBegan || sess[1].Kind != realtime.SessionEnded || sess[1].Audio != 2200*time.Millisecond {
		t.Errorf("session events %+v", sess)
	}
	var partials, finals int
	for _, e := range lat {
		if e.Final {
			finals++
		} else {
			partials++
		}
	}
	// The first turn ended on a pause (reported); the second was flushed
	// by Terminate (not reported).
	if partials == 0 || finals != 1 {
		t.Errorf("latency events %+v", lat)
	}
	if rec.OpenStreams() != 0 {
		t.Errorf("%d streams left open", rec.OpenStreams())
	}
}

func engineConfig(rec transcribe.StreamRecognizer) engine.Config {
	return engine.Config{Recognizer: rec}
}

// TestForceEndpointAndUpdateConfiguration: ForceEndpoint ends the turn at
// once; UpdateConfiguration changes the endpointing and format_turns
// mid-session, and a keyterms change is answered with a Warning.
func TestForceEndpointAndUpdateConfiguration(t *testing.T) {
	t.Parallel()
	rec := &streamtest.FakeRecognizer{}
	_, ts := testServer(t, Config{Engine: engineConfig(rec)})
	c := dial(t, ts, "sample_rate=16000&speech_model=u3-rt-pro", "key-a")
	c.until("Begin")
	w, _ := c.until("Warning")
	if w["warning_code"].(float64) != WarningSpeechModel || !strings.Contains(w["warning"].(string), "u3-rt-pro") {
		t.Fatalf("Warning %v", w)
	}
	for _, ch := range streamtest.Chunks(streamtest.Cat(streamtest.Tone(300, 16000), streamtest.Silence(100, 16000)), 100, 16000) {
		c.send(ch)
	}
	c.text(`{"type":"ForceEndpoint"}`)
	m, _ := c.until("Turn")
	for m["end_of_turn"] != true {
		m, _ = c.until("Turn")
	}
	if m["transcript"] != "one" || m["end_of_turn_confidence"].(float64) != 1 {
		t.Fatalf("forced turn %v", m)
	}
	c.text(`{"type":"UpdateConfiguration","format_turns":true,"max_turn_silence":5000,"min_turn_silence":5000,"keyterms_prompt":["Earshot"]}`)
	w, _ = c.until("Warning")
	if w["warning_code"].(float64) != WarningKeytermsFixed {
		t.Fatalf("Warning %v", w)
	}
	c.text(`{"type":"KeepAlive"}`)
	// A second of silence after a word: with 5 s endpointing the turn stays open.
	for _, ch := range streamtest.Chunks(streamtest.Cat(streamtest.Tone(300, 16000), streamtest.Silence(1000, 16000)), 100, 16000) {
		c.send(ch)
	}
	c.text(`{"type":"Terminate"}`)
	code, msgs, _ := c.closed()
	if code != 1000 {
		t.Fatalf("close %d", code)
	}
	var ended []msg
	for _, m := range msgs {
		if m.typ() == "Turn" && m["end_of_turn"] == true {
			ended = append(ended, m)
		}
	}
	// Only Terminate ended turn 1, formatted too now.
	if len(ended) != 2 || ended[0]["transcript"] != "two" || ended[1]["transcript"] != "Two." || ended[0]["turn_order"].(float64) != 1 {
		t.Fatalf("ended %v", ended)
	}
}

// refused dials and expects an Error message then a close with code.
func refused(t *testing.T, c *client, code int, text string) {
	t.Helper()
	got, msgs, reason := c.closed()
	if got != code || len(msgs) == 0 {
		t.Fatalf("close %d %q after %v, want %d", got, reason, msgs, code)
	}
	e := msgs[len(msgs)-1]
	if e.typ() != "Error" || e["error_code"].(float64) != float64(code) || !strings.Contains(e["error"].(string), text) {
		t.Fatalf("Error message %v, want %d with %q", e, code, text)
	}
	if reason != Reason(code) {
		t.Errorf("close reason %q, want %q", reason, Reason(code))
	}
}

func TestConnectRefusals(t *testing.T) {
	t.Parallel()
	rec := &streamtest.FakeRecognizer{}
	h, ts := testServer(t, Config{Engine: engineConfig(rec), MaxSessionsPerProject: 1,
		ProjectSessions: func(p string) int {
			if p == "b" {
				return 1 // project b holds a v2 session
			}
			return 0
		}})
	tok := func(t *testing.T) string {
		t.Helper()
		s, err := h.NewToken(context.Background(), "a", time.Minute, 0)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	t.Run("no credentials", func(t *testing.T) {
		refused(t, dial(t, ts, "sample_rate=16000", ""), 1008, "Missing Authorization")
	})
	t.Run("bad key", func(t *testing.T) {
		refused(t, dial(t, ts, "sample_rate=16000", "nope"), 1008, "Invalid API key")
	})
	t.Run("malformed token", func(t *testing.T) {
		refused(t, dial(t, ts, "sample_rate=16000&token=abc", ""), 1008, "Invalid temporary token")
	})
	t.Run("unknown token", func(t *testing.T) {
		refused(t, dial(t, ts, "sample_rate=16000&token="+strings.Repeat("ab", 32)+".0", ""), 1008, "Invalid temporary token")
	})
	t.Run("altered token", func(t *testing.T) {
		s := tok(t)
		refused(t, dial(t, ts, "sample_rate=16000&token="+strings.TrimSuffix(s, ".0")+".60", ""), 1008, "Invalid temporary token")
	})
	t.Run("bad query", func(t *testing.T) {
		refused(t, dial(t, ts, "sample_rate=16000&encoding=opus", "key-a"), 3006, "encoding must be pcm_s16le or pcm_mulaw")
	})
	t.Run("bad query with token leaves it unused", func(t *testing.T) {
		s := tok(t)
		refused(t, dial(t, ts, "sample_rate=1&token="+s, ""), 3006, "sample_rate must be")
		c := dial(t, ts, "sample_rate=16000&token="+s, "")
		c.until("Begin")
		c.text(`{"type":"Terminate"}`)
		if code, _, _ := c.closed(); code != 1000 {
			t.Fatalf("close %d", code)
		}
		refused(t, dial(t, ts, "sample_rate=16000&token="+s, ""), 1008, "already used")
	})
	t.Run("too many sessions", func(t *testing.T) {
		refused(t, dial(t, ts, "sample_rate=16000", "key-b"), 3009, "this project holds 1; the limit is 1")
	})
	t.Run("recognizer refuses an option", func(t *testing.T) {
		rec := &streamtest.FakeRecognizer{NewErr: fmt.Errorf("x: %w", &transcribe.ParamError{Field: "word_boost", Reason: "at most 3 terms"})}
		_, ts := testServer(t, Config{Engine: engineConfig(rec)})
		refused(t, dial(t, ts, "sample_rate=16000", "key-a"), 3006, "at most 3 terms")
	})
	t.Run("recognizer fails to open", func(t *testing.T) {
		rec := &streamtest.FakeRecognizer{NewErr: errors.New("secret internal detail")}
		_, ts := testServer(t, Config{Engine: engineConfig(rec)})
		c := dial(t, ts, "sample_rate=16000", "key-a")
		refused(t, c, 3005, "could not start a recognizer stream")
	})
	t.Run("no recognizer free", func(t *testing.T) {
		rec := &streamtest.FakeRecognizer{Block: true}
		_, ts := testServer(t, Config{Engine: engineConfig(rec), StreamWait: 50 * time.Millisecond})
		refused(t, dial(t, ts, "sample_rate=16000", "key-a"), 1013, "no recognizer free")
	})
	t.Run("not admitted", func(t *testing.T) {
		_, ts := testServer(t, Config{Engine: engineConfig(&streamtest.FakeRecognizer{}), Admission: refuseAll{}})
		refused(t, dial(t, ts, "sample_rate=16000", "key-a"), 1013, "at capacity")
	})
	t.Run("expired token", func(t *testing.T) {
		clk := newFakeClock()
		h, ts := testServer(t, Config{Engine: engineConfig(&streamtest.FakeRecognizer{}), Now: clk.Now})
		s, err := h.NewToken(context.Background(), "a", time.Minute, 0)
		if err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Minute)
		refused(t, dial(t, ts, "sample_rate=16000&token="+s, ""), 1008, "temporary token expired")
	})
	t.Run("shutting down", func(t *testing.T) {
		h, ts := testServer(t, Config{Engine: engineConfig(&streamtest.FakeRecognizer{})})
		c := dial(t, ts, "sample_rate=16000", "key-a")
		c.until("Begin")
		go h.Close()
		if code, _, _ := c.closed(); code != 1001 {
			t.Fatalf("open session closed with %d", code)
		}
		refused(t, dial(t, ts, "sample_rate=16000", "key-a"), 1013, "shutting down")
	})
}

type refuseAll struct{}

func (refuseAll) Admit() (realtime.Ticket, error) { return nil, realtime.ErrAtCapacity }

// TestSessionErrors covers every close during a session.
func TestSessionErrors(t *testing.T) {
	t.Parallel()
	open := func(t *testing.T, cfg Config, query string) *client {
		if cfg.Engine.Recognizer == nil {
			cfg.Engine = engineConfig(&streamtest.FakeRecognizer{})
		}
		_, ts := testServer(t, cfg)
		c := dial(t, ts, "sample_rate=16000"+query, "key-a")
		c.until("Begin")
		return c
	}
	for _, tc := range []struct {
		name, text string
		frames     []any // []byte audio or string text
		code       int
	}{
		{"invalid json", "Invalid JSON", []any{`{"type":`}, 3006},
		{"not an object", "Invalid Message", []any{`[]`}, 3006},
		{"unknown type", "Invalid Message Type: Pause", []any{`{"type":"Pause"}`}, 3006},
		{"bad update", "unknown field", []any{`{"type":"UpdateConfiguration","word_boost":[]}`}, 3006},
		{"chunk too long", "Input duration violation: 1100 ms. Expected between 50 and 1000 ms", []any{streamtest.Silence(1100, 16000)}, 3007},
		{"short chunk then more", "Input duration violation: 20 ms", []any{streamtest.Silence(100, 16000), streamtest.Silence(20, 16000), streamtest.Silence(100, 16000)}, 3007},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := open(t, Config{}, "")
			for _, f := range tc.frames {
				switch f := f.(type) {
				case []byte:
					c.send(f)
				case string:
					c.text(f)
				}
			}
			refused(t, c, tc.code, tc.text)
		})
	}
	t.Run("short last chunk is fine", func(t *testing.T) {
		t.Parallel()
		c := open(t, Config{}, "")
		c.send(streamtest.Silence(100, 16000))
		c.send(streamtest.Silence(20, 16000))
		c.text(`{"type":"Terminate"}`)
		term, _ := c.until("Termination")
		if term["audio_duration_seconds"].(float64) != 0.12 {
			t.Fatalf("%v", term)
		}
	})
	t.Run("faster than real time", func(t *testing.T) {
		t.Parallel()
		c := open(t, Config{RateLimitLead: 2 * time.Second}, "")
		for range 30 {
			c.send(streamtest.Silence(100, 16000))
		}
		refused(t, c, 3007, "Audio Transmission Rate Exceeded")
	})
	t.Run("recognizer fails", func(t *testing.T) {
		t.Parallel()
		rec := &streamtest.FakeRecognizer{}
		c := open(t, Config{Engine: engineConfig(rec)}, "")
		rec.SetWriteErr(errors.New("decoder exploded: secret"))
		c.send(streamtest.Silence(100, 16000))
		_, msgs, _ := c.closed()
		e := msgs[len(msgs)-1]
		if e["error_code"].(float64) != 3005 || strings.Contains(e["error"].(string), "secret") {
			t.Fatalf("%v", e)
		}
	})
	t.Run("max session duration", func(t *testing.T) {
		t.Parallel()
		clk := newFakeClock()
		h, ts := testServer(t, Config{Engine: engineConfig(&streamtest.FakeRecognizer{}), Now: clk.Now})
		s, err := h.NewToken(context.Background(), "a", time.Minute, 90*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		c := dial(t, ts, "sample_rate=16000&token="+s, "")
		b, _ := c.until("Begin")
		if int64(b["expires_at"].(float64)) != clk.Now().Add(90*time.Second).Unix() {
			t.Fatalf("expires_at %v", b)
		}
		c.send(streamtest.Tone(300, 16000))
		clk.Advance(91 * time.Second)
		_, msgs, _ := c.closed()
		if e := msgs[len(msgs)-1]; e["error_code"].(float64) != 3008 {
			t.Fatalf("%v", msgs)
		}
		// The open turn was flushed before the close.
		if m := msgs[len(msgs)-2]; m.typ() != "Turn" || m["end_of_turn"] != true || m["transcript"] != "one" {
			t.Fatalf("%v", msgs)
		}
	})
	t.Run("inactivity timeout", func(t *testing.T) {
		t.Parallel()
		clk := newFakeClock()
		c := open(t, Config{Now: clk.Now}, "&inactivity_timeout=5")
		c.send(streamtest.Silence(100, 16000))
		clk.Advance(4 * time.Second)
		c.text(`{"type":"KeepAlive"}`)
		time.Sleep(300 * time.Millisecond)
		clk.Advance(4 * time.Second) // 8 s since audio, 4 since KeepAlive
		time.Sleep(300 * time.Millisecond)
		clk.Advance(2 * time.Second)
		code, msgs, _ := c.closed()
		if code != 1000 || msgs[len(msgs)-1].typ() != "Termination" {
			t.Fatalf("%d %v", code, msgs)
		}
	})
}

// TestTokenEndpoint covers GET /v3/token.
func TestTokenEndpoint(t *testing.T) {
	t.Parallel()
	_, ts := testServer(t, Config{Engine: engineConfig(&streamtest.FakeRecognizer{})})
	get := func(method, query, key string) (int, map[string]string) {
		req, _ := http.NewRequest(method, ts.URL+"/v3/token"+query, nil)
		if key != "" {
			req.Header.Set("Authorization", key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]string
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			t.Fatalf("%s %s: %v", method, query, err)
		}
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Errorf("content type %q", ct)
		}
		return resp.StatusCode, m
	}
	code, m := get("GET", "?expires_in_seconds=60&max_session_duration_seconds=600", "key-a")
	if code != 200 || len(m["token"]) != 68 || !strings.HasSuffix(m["token"], ".600") {
		t.Fatalf("%d %v", code, m)
	}
	for _, c := range []struct {
		method, query, key string
		code               int
		want               string
	}{
		{"POST", "?expires_in_seconds=60", "key-a", 405, "use GET"},
		{"GET", "?expires_in_seconds=60", "", 401, "API token missing/invalid"},
		{"GET", "?expires_in_seconds=60", "nope", 401, "API token missing/invalid"},
		{"GET", "", "key-a", 400, "expires_in_seconds is required"},
		{"GET", "?expires_in_seconds=0", "key-a", 400, "expires_in_seconds must be an integer from 1 to 600"},
		{"GET", "?expires_in_seconds=601", "key-a", 400, "from 1 to 600"},
		{"GET", "?expires_in_seconds=abc", "key-a", 400, "from 1 to 600"},
		{"GET", "?expires_in_seconds=60&max_session_duration_seconds=59", "key-a", 400, "max_session_duration_seconds must be an integer from 60 to 10800"},
		{"GET", "?expires_in_seconds=60&max_session_duration_seconds=10801", "key-a", 400, "from 60 to 10800"},
		{"GET", "?expires_in_seconds=60&expires_in_seconds=61", "key-a", 400, "given 2 times"},
		{"GET", "?expires_in=60", "key-a", 400, `unknown query parameter "expires_in"`},
	} {
		code, m := get(c.method, c.query, c.key)
		if code != c.code || !strings.Contains(m["error"], c.want) {
			t.Errorf("%s %s: %d %v, want %d %q", c.method, c.query, code, m, c.code, c.want)
		}
	}
}

// TestTokenSessionDuration checks the session duration sealed in a token.
func TestTokenSessionDuration(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		tok string
		d   time.Duration
		ok  bool
	}{
		{strings.Repeat("0a", 32) + ".0", 0, true},
		{strings.Repeat("0a", 32) + ".600", 600 * time.Second, true},
		{strings.Repeat("0a", 32), 0, false},            // a v2 token
		{strings.Repeat("0a", 32) + ".060", 0, false},   // not canonical
		{strings.Repeat("0a", 32) + ".10801", 0, false}, // over 3 h
		{strings.Repeat("zz", 32) + ".0", 0, false},
		{"", 0, false},
	} {
		d, ok := tokenSessionDuration(c.tok)
		if d != c.d || ok != c.ok {
			t.Errorf("%q: %v %v", c.tok, d, ok)
		}
	}
}

// TestTurnEndsAtSentenceEnd: with the default end-of-turn probability (the
// punctuation model), a pause after "we need more money for the" does not
// end the turn, though it is longer than min_turn_silence and would end
// it on pause alone; the pause after "new school" does.
func TestTurnEndsAtSentenceEnd(t *testing.T) {
	t.Parallel()
	rec := &streamtest.FakeRecognizer{Names: strings.Fields("we need more money for the new school")}
	_, ts := testServer(t, Config{Engine: engineConfig(rec)})
	c := dial(t, ts, "sample_rate=16000&min_turn_silence=300&max_turn_silence=1200&end_of_turn_confidence_threshold=0.5", "key-a")
	c.until("Begin")
	var audio []byte
	for i := range 8 {
		audio = streamtest.Cat(audio, streamtest.Tone(200, 16000), streamtest.Silence(100, 16000))
		if i == 5 {
			audio = streamtest.Cat(audio, streamtest.Silence(600, 16000)) // after "the"
		}
	}
	audio = streamtest.Cat(audio, streamtest.Silence(700, 16000))
	for _, ch := range streamtest.Chunks(audio, 100, 16000) {
		c.send(ch)
	}
	c.text(`{"type":"Terminate"}`)
	_, msgs, _ := c.closed()
	var ended []msg
	for _, m := range msgs {
		if m.typ() == "Turn" && m["end_of_turn"] == true {
			ended = append(ended, m)
		}
	}
	if len(ended) != 1 || ended[0]["transcript"] != "we need more money for the new school" || ended[0]["end_of_turn_confidence"].(float64) < 0.5 {
		t.Fatalf("ended turns %v", ended)
	}
}

// TestFilterProfanity: filter_profanity masks profane words in every
// Turn (partial, ended, formatted), and UpdateConfiguration turns it off.
func TestFilterProfanity(t *testing.T) {
	t.Parallel()
	rec := &streamtest.FakeRecognizer{Names: strings.Fields("oh crap")}
	_, ts := testServer(t, Config{Engine: engineConfig(rec)})
	c := dial(t, ts, "sample_rate=16000&filter_profanity=true&format_turns=true", "key-a")
	c.until("Begin")
	speak := func() []msg {
		for _, ch := range streamtest.Chunks(streamtest.Cat(streamtest.Tone(200, 16000), streamtest.Silence(100, 16000), streamtest.Tone(200, 16000), streamtest.Silence(100, 16000)), 100, 16000) {
			c.send(ch)
		}
		c.text(`{"type":"ForceEndpoint"}`)
		var turns []msg
		for {
			m, _ := c.until("Turn")
			turns = append(turns, m)
			if m["turn_is_formatted"] == true {
				return turns
			}
		}
	}
	for _, m := range speak() {
		for _, w := range words(m) {
			if strings.Contains(w["text"].(string), "crap") {
				t.Errorf("unmasked word in %v", m)
			}
		}
		if m["end_of_turn"] == true && !strings.Contains(m["transcript"].(string), "c***") {
			t.Errorf("ended turn %v", m)
		}
	}
	c.text(`{"type":"UpdateConfiguration","filter_profanity":false}`)
	turns := speak()
	if last := turns[len(turns)-1]; last["transcript"] != "Oh crap." {
		t.Errorf("after filter_profanity false: %v", last)
	}
}
