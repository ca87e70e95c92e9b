package main

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/server"
)

const (
	foxText  = "The quick brown fox jumps over the lazy dog."
	callText = "Please call me tomorrow at noon."
)

// apiGet fetches path from the shared server with the test key.
func apiGet(t *testing.T, path string) []byte {
	t.Helper()
	req, _ := http.NewRequest("GET", testServer(t).URL+path, nil)
	req.Header.Set("Authorization", testKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
	}
	return b
}

var idRE = regexp.MustCompile(`transcript ([0-9a-f-]{36})`)

// transcriptID finds the id in transcribe's progress lines.
func transcriptID(t *testing.T, stderr string) string {
	t.Helper()
	m := idRE.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no transcript id in %q", stderr)
	}
	return m[1]
}

// TestTranscribeText transcribes real speech to text through the shared
// server, with the progress display of a terminal on stderr.
func TestTranscribeText(t *testing.T) {
	t.Parallel()
	wav := testaudio.Speech(t, "slt", foxText)
	tt := remote(t)
	tt.ttyErr = true
	r := tt.mustRun("transcribe", wav)
	wantWords(t, foxText, r.stdout)
	if strings.Count(r.stdout, "\n") != 1 {
		t.Errorf("text output %q is not one line", r.stdout)
	}
	// The terminal display: an upload bar reaching 100%, then the status
	// line, each redrawn in place with carriage returns.
	for _, want := range []string{"\rUploading " + filepath.Base(wav), "100%", "\rTranscribing [", "Transcribed: transcript ", "completed in "} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr has no %q:\n%q", want, r.stderr)
		}
	}
}

// TestTranscribeSRT writes SRT and VTT files and compares them with the
// API's own exports of the same transcript; progress off a terminal is
// plain lines.
func TestTranscribeSRT(t *testing.T) {
	t.Parallel()
	wav := testaudio.Speech(t, "rms", callText+" "+foxText)
	dir := t.TempDir()
	tt := remote(t)
	out := filepath.Join(dir, "call.srt")
	r := tt.mustRun("transcribe", wav, "--format", "srt", "-o", out)
	if r.stdout != "" {
		t.Errorf("stdout %q with -o", r.stdout)
	}
	id := transcriptID(t, r.stderr)
	for _, want := range []string{"earshot: uploading ", "earshot: uploaded ", "earshot: transcript " + id + ": queued", ": completed in "} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr has no %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "\r") {
		t.Errorf("stderr is not a terminal but has carriage returns: %q", r.stderr)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := apiGet(t, "/v2/transcript/"+id+"/srt"); string(got) != string(want) {
		t.Errorf("SRT file differs from the API's /srt:\n%s\n---\n%s", got, want)
	}
	if !strings.HasPrefix(string(got), "1\n00:00:") {
		t.Errorf("SRT does not start with cue 1: %q", got)
	}
	wantWords(t, callText, string(got))

	// get in the other formats, compared with the API.
	vtt := tt.mustRun("get", id, "--format", "vtt", "--chars-per-caption", "16")
	if want := apiGet(t, "/v2/transcript/"+id+"/vtt?chars_per_caption=16"); vtt.stdout != string(want) {
		t.Errorf("get --format vtt differs from the API's /vtt:\n%s\n---\n%s", vtt.stdout, want)
	}
	sent := tt.mustRun("get", id, "--format", "sentences")
	var sentences struct {
		Sentences []struct{ Text string } `json:"sentences"`
	}
	json.Unmarshal(apiGet(t, "/v2/transcript/"+id+"/sentences"), &sentences)
	var lines []string
	for _, s := range sentences.Sentences {
		lines = append(lines, s.Text)
	}
	if want := strings.Join(lines, "\n") + "\n"; sent.stdout != want || len(lines) == 0 {
		t.Errorf("get --format sentences = %q, want %q", sent.stdout, want)
	}
	para := tt.mustRun("get", id, "--format", "paragraphs")
	wantWords(t, callText+" "+foxText, para.stdout)
}

