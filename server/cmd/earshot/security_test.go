package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// evil is what a hostile server puts in every string it sends: a window
// title (OSC 0), a clipboard write (OSC 52), a screen clear (CSI 2J), an
// 8-bit CSI (U+009B), a carriage return that overwrites the line, DEL,
// and a right-to-left override.
const evil = "hello \x1b]0;pwned\x07 \x1b]52;c;ZXZpbA==\x07 \x1b[2J \u009b31m \rfake\x7f \u202eevil"

// hostileServer answers every call as a server that wants to take over
// the terminal would.
func hostileServer(t *testing.T) *httptest.Server {
	t.Helper()
	const id = "6f9619ff-8b86-d011-b42d-00cf4fc964ff"
	tr := map[string]any{"id": id, "status": "completed", "text": evil, "audio_url": "https://x/" + evil,
		"words": []any{}, "language_code": "en"}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch p := r.URL.Path; {
		case p == "/v2/transcript/"+id:
			json.NewEncoder(w).Encode(tr)
		case p == "/v2/transcript/"+id+"/sentences":
			json.NewEncoder(w).Encode(map[string]any{"id": id, "sentences": []any{map[string]any{"text": evil, "start": 0, "end": 1, "words": []any{}}}})
		case p == "/v2/transcript/"+id+"/paragraphs":
			json.NewEncoder(w).Encode(map[string]any{"id": id, "paragraphs": []any{map[string]any{"text": evil, "start": 0, "end": 1, "words": []any{}}}})
		case p == "/v2/transcript/"+id+"/srt":
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("1\r\n00:00:00,000 --> 00:00:01,000\r\n" + evil + "\r\n"))
		case p == "/v2/transcript":
			json.NewEncoder(w).Encode(map[string]any{"transcripts": []any{map[string]any{"id": id + evil, "status": "error",
				"created": "2024-01-01T00:00:00", "audio_url": "https://x/" + evil, "resource_url": "https://x", "error": evil}},
				"page_details": map[string]any{"limit": 10, "result_count": 1, "current_url": "https://x"}})
		default:
			w.WriteHeader(400)
			json.NewEncoder(w).Encode(map[string]any{"error": evil})
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// noControls fails when out holds a raw escape, control or bidi
// character (newline, tab and CRLF aside).
func noControls(t *testing.T, what, out string) {
	t.Helper()
	for _, r := range strings.ReplaceAll(out, "\r\n", "\n") {
		if unsafeRune(r, true) {
			t.Errorf("%s holds %U raw: %q", what, r, out)
			return
		}
	}
}

// TestHostileServerEscaped: nothing a server sends reaches the terminal
// as an escape sequence, in any format, in errors, lists and progress;
// JSON stays valid and means the same.
func TestHostileServerEscaped(t *testing.T) {
	t.Parallel()
	s := hostileServer(t)
	tt := newTester(t)
	tt.env["EARSHOT_URL"], tt.env["EARSHOT_KEY"] = s.URL, "k"
	tt.ttyOut, tt.ttyErr = true, true
	const id = "6f9619ff-8b86-d011-b42d-00cf4fc964ff"
	for _, format := range []string{"text", "sentences", "paragraphs", "srt"} {
		r := tt.mustRun("get", id, "--format", format)
		noControls(t, format, r.stdout)
		noControls(t, format+" stderr", r.stderr)
		if !strings.Contains(r.stdout, `hello \x1b]0;pwned\x07 \x1b]52;c;ZXZpbA==\x07 \x1b[2J \u009b31m \x0dfake\x7f \u202eevil`) {
			t.Errorf("%s: the text is not shown escaped: %q", format, r.stdout)
		}
	}
	if r := tt.mustRun("get", id, "--format", "srt"); !strings.HasPrefix(r.stdout, "1\r\n00:00:00,000") {
		t.Errorf("srt lost its CRLF: %q", r.stdout)
	}
	r := tt.mustRun("get", id, "--format", "json")
	noControls(t, "json", r.stdout)
	var got struct{ Text string }
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || got.Text != evil {
		t.Errorf("json output %q does not decode to the server's text: %v", r.stdout, err)
	}
	for _, args := range [][]string{{"list"}, {"list", "--format", "json"}, {"get", "nope"}} {
		r := tt.run(args...)
		noControls(t, strings.Join(args, " "), r.stdout)
		noControls(t, strings.Join(args, " ")+" stderr", r.stderr)
	}
	if r := tt.run("get", "nope"); r.code != exitUsage || !strings.Contains(r.stderr, `\x1b]0;pwned`) {
		t.Errorf("error message: exit %d %q", r.code, r.stderr)
	}
}

func TestEscapeText(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain text\n\tok":          "plain text\n\tok",
		"a\x1b[31mb":                `a\x1b[31mb`,
		"crlf\r\nkept, lone\r not":  "crlf\r\nkept, lone\\x0d not",
		"c1 \u0085 \u009b":          `c1 \u0085 \u009b`,
		"bidi \u202e \u2066 \u200f": `bidi \u202e \u2066 \u200f`,
		"bad \xff utf-8":            `bad \xff utf-8`,
		"ünïcode 日本":                "ünïcode 日本",
	} {
		if got := escapeText(in, true); got != want {
			t.Errorf("escapeText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := escapeText("a\nb\tc", false); got != `a\x0ab\x09c` {
		t.Errorf("one line: %q", got)
	}
	j := safeJSON([]byte("{\"a\": \"x\u009b\u202e\xffy\"}"))
	var v map[string]string
	if err := json.Unmarshal(j, &v); err != nil || v["a"] != "x\u009b\u202e\ufffdy" || strings.ContainsRune(string(j), 0x9b) {
		t.Errorf("safeJSON: %s, %v, %q", j, err, v)
	}
}

// TestOutputFileSafe: -o never writes through a symbolic link, writes
// 0600 unless --output-mode says otherwise, and replaces a file whole.
func TestOutputFileSafe(t *testing.T) {
	t.Parallel()
	s := hostileServer(t)
	tt := newTester(t)
	tt.env["EARSHOT_URL"], tt.env["EARSHOT_KEY"] = s.URL, "k"
	const id = "6f9619ff-8b86-d011-b42d-00cf4fc964ff"
	dir := t.TempDir()

	target := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(target, []byte("ssh-ed25519 AAAA\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "out.txt")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	r := tt.run("get", id, "-o", link)
	wantError(t, r, exitUsage, "symbolic link")
	if b, _ := os.ReadFile(target); string(b) != "ssh-ed25519 AAAA\n" {
		t.Errorf("the link's target was written: %q", b)
	}

	out := filepath.Join(dir, "t.txt")
	tt.mustRun("get", id, "-o", out)
	st, err := os.Stat(out)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("-o wrote mode %v (%v), want 0600", st.Mode().Perm(), err)
	}
	if b, _ := os.ReadFile(out); !strings.Contains(string(b), `\x1b]0;pwned`) || strings.Contains(string(b), "\x1b") {
		t.Errorf("file not escaped: %q", b)
	}
	// An existing file is replaced with the asked mode; nothing is left
	// beside it.
	tt.mustRun("get", id, "-o", out, "--output-mode", "0644")
	if st, _ := os.Stat(out); st.Mode().Perm() != 0o644 {
		t.Errorf("--output-mode 0644 wrote %v", st.Mode().Perm())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Errorf("files left in %s: %v", dir, ents)
	}
	wantError(t, tt.run("get", id, "-o", out, "--output-mode", "rw-r--r--"), exitUsage, "--output-mode")
	wantError(t, tt.run("get", id, "-o", out, "--output-mode", "01777"), exitUsage, "--output-mode")

	// A named pipe as output is refused, not opened.
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no mkfifo:", err)
	}
	wantError(t, tt.run("get", id, "-o", fifo), exitUsage, "not a regular file")
}

// TestNonRegularInputRefused: a named pipe, a device or a directory as
// the media file is refused at once with exit code 2, before it is
// opened (opening a FIFO with no writer would block for ever).
func TestNonRegularInputRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "audio.wav")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no mkfifo:", err)
	}
	tt := newTester(t)
	tt.env["EARSHOT_URL"], tt.env["EARSHOT_KEY"] = "http://127.0.0.1:1", "k"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"transcribe", fifo}, "named pipe"},
		{[]string{"stream", fifo}, "named pipe"},
		{[]string{"transcribe", "/dev/zero"}, "is a device"},
		{[]string{"stream", "/dev/zero"}, "is a device"},
		{[]string{"transcribe", dir}, "is a directory"},
	} {
		done := make(chan result, 1)
		go func() { done <- tt.run(c.args...) }()
		select {
		case r := <-done:
			wantError(t, r, exitUsage, c.want)
		case <-time.After(20 * time.Second):
			t.Fatalf("earshot %s hangs", strings.Join(c.args, " "))
		}
	}
}

