package e2e

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"

	"github.com/earshot-dev/earshot/internal/buildtest"
	"github.com/earshot-dev/earshot/internal/testaudio"
)

// These tests build the reference server, run it as a separate process on
// loopback with its embedded defaults (SQLite, files, pocketsphinx), and
// drive it with the official AssemblyAI Go SDK v1.10.0.

// Test API keys: the server refuses keys shorter than 16 characters.
const (
	keyK  = "test-key-k-0123456789"
	keyK1 = "test-key-k1-0123456789"
	keyK2 = "test-key-k2-0123456789"
	keyJS = "test-key-js-0123456789"
)

// serverBinary is the reference server built once per test binary.
func serverBinary(tb testing.TB) string {
	tb.Helper()
	return buildtest.Binary(tb, "github.com/earshot-dev/earshot/server/cmd/earshot-server")
}

type server struct {
	t      *testing.T
	cmd    *exec.Cmd
	URL    string
	Data   string
	logMu  sync.Mutex
	log    bytes.Buffer
	exited chan struct{}
}

func freeAddr(t *testing.T) string { return freeAddrTB(t) }

// freeAddrTB is a loopback address with a port free now, for a server
// process to listen on. The port is picked below the kernel's ephemeral
// range (32768-60999 on Linux), which every outgoing connection on the
// machine draws from: a port from there (":0") could be taken by some
// test's client between this check and the server's bind ("address
// already in use", seen in CI).
func freeAddrTB(tb testing.TB) string {
	for range 200 {
		port := 20000 + rand.IntN(12000)
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue
		}
		l.Close()
		return l.Addr().String()
	}
	tb.Fatal("no free port found below the ephemeral range")
	return ""
}