// TestTranscribeParams checks that parameter flags reach the server, both
// through the SDK (parameters its struct has) and by the direct POST
// (keyterms_prompt, speaker_options, which the SDK lacks), by reading the
// transcript's echo of its request.
func TestTranscribeParams(t *testing.T) {
	t.Parallel()
	wav := testaudio.Speech(t, "slt", callText)
	tt := remote(t)
	cases := []struct {
		name  string
		flags []string
		sdk   bool
		want  map[string]any
	}{
		{
			name: "sdk",
			flags: []string{"--speaker-labels", "--punctuate=false", "--word-boost", "noon,tomorrow", "--word-boost", "call",
				"--boost-param", "high", "--redact-pii", "--redact-pii-policies", "person_name,phone_number",
				"--redact-pii-sub", "entity_name", "--custom-spelling", "noon=Noon", "--audio-start-from", "100",
				"--webhook-url", "http://127.0.0.1:9/hook", "--webhook-auth-header-name", "X-Token", "--webhook-auth-header-value", "s3cret"},
			sdk: true,
			want: map[string]any{
				"speaker_labels": true, "punctuate": false, "word_boost": []any{"noon", "tomorrow", "call"},
				"boost_param": "high", "redact_pii": true, "redact_pii_policies": []any{"person_name", "phone_number"},
				"redact_pii_sub": "entity_name", "audio_start_from": float64(100),
				"custom_spelling": []any{map[string]any{"from": []any{"noon"}, "to": "Noon"}},
				"webhook_url":     "http://127.0.0.1:9/hook", "webhook_auth_header_name": "X-Token",
			},
		},
		{
			name: "direct",
			flags: []string{"--keyterms-prompt", "tomorrow at noon", "--speaker-labels",
				"--speaker-options.max-speakers-expected", "3", "--speaker-options", `{"min_speakers_expected":1}`,
				"--language-code", "en", "--disfluencies"},
			want: map[string]any{
				"keyterms_prompt": []any{"tomorrow at noon"}, "speaker_labels": true,
				"speaker_options": map[string]any{"min_speakers_expected": float64(1), "max_speakers_expected": float64(3)},
				"language_code":   "en", "disfluencies": true,
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// Which path the request takes.
			c := newCLI(nil, io.Discard, io.Discard)
			fs := c.flagSet(findCommand("transcribe"))
			for i := 0; i < len(tc.flags); i++ {
				f := strings.TrimPrefix(tc.flags[i], "--")
				name, val, ok := strings.Cut(f, "=")
				if !ok {
					if b, isBool := fs.Lookup(name).Value.(interface{ IsBoolFlag() bool }); isBool && b.IsBoolFlag() {
						val = "true"
					} else {
						i++
						val = tc.flags[i]
					}
				}
				if err := fs.Set(name, val); err != nil {
					t.Fatal(err)
				}
			}
			body, err := paramsOf(fs).request("http://example.com/a.wav")
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := sdkParams(body); ok != tc.sdk {
				t.Errorf("the SDK carries the request: %v, want %v", ok, tc.sdk)
			}

			src := wav
			tt := *tt
			if !tc.sdk {
				// Standard input as the file.
				f, err := os.Open(wav)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				tt.stdin, tt.t, src = f, t, "-"
			}
			r := tt.mustRun(append([]string{"transcribe", src, "--no-wait", "-q"}, tc.flags...)...)
			id := strings.TrimSpace(r.stdout)
			js := tt.mustRun("get", id, "--format", "json")
			var tr map[string]any
			if err := json.Unmarshal([]byte(js.stdout), &tr); err != nil {
				t.Fatalf("get --format json: %v\n%s", err, js.stdout)
			}
			for k, want := range tc.want {
				got, _ := json.Marshal(tr[k])
				w, _ := json.Marshal(want)
				if string(got) != string(w) {
					t.Errorf("%s: the transcript echoes %s, want %s", k, got, w)
				}
			}
		})
	}
}