// FuzzEscape checks that escaped text never holds an unsafe character
// (CRLF aside) and that safeJSON keeps JSON valid with the same value.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{evil, "a\r\nb", "\xff\xfe", "\u2028\u2029\u061c", `"\u009b"`, "\ufffd"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, layout := range []bool{true, false} {
			out := escapeText(s, layout)
			if !utf8.ValidString(out) {
				t.Fatalf("escapeText(%q, %v) = %q is not UTF-8", s, layout, out)
			}
			for _, r := range strings.ReplaceAll(out, "\r\n", "\n") {
				if unsafeRune(r, layout) {
					t.Fatalf("escapeText(%q, %v) = %q holds %U", s, layout, out, r)
				}
			}
		}
		raw, _ := json.Marshal(map[string]string{s: s})
		safe := safeJSON(raw)
		var a, b map[string]string
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(safe, &b); err != nil || b[strings.ToValidUTF8(s, "\ufffd")] != a[strings.ToValidUTF8(s, "\ufffd")] || len(a) != len(b) {
			t.Fatalf("safeJSON(%s) = %s: %v", raw, safe, err)
		}
		for _, r := range string(safe) {
			if unsafeRune(r, true) {
				t.Fatalf("safeJSON(%s) = %s holds %U", raw, safe, r)
			}
		}
	})
}
