package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/testaudio"
)

// TestMediaNeverFollowsReferences (issue 19, items 1 and 9): through the
// real server, an upload that is a playlist naming a real audio file on the
// server's disk — bare, or behind an ID3 tag, which ffmpeg used to skip
// before following the playlist — is refused with a clear reason on
// /v2/upload + /v2/transcript and on POST /v1/audio/transcriptions, and
// the audio it names is never transcribed. Decode errors name no path.
// The engine workers' environment holds none of the server's secrets.
func TestMediaNeverFollowsReferences(t *testing.T) {
	t.Parallel()
	testaudio.Need(t, "ffmpeg", "flite")
	data := t.TempDir()
	s := startServer(t, data, freeAddr(t), "EARSHOT_API_KEYS="+keyK+":p")

	// Audio outside Earshot's data that no client may read.
	secretDir := t.TempDir()
	secretMP3 := filepath.Join(secretDir, "secret.mp3")
	copyFile(t, testaudio.Convert(t, testaudio.Speech(t, "slt", "the password is seven seven nine"), "mp3", "-c:a", "libmp3lame"), secretMP3)
	secretTS := filepath.Join(secretDir, "secret.ts")
	copyFile(t, testaudio.Convert(t, testaudio.Speech(t, "slt", "the password is seven seven nine"), "ts", "-c:a", "aac"), secretTS)
	hls := func(seg string) []byte {
		return []byte(fmt.Sprintf("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:10\n#EXTINF:3.0,\n%s\n#EXT-X-ENDLIST\n", seg))
	}
	id3 := append([]byte{'I', 'D', '3', 4, 0, 0, 0, 0, 0, 54}, make([]byte, 54)...)
	uploads := map[string][]byte{
		"hls":        hls(secretMP3),
		"id3-hls":    append(append([]byte{}, id3...), hls(secretMP3)...),
		"id3-hls-ts": append(append([]byte{}, id3...), hls(secretTS)...),
		"ffconcat":   append(append([]byte{}, id3...), fmt.Sprintf("ffconcat version 1.0\nfile '%s'\n", secretMP3)...),
	}
	call := func(method, path, ct string, body io.Reader) (int, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, s.URL+path, body)
		req.Header.Set("Authorization", keyK)
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, b
	}
	// transcribeV2 uploads b, submits it and waits for the transcript.
	transcribeV2 := func(b []byte) (status, text, reason string) {
		t.Helper()
		code, body := call("POST", "/v2/upload", "application/octet-stream", bytes.NewReader(b))
		var up struct {
			UploadURL string `json:"upload_url"`
		}
		if code != 200 || json.Unmarshal(body, &up) != nil {
			t.Fatalf("upload: %d %s", code, body)
		}
		req, _ := json.Marshal(map[string]string{"audio_url": up.UploadURL})
		code, body = call("POST", "/v2/transcript", "application/json", bytes.NewReader(req))
		var tr struct {
			ID, Status string
			Text       *string
			Error      *string
		}
		if code != 200 || json.Unmarshal(body, &tr) != nil {
			t.Fatalf("submit: %d %s", code, body)
		}
		for deadline := time.Now().Add(90 * time.Second); tr.Status != "completed" && tr.Status != "error"; time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("transcript %s still %s", tr.ID, tr.Status)
			}
			code, body = call("GET", "/v2/transcript/"+tr.ID, "", nil)
			if code != 200 || json.Unmarshal(body, &tr) != nil {
				t.Fatalf("get: %d %s", code, body)
			}
		}
		return tr.Status, deref(tr.Text), deref(tr.Error)
	}
	transcribeV1 := func(name string, b []byte) (int, string) {
		t.Helper()
		var form bytes.Buffer
		mw := multipart.NewWriter(&form)
		mw.WriteField("model", "whisper-1")
		fw, _ := mw.CreateFormFile("file", name)
		fw.Write(b)
		mw.Close()
		code, body := call("POST", "/v1/audio/transcriptions", mw.FormDataContentType(), &form)
		return code, string(body)
	}
	noPath := func(what, msg string) {
		t.Helper()
		for _, leak := range []string{data, secretDir, "/tmp", "blobs", "file:", "Invalid"} {
			if strings.Contains(msg, leak) {
				t.Errorf("%s: the error shown holds %q: %s", what, leak, msg)
			}
		}
	}

	for name, b := range uploads {
		status, text, reason := transcribeV2(b)
		if status != "error" || !strings.Contains(reason, "point to other files are not accepted") {
			t.Errorf("/v2 %s: status %s, error %q, text %q; want refused as a playlist", name, status, reason, text)
		}
		if strings.Contains(text, "password") || strings.Contains(text, "seven") {
			t.Errorf("/v2 %s: the audio the playlist names was transcribed: %q", name, text)
		}
		noPath("/v2 "+name, reason)

		code, body := transcribeV1(name+".m3u8", b)
		if code != 400 || !strings.Contains(body, "point to other files are not accepted") {
			t.Errorf("/v1 %s: %d %s; want 400 refusing a playlist", name, code, body)
		}
		if strings.Contains(body, "password") || strings.Contains(body, "seven") {
			t.Errorf("/v1 %s: the audio the playlist names was transcribed: %s", name, body)
		}
		noPath("/v1 "+name, body)
	}

	// A damaged file's error names neither the data directory nor
	// ffmpeg's message.
	m4a, err := os.ReadFile(testaudio.Convert(t, testaudio.Speech(t, "slt", "hello world"), "m4a", "-c:a", "aac"))
	if err != nil {
		t.Fatal(err)
	}
	status, _, reason := transcribeV2(m4a[:300])
	if status != "error" || !strings.Contains(reason, "could not be decoded as MP4") {
		t.Errorf("damaged m4a: %s %q", status, reason)
	}
	noPath("damaged m4a", reason)
	code, body := transcribeV1("cut.m4a", m4a[:300])
	if code != 400 {
		t.Errorf("damaged m4a on /v1: %d %s", code, body)
	}
	noPath("damaged m4a on /v1", body)
	if !strings.Contains(s.logs(), "moov atom not found") {
		t.Errorf("ffmpeg's message is not in the server's log")
	}

	// Real media still transcribes, through the engine workers, whose
	// environment holds no secret.
	wav, err := os.ReadFile(testaudio.Speech(t, "slt", speechText))
	if err != nil {
		t.Fatal(err)
	}
	if status, text, reason := transcribeV2(wav); status != "completed" || !strings.Contains(text, "test") {
		t.Fatalf("real speech: %s %q %q", status, text, reason)
	}
	workers := 0
	for _, pid := range childPIDs(t, s.cmd.Process.Pid) {
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil || !bytes.Contains(env, []byte("EARSHOT_ISOLATE_WORKER=")) {
			continue
		}
		workers++
		if bytes.Contains(env, []byte("EARSHOT_API_KEYS")) || bytes.Contains(env, []byte(keyK)) {
			t.Errorf("engine worker %d holds the server's API keys in its environment", pid)
		}
	}
	if workers == 0 {
		t.Error("no engine worker found among the server's children")
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// childPIDs returns the processes whose parent is pid (Linux /proc).
func childPIDs(t *testing.T, pid int) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	var out []int
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after
		// the last ')'.
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, p)
		}
	}
	return out
}
