package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/earshot-dev/earshot/internal/testaudio"
)

// sharedStreams serialises the tests that stream on the shared test
// server: its load admission (the production default) admits one session
// whenever none is live, but on a machine busy with the rest of the suite
// its capacity can be one, and a second test's session is then refused
// with 1013, as a client would be (seen in CI).
var sharedStreams sync.Mutex

func oneStreamAtATime(t *testing.T) {
	sharedStreams.Lock()
	t.Cleanup(sharedStreams.Unlock)
}

// TestStream streams speech through Universal-Streaming (/v3/ws, the
// default): JSON lines are the server's Turn messages (open turns with
// words, the ended turn with every word final, its formatted copy); text
// shows the formatted turns as lines, with the words in progress rewritten
// in place; a temporary token from GET /v3/token opens the session too.
func TestStream(t *testing.T) {
	t.Parallel()
	oneStreamAtATime(t)
	wav := testaudio.Speech(t, "slt", foxText)
	tt := remote(t)
	r := tt.mustRun("stream", wav, "--speed", "2", "--format", "json")
	var open, ended int
	var formatted []string
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var m struct {
			Type            string  `json:"type"`
			TurnOrder       *int    `json:"turn_order"`
			EndOfTurn       bool    `json:"end_of_turn"`
			TurnIsFormatted bool    `json:"turn_is_formatted"`
			Transcript      string  `json:"transcript"`
			Confidence      float64 `json:"end_of_turn_confidence"`
			Words           []struct {
				Text        string
				Start, End  int64
				WordIsFinal bool `json:"word_is_final"`
			} `json:"words"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if m.Type != "Turn" || m.TurnOrder == nil {
			t.Errorf("unexpected message %s", line)
			continue
		}
		switch {
		case !m.EndOfTurn:
			open++
		case !m.TurnIsFormatted:
			ended++
			for _, w := range m.Words {
				if !w.WordIsFinal {
					t.Errorf("ended turn has a word not final: %s", line)
				}
			}
		default:
			formatted = append(formatted, m.Transcript)
			if len(m.Words) == 0 || m.Words[len(m.Words)-1].End <= m.Words[0].Start {
				t.Errorf("formatted turn %q has words %v", m.Transcript, m.Words)
			}
		}
	}
	if open == 0 || ended == 0 || len(formatted) != ended {
		t.Errorf("%d open turns, %d ended, %d formatted in %s", open, ended, len(formatted), r.stdout)
	}
	wantWords(t, foxText, strings.Join(formatted, " "))
	if !regexp.MustCompile(`earshot: streamed \d+\.\d s of audio in \d+\.\ds\n$`).MatchString(r.stderr) {
		t.Errorf("stderr %q", r.stderr)
	}

	// Text with partials in place, authenticated by a temporary token.
	r = tt.mustRun("stream", wav, "--speed", "2", "--partials", "--token", "--word-boost", "fox,lazy dog")
	if !strings.Contains(r.stdout, "\r") || !strings.Contains(r.stdout, "\033[K") {
		t.Errorf("no partials rewritten in place: %q", r.stdout)
	}
	shown := shownLines(r.stdout)
	wantWords(t, foxText, strings.Join(shown, " "))
	for _, s := range shown {
		if s != "" && (!strings.HasSuffix(s, ".") || strings.ToUpper(s[:1]) != s[:1]) {
			t.Errorf("line %q shown at the end is not a formatted turn", s)
		}
	}

	// Without --partials off a terminal: formatted turns only.
	r = tt.mustRun("stream", wav, "--speed", "4", "-q")
	if strings.Contains(r.stdout, "\r") || r.stderr != "" {
		t.Errorf("stream -q off a terminal: stdout %q, stderr %q", r.stdout, r.stderr)
	}
	wantWords(t, foxText, r.stdout)
	if !strings.HasSuffix(strings.TrimSpace(r.stdout), ".") {
		t.Errorf("stream -q printed %q, want the formatted turn", r.stdout)
	}

	// The server's Error message and close come out as one line with the
	// close code and the Error's text: a key term over 50 characters.
	wantError(t, tt.run("stream", wav, "--word-boost", strings.Repeat("x", 51)), exitFailed,
		"starting the session: the server closed the session: 3006", "keyterms_prompt")
}

// shownLines is what a terminal shows of output with partials rewritten in
// place: the text after the last carriage return of each line.
func shownLines(out string) []string {
	var shown []string
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		shown = append(shown, strings.TrimSuffix(line[strings.LastIndex(line, "\r")+1:], "\033[K"))
	}
	return shown
}

// TestStreamV2 streams through the v2 real-time API (/v2/realtime/ws) with
// the SDK's realtime client, as --protocol v2 asks: JSON lines with
// partials and a final, and text with partials rewritten in place.
func TestStreamV2(t *testing.T) {
	t.Parallel()
	oneStreamAtATime(t)
	wav := testaudio.Speech(t, "slt", foxText)
	tt := remote(t)
	r := tt.mustRun("stream", wav, "--protocol", "v2", "--speed", "2", "--format", "json")
	var partials, finals []string
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var m struct {
			MessageType string `json:"message_type"`
			Text        string `json:"text"`
			Words       []struct {
				Text       string
				Start, End int64
			} `json:"words"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		switch m.MessageType {
		case "PartialTranscript":
			partials = append(partials, m.Text)
		case "FinalTranscript":
			finals = append(finals, m.Text)
			if len(m.Words) == 0 || m.Words[len(m.Words)-1].End <= m.Words[0].Start {
				t.Errorf("final %q has words %v", m.Text, m.Words)
			}
		default:
			t.Errorf("unexpected message %s", line)
		}
	}
	if len(partials) == 0 {
		t.Errorf("no partial transcripts in %s", r.stdout)
	}
	wantWords(t, foxText, strings.Join(finals, " "))

	r = tt.mustRun("stream", wav, "--protocol", "v2", "--speed", "2", "--partials", "--token", "--end-utterance-silence-threshold", "500")
	if !strings.Contains(r.stdout, "\r") || !strings.Contains(r.stdout, "\033[K") {
		t.Errorf("no partials rewritten in place: %q", r.stdout)
	}
	shown := shownLines(r.stdout)
	wantWords(t, foxText, strings.Join(shown, " "))
	for _, s := range shown {
		if s != "" && !strings.HasSuffix(s, ".") {
			t.Errorf("line %q shown at the end is not a (punctuated) final", s)
		}
	}
}

// TestStreamFlags: a bad --protocol, and a v2-only flag with v3, are
// usage errors before any request.
func TestStreamFlags(t *testing.T) {
	t.Parallel()
	tt := newTester(t)
	tt.env["EARSHOT_URL"] = "http://127.0.0.1:1" // never reached
	wantError(t, tt.run("stream", "a.wav", "--protocol", "v4"), exitUsage, `--protocol "v4"`, "v3 or v2")
	wantError(t, tt.run("stream", "a.wav", "--end-utterance-silence-threshold", "500"), exitUsage, "--protocol v2")
}