// TestTranscribeURL gives the server a URL to fetch (the shared server
// allows loopback URLs) and prints the transcript as JSON.
func TestTranscribeURL(t *testing.T) {
	t.Parallel()
	wav := testaudio.Speech(t, "slt", foxText)
	media := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, wav)
	}))
	defer media.Close()
	u := media.URL + "/talk.wav"
	r := remote(t).mustRun("transcribe", u, "--format", "json", "-q")
	var tr struct {
		AudioURL string `json:"audio_url"`
		Text     string `json:"text"`
		Status   string `json:"status"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &tr); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if tr.AudioURL != u || tr.Status != "completed" || r.stderr != "" {
		t.Errorf("audio_url %q, status %q, stderr %q", tr.AudioURL, tr.Status, r.stderr)
	}
	wantWords(t, foxText, tr.Text)
	if !strings.HasPrefix(r.stdout, "{\n  \"") {
		t.Errorf("JSON is not indented: %.40q", r.stdout)
	}
}

// paramsOf returns the parameter flags' state of a transcribe flag set.
func paramsOf(fs *flag.FlagSet) *paramFlags {
	return fs.Lookup("speaker-labels").Value.(*paramValue).p
}

// TestListGetDelete lists, waits for, prints and deletes transcripts.
func TestListGetDelete(t *testing.T) {
	t.Parallel()
	wav := testaudio.Speech(t, "slt", foxText)
	// A project of its own: other tests' transcripts do not appear.
	tt := remote(t)
	tt.env["EARSHOT_KEY"] = listKey
	var ids []string
	for range 2 {
		r := tt.mustRun("transcribe", wav, "--no-wait")
		id := strings.TrimSpace(r.stdout)
		if checkID(id) != nil || !strings.Contains(r.stderr, "submitted transcript "+id) {
			t.Fatalf("transcribe --no-wait printed %q, %q", r.stdout, r.stderr)
		}
		ids = append(ids, id)
	}
	newest := ids[1]

	// get --wait follows the job to the end.
	r := tt.mustRun("get", newest, "--wait")
	wantWords(t, foxText, r.stdout)
	if !strings.Contains(r.stderr, "completed in") {
		t.Errorf("get --wait stderr %q", r.stderr)
	}

	// list: a table with the newest first, and the next page's command.
	r = tt.mustRun("list", "--limit", "1")
	if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[0], "ID") || !strings.HasPrefix(lines[1], newest) {
		t.Errorf("list --limit 1:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "earshot list --before "+newest+" --limit 1") {
		t.Errorf("list stderr %q does not give the next page", r.stderr)
	}
	r = tt.mustRun("list", "--before", newest, "--limit", "1", "--format", "json")
	var page struct {
		Transcripts []struct{ ID, Status string }
		PageDetails struct {
			Limit int `json:"limit"`
		} `json:"page_details"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &page); err != nil || len(page.Transcripts) != 1 || page.PageDetails.Limit != 1 {
		t.Fatalf("list --format json: %v\n%s", err, r.stdout)
	}
	if page.Transcripts[0].ID == newest {
		t.Errorf("list --before %s lists it", newest)
	}
	r = tt.mustRun("list", "--status", "completed", "--limit", "200", "-q")
	if !strings.Contains(r.stdout, newest+"  completed") || r.stderr != "" {
		t.Errorf("list --status completed -q lacks %s:\n%s\nstderr: %q", newest, r.stdout, r.stderr)
	}

	// delete, then get shows the deleted transcript; unknown ids are 4.
	r = tt.mustRun("delete", ids[0], ids[1])
	if r.stdout != "deleted "+ids[0]+"\ndeleted "+ids[1]+"\n" {
		t.Errorf("delete printed %q", r.stdout)
	}
	r = tt.mustRun("get", newest)
	if strings.TrimSpace(r.stdout) != "Deleted by user." {
		t.Errorf("get after delete = %q", r.stdout)
	}
	unknown := "00000000-0000-4000-8000-000000000000"
	wantError(t, tt.run("get", unknown), exitNotFound, unknown)
	wantError(t, tt.run("delete", unknown), exitNotFound, unknown)
}