// startServer runs the server on data dir with extra environment.
func startServer(t *testing.T, data, addr string, extraEnv ...string) *server {
	t.Helper()
	s := &server{t: t, URL: "http://" + addr, Data: data, exited: make(chan struct{})}
	s.cmd = exec.Command(serverBinary(t))
	s.cmd.Env = append(os.Environ(), "EARSHOT_ADDR="+addr, "EARSHOT_DATA="+data, "EARSHOT_ALLOW_PRIVATE_URLS=true")
	s.cmd.Env = append(s.cmd.Env, extraEnv...)
	pr, pw := io.Pipe()
	s.cmd.Stdout, s.cmd.Stderr = pw, pw
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			s.logMu.Lock()
			s.log.WriteString(sc.Text() + "\n")
			s.logMu.Unlock()
		}
	}()
	go func() { s.cmd.Wait(); pw.Close(); close(s.exited) }()
	t.Cleanup(func() {
		s.stop(syscall.SIGTERM)
		if t.Failed() {
			s.logMu.Lock()
			t.Logf("server log:\n%s", s.log.String())
			s.logMu.Unlock()
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			t.Fatalf("server exited early:\n%s", s.logs())
		default:
		}
		resp, err := http.Get(s.URL + "/v2/transcript")
		if err == nil {
			resp.Body.Close()
			return s
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("server did not start:\n%s", s.logs())
	return nil
}

func (s *server) logs() string {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	return s.log.String()
}

func (s *server) stop(sig syscall.Signal) {
	select {
	case <-s.exited:
		return
	default:
	}
	s.cmd.Process.Signal(sig)
	select {
	case <-s.exited:
	case <-time.After(20 * time.Second):
		s.cmd.Process.Kill()
		<-s.exited
	}
}

func client(s *server, key string) *aai.Client {
	return aai.NewClientWithOptions(aai.WithAPIKey(key), aai.WithBaseURL(s.URL))
}

const speechText = "hello world this is a test of the transcription service"

func TestGoSDKEndToEnd(t *testing.T) {
	wav := testaudio.Speech(t, "slt", speechText)
	s := startServer(t, t.TempDir(), freeAddr(t), "EARSHOT_API_KEYS="+keyK1+":p1,"+keyK2+":p2")
	c := client(s, keyK1)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	f, err := os.Open(wav)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	uploadURL, err := c.Upload(ctx, io.MultiReader(f)) // a plain reader: sent chunked
	if err != nil {
		t.Fatalf("upload: %v", err)
	}
	if uploadURL == "" {
		t.Fatal("empty upload_url")
	}
	// Another project's key may not use the upload.
	_, err = client(s, keyK2).Transcripts.SubmitFromURL(ctx, uploadURL, nil)
	var apiErr aai.APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 403 || apiErr.Message != "Cannot access uploaded file" {
		t.Fatalf("cross-project submit: want 403 Cannot access uploaded file, got %v", err)
	}

	tr, err := c.Transcripts.SubmitFromURL(ctx, uploadURL, &aai.TranscriptOptionalParams{Punctuate: aai.Bool(true)})
	if err != nil {
		t.Fatalf("submit: %v", err)
	}
	if tr.ID == nil || (tr.Status != "queued" && tr.Status != "processing") {
		t.Fatalf("submit returned %+v", tr)
	}
	id := *tr.ID
	tr, err = c.Transcripts.Wait(ctx, id)
	if err != nil {
		t.Fatalf("wait: %v", err)
	}
	if tr.Status != "completed" {
		t.Fatalf("status %s error %v", tr.Status, deref(tr.Error))
	}
	text := strings.ToLower(deref(tr.Text))
	for _, w := range []string{"hello", "test", "transcription", "service"} {
		if !strings.Contains(text, w) {
			t.Errorf("text %q lacks %q", text, w)
		}
	}
	if len(tr.Words) == 0 || tr.Words[0].Start == nil || tr.Words[0].End == nil || *tr.Words[0].End <= *tr.Words[0].Start {
		t.Fatalf("bad words: %+v", tr.Words)
	}
	if tr.AudioDuration == nil || *tr.AudioDuration < 2 {
		t.Errorf("audio_duration = %v", tr.AudioDuration)
	}

	got, err := c.Transcripts.Get(ctx, id)
	if err != nil || *got.ID != id {
		t.Fatalf("get: %v", err)
	}
	sents, err := c.Transcripts.GetSentences(ctx, id)
	if err != nil || len(sents.Sentences) == 0 || *sents.ID != id {
		t.Fatalf("sentences: %v %+v", err, sents)
	}
	paras, err := c.Transcripts.GetParagraphs(ctx, id)
	if err != nil || len(paras.Paragraphs) == 0 {
		t.Fatalf("paragraphs: %v %+v", err, paras)
	}
	srt, err := c.Transcripts.GetSubtitles(ctx, id, "srt", nil)
	if err != nil || !strings.HasPrefix(string(srt), "1\n00:00:") {
		t.Fatalf("srt: %v %q", err, srt)
	}
	vtt, err := c.Transcripts.GetSubtitles(ctx, id, "vtt", &aai.TranscriptGetSubtitlesOptions{CharsPerCaption: 32})
	if err != nil || !strings.HasPrefix(string(vtt), "WEBVTT") {
		t.Fatalf("vtt: %v %q", err, vtt)
	}
	ws, err := c.Transcripts.WordSearch(ctx, id, []string{"hello", "test of the"})
	if err != nil {
		t.Fatalf("word search: %v", err)
	}
	var sum int64
	for _, m := range ws.Matches {
		sum += *m.Count
	}
	if ws.TotalCount == nil || *ws.TotalCount != sum || sum < 2 {
		t.Fatalf("word search total %v, sum %d: %+v", ws.TotalCount, sum, ws.Matches)
	}

	// Three more transcripts for paging (by URL; allowed on loopback here).
	srv := http.FileServer(http.Dir(filepath.Dir(wav)))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go http.Serve(l, srv)
	defer l.Close()
	ids := []string{id}
	for i := 0; i < 3; i++ {
		tr, err := c.Transcripts.SubmitFromURL(ctx, "http://"+l.Addr().String()+"/"+filepath.Base(wav), nil)
		if err != nil {
			t.Fatalf("submit by url: %v", err)
		}
		ids = append(ids, *tr.ID)
	}
	var seen []string
	page, err := c.Transcripts.List(ctx, aai.ListTranscriptParams{Limit: aai.Int64(1)})
	for {
		if err != nil {
			t.Fatalf("list: %v", err)
		}
		for _, it := range page.Transcripts {
			seen = append(seen, *it.ID)
		}
		if page.PageDetails.PrevURL == nil {
			break
		}
		last := page.Transcripts[len(page.Transcripts)-1].ID
		page, err = c.Transcripts.List(ctx, aai.ListTranscriptParams{Limit: aai.Int64(1), BeforeID: last})
	}
	if len(seen) != 4 {
		t.Fatalf("paged through %d transcripts, want 4: %v", len(seen), seen)
	}
	for i := range ids { // newest first
		if seen[i] != ids[len(ids)-1-i] {
			t.Fatalf("list order %v, submitted %v", seen, ids)
		}
	}
	for _, x := range ids[1:] {
		if tr, err := c.Transcripts.Wait(ctx, x); err != nil || tr.Status != "completed" {
			t.Fatalf("url transcript %s: %v %v", x, err, tr.Error)
		}
	}
	done, err := c.Transcripts.List(ctx, aai.ListTranscriptParams{Status: "completed"})
	if err != nil || len(done.Transcripts) != 4 {
		t.Fatalf("list completed: %v %d", err, len(done.Transcripts))
	}

	// Other projects see nothing.
	if _, err := client(s, keyK2).Transcripts.Get(ctx, id); !errors.As(err, &apiErr) || apiErr.Status != 404 {
		t.Fatalf("cross-project get: %v", err)
	}

	del, err := c.Transcripts.Delete(ctx, id)
	if err != nil || deref(del.Text) != "Deleted by user." {
		t.Fatalf("delete: %v %+v", err, del)
	}
	got, err = c.Transcripts.Get(ctx, id)
	if err != nil || deref(got.Text) != "Deleted by user." || deref(got.AudioURL) != "http://deleted_by_user" || got.Words != nil {
		t.Fatalf("get deleted: %v %+v", err, got)
	}
	_, err = c.Transcripts.Get(ctx, "does-not-exist")
	if !errors.As(err, &apiErr) || apiErr.Status != 404 || apiErr.Message == "" {
		t.Fatalf("get unknown: want APIError 404 with a message, got %v", err)
	}
	// The upload was deleted after its transcription finished.
	if files := listFiles(t, filepath.Join(s.Data)); containsPrefix(files, "blobs/uploads/") {
		t.Errorf("upload still on disk after transcription: %v", files)
	}
	// No transcript text is readable anywhere in the data directory.
	assertNoPlaintext(t, s.Data, []string{"hello world", "transcription service", "HELLO", "Hello world"})
}

func deref[T any](p *T) T {
	var z T
	if p == nil {
		return z
	}
	return *p
}

func listFiles(t *testing.T, root string) []string {
	var out []string
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

func containsPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

func assertNoPlaintext(t *testing.T, root string, needles []string) {
	t.Helper()
	for _, f := range listFiles(t, root) {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range needles {
			if bytes.Contains(bytes.ToLower(b), bytes.ToLower([]byte(n))) {
				t.Errorf("file %s contains transcript text %q", f, n)
			}
		}
	}
}

// TestKill9Recovery kills the server with SIGKILL while jobs are queued and
// processing, restarts it on the same data directory, and expects every job
// to complete.
func TestKill9Recovery(t *testing.T) {
	wav := testaudio.Speech(t, "rms", "the quick brown fox jumps over the lazy dog")
	data := t.TempDir()
	addr := freeAddr(t)
	env := []string{"EARSHOT_API_KEYS=" + keyK + ":p", "EARSHOT_WORKERS=1", "EARSHOT_JOB_LEASE=2s"}
	s := startServer(t, data, addr, env...)
	c := client(s, keyK)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var ids []string
	for i := 0; i < 3; i++ {
		f, _ := os.Open(wav)
		u, err := c.Upload(ctx, f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		tr, err := c.Transcripts.SubmitFromURL(ctx, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, *tr.ID)
	}
	s.stop(syscall.SIGKILL)
	s2 := startServer(t, data, addr, env...)
	c2 := client(s2, keyK)
	for _, id := range ids {
		tr, err := c2.Transcripts.Wait(ctx, id)
		if err != nil || tr.Status != "completed" {
			t.Fatalf("job %s after kill -9: %v status=%s error=%v", id, err, tr.Status, deref(tr.Error))
		}
		if !strings.Contains(strings.ToLower(deref(tr.Text)), "fox") {
			t.Errorf("job %s text %q", id, deref(tr.Text))
		}
	}
}