// TestUsageErrors: bad command lines exit 2 with one line naming the
// problem, before any request.
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	tt := newTester(t)
	tt.env["EARSHOT_URL"] = "http://127.0.0.1:1" // never reached
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.wav")
	os.WriteFile(empty, nil, 0o644)
	notMedia := filepath.Join(dir, "notes.txt")
	os.WriteFile(notMedia, []byte("this is not audio at all, just some text\n"), 0o644)
	cases := []struct {
		args  []string
		parts []string
	}{
		{[]string{"frobnicate"}, []string{`unknown command "frobnicate"`, "transcribe"}},
		{[]string{"transcribe"}, []string{"transcribe needs one FILE or URL"}},
		{[]string{"transcribe", "a.wav", "b.wav"}, []string{"got 2 arguments"}},
		{[]string{"transcribe", "--nope", "a.wav"}, []string{"--nope", "earshot help transcribe"}},
		{[]string{"transcribe", filepath.Join(dir, "missing.wav")}, []string{"missing.wav", "no such file"}},
		{[]string{"transcribe", dir}, []string{"is a directory"}},
		{[]string{"transcribe", empty}, []string{"is empty"}},
		{[]string{"transcribe", "a.wav", "--format", "docx"}, []string{`--format "docx"`, "srt"}},
		{[]string{"transcribe", "a.wav", "--chars-per-caption", "20"}, []string{"--chars-per-caption", "srt or vtt"}},
		{[]string{"transcribe", "a.wav", "--speakers-expected", "two"}, []string{"--speakers-expected", "whole number"}},
		{[]string{"transcribe", "a.wav", "--speakers-expected", "11"}, []string{"--speakers-expected", "between 1 and 10"}},
		{[]string{"transcribe", "a.wav", "--redact-pii"}, []string{"--redact-pii-policies: is required when --redact-pii is true"}},
		{[]string{"transcribe", "a.wav", "--redact-pii-policies", "person_name,shoe_size", "--redact-pii"}, []string{"--redact-pii-policies", "shoe_size"}},
		{[]string{"transcribe", "a.wav", "--speaker-labels", "--dual-channel"}, []string{"--speaker-labels", "--dual-channel"}},
		{[]string{"transcribe", "a.wav", "--speaker-options", `{"bogus":1}`}, []string{"--speaker-options", "bogus"}},
		{[]string{"transcribe", "a.wav", "--speaker-options", `{"min_speakers_expected":"two"}`}, []string{"min_speakers_expected must be a number"}},
		{[]string{"transcribe", "a.wav", "--speaker-options.min-speakers-expected", "0"}, []string{"--speaker-options.min-speakers-expected", "at least 1"}},
		{[]string{"transcribe", "a.wav", "--custom-spelling", "nothing"}, []string{"--custom-spelling", "FROM[,FROM...]=TO"}},
		{[]string{"transcribe", "a.wav", "--word-boost", "a,,b"}, []string{"--word-boost", "empty"}},
		{[]string{"transcribe", "a.wav", "--remove-audio-tags", "{oops"}, []string{"--remove-audio-tags", "JSON"}},
		{[]string{"transcribe", "a.wav", "--webhook-url", "ftp://x"}, []string{"--webhook-url", "http or https"}},
		{[]string{"transcribe", notMedia, "--url", "ftp://example.com"}, []string{"must be http:// or https://"}},
		{[]string{"transcribe", "a.wav", "-o", filepath.Join(dir, "no", "such", "x.srt")}, []string{"no such directory"}},
		{[]string{"stream", notMedia}, []string{"notes.txt"}},
		{[]string{"stream", "a.wav", "--speed", "0"}, []string{"--speed"}},
		{[]string{"list", "--status", "done"}, []string{`--status "done"`, "completed"}},
		{[]string{"list", "--limit", "500"}, []string{"--limit", "200"}},
		{[]string{"get"}, []string{"get needs one transcript ID"}},
		{[]string{"get", "../upload"}, []string{`"../upload" is not a transcript id`}},
		{[]string{"delete"}, []string{"at least one transcript ID"}},
		{[]string{"serve", "--no-such-flag"}, []string{"serve", "--no-such-flag"}},
		{[]string{"help", "frobnicate"}, []string{"unknown command"}},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			wantError(t, tt.run(tc.args...), exitUsage, tc.parts...)
		})
	}
	// No arguments: the usage on stderr, exit 2.
	r := tt.run()
	if r.code != exitUsage || !strings.Contains(r.stderr, "Commands:") {
		t.Errorf("no arguments: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestAuthAndReachability: a wrong key exits 3, an unreachable server 5,
// each with one readable line, and before any upload.
func TestAuthAndReachability(t *testing.T) {
	t.Parallel()
	wav := testaudio.Speech(t, "slt", callText)
	srv := testServer(t)
	bad := newTester(t)
	bad.env["EARSHOT_URL"] = srv.URL
	bad.env["EARSHOT_KEY"] = "wrong-key-0123456789abcdef"
	wantError(t, bad.run("transcribe", wav), exitAuth, "EARSHOT_KEY", "401")
	wantError(t, bad.run("list"), exitAuth, "401")
	wantError(t, bad.run("stream", wav), exitAuth, "401")
	// --key overrides the environment.
	r := bad.run("list", "--key", testKey, "--limit", "1")
	if r.code != 0 {
		t.Errorf("list --key with the right key: exit %d, %s", r.code, r.stderr)
	}

	// A port nobody listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	gone := newTester(t)
	gone.env["EARSHOT_URL"] = closed
	gone.env["EARSHOT_KEY"] = testKey
	wantError(t, gone.run("transcribe", wav), exitUnavailable, "cannot reach the server at "+closed, "connection refused")
	wantError(t, gone.run("list"), exitUnavailable, "cannot reach the server at "+closed)
	wantError(t, gone.run("stream", wav), exitUnavailable, "cannot reach the server at "+closed)
	wantError(t, gone.run("get", "x", "--url", "http://no-such-host.invalid"), exitUnavailable, "no-such-host.invalid")
}

// TestInProcess runs commands with no server given: each starts the
// reference server in-process on the data directory, which keeps the
// transcripts between runs; a directory held by a running server is
// refused with a pointer to --url.
func TestInProcess(t *testing.T) {
	t.Parallel()
	wav := testaudio.Speech(t, "rms", callText)
	data := t.TempDir()
	tt := newTester(t)
	r := tt.mustRun("transcribe", wav, "--data", data)
	wantWords(t, callText, r.stdout)
	id := transcriptID(t, r.stderr)
	if !strings.Contains(r.stderr, "Started the in-process server (data in "+data+")") {
		t.Errorf("stderr %q", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(data, "earshot.db")); err != nil {
		t.Errorf("no database in the data directory: %v", err)
	}

	// EARSHOT_DATA instead of --data; a later run sees the transcript.
	tt.env["EARSHOT_DATA"] = data
	r = tt.mustRun("list")
	if !strings.Contains(r.stdout, id) {
		t.Errorf("list in-process lacks %s:\n%s", id, r.stdout)
	}
	// stream in-process.
	r = tt.mustRun("stream", wav, "--speed", "4")
	wantWords(t, callText, r.stdout)
	wantError(t, tt.run("list", "--key", "k"), exitUsage, "--key needs --url")
	wantError(t, tt.run("transcribe", wav, "--no-wait"), exitUsage, "--no-wait needs a server that keeps running")

	// A running server holds the directory.
	cfg, err := server.ParseConfig([]string{"-addr", "127.0.0.1:0", "-data", data, "-api-keys", testKey + ":x", "-log-level", "error"})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Quiet = true
	srv, err := server.StartInProcess(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	wantError(t, tt.run("transcribe", wav), exitUnavailable, "another earshot server is running on "+data, "--url")
}

// TestServe runs the server command until its context ends, and refuses
// a data directory already in use.
func TestServe(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	data := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr strings.Builder
	done := make(chan int, 1)
	go func() {
		c := newCLI(nil, &stdout, &stderr)
		done <- c.run(ctx, []string{"serve", "--addr", addr, "--data", data, "--api-keys", testKey + ":p", "--log-level", "error"})
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		req, _ := http.NewRequest("GET", "http://"+addr+"/v2/transcript", nil)
		req.Header.Set("Authorization", testKey)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("GET /v2/transcript: %d", resp.StatusCode)
			}
			break
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited %d: %s", code, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("serve did not listen within 30 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The CLI talks to it.
	tt := newTester(t)
	r := tt.mustRun("list", "--url", "http://"+addr, "--key", testKey)
	if got := strings.Fields(r.stdout); !slices.Equal(got, []string{"ID", "STATUS", "CREATED", "AUDIO"}) || r.stderr != "earshot: no transcripts\n" {
		t.Errorf("list on a fresh server: %q, %q", r.stdout, r.stderr)
	}
	// A second server on the same data directory.
	wantError(t, tt.run("serve", "--addr", "127.0.0.1:0", "--data", data, "--api-keys", testKey+":p"), exitUnavailable, "in use")
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("serve exited %d after its context ended: %s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop within 30 s")
	}
}

// TestHelpAndVersion: help lists the commands and exit codes; every
// command's help lists its flags; version prints one line.
func TestHelpAndVersion(t *testing.T) {
	t.Parallel()
	tt := newTester(t)
	r := tt.mustRun("help")
	for _, want := range []string{"transcribe", "stream", "list", "get", "delete", "serve", "version", "Exit codes:", "130"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("help lacks %q", want)
		}
	}
	for _, cmd := range commands() {
		if cmd.setup == nil {
			continue
		}
		r := tt.mustRun("help", cmd.name)
		if !strings.HasPrefix(r.stdout, "Usage: earshot "+cmd.name) {
			t.Errorf("help %s: %q", cmd.name, r.stdout)
		}
	}
	r = tt.mustRun("transcribe", "-h")
	for _, want := range []string{"--speaker-labels", "--redact-pii-policies A,B,...", "--summary-type TEXT", "bullets_verbose", "-o, --output FILE", "--url URL", "Exit codes:"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("transcribe -h lacks %q", want)
		}
	}
	r = tt.mustRun("version")
	if !regexp.MustCompile(`^earshot \S+ \(go\S+, \w+/\w+\)\n$`).MatchString(r.stdout) {
		t.Errorf("version printed %q", r.stdout)
	}
	if r2 := tt.mustRun("--version"); r2.stdout != r.stdout {
		t.Errorf("--version printed %q", r2.stdout)
	}
	if !slices.Contains(words(exitCodesHelp), "authentication") {
		t.Error("exit codes lack authentication")
	}
}
