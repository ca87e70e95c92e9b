package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/earshot-dev/earshot/adapters/isolate"
	"github.com/earshot-dev/earshot/server"
)

// The tests run the commands through cli.run, in this process, against a
// real reference server: one started here with server (SQLite,
// files and pocketsphinx on real speech from internal/testaudio), shared by
// the tests that give --url, and fresh in-process ones for the tests of the
// in-process mode.

// testKey is the shared server's API key (project "cli"); listKey is the
// key of the project "list".
const (
	testKey = "test-key-cli-0123456789abcdef"
	listKey = "test-key-list-0123456789abcdef"
)

var shared struct {
	once sync.Once
	srv  *server.InProcess
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	// The reference server runs pocketsphinx in worker processes that
	// re-execute this test binary: as in main, this comes first.
	isolate.Main()
	code := m.Run()
	if shared.srv != nil {
		shared.srv.Close()
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// testServer returns the shared reference server, starting it on first use.
func testServer(t *testing.T) *server.InProcess {
	t.Helper()
	shared.once.Do(func() {
		shared.dir, shared.err = os.MkdirTemp("", "earshot-cli-test-*")
		if shared.err != nil {
			return
		}
		var cfg *server.Config
		cfg, shared.err = server.ParseConfig([]string{
			"-addr", "127.0.0.1:0", "-data", shared.dir, "-api-keys", testKey + ":cli," + listKey + ":list",
			"-log-level", "error", "-workers", "2", "-allow-private-urls",
		})
		if shared.err != nil {
			return
		}
		cfg.Quiet = true
		shared.srv, shared.err = server.StartInProcess(context.Background(), cfg)
	})
	if shared.err != nil {
		t.Fatalf("starting the reference server: %v", shared.err)
	}
	return shared.srv
}

// result is what one command printed and returned.
type result struct {
	stdout, stderr string
	code           int
}

// tester runs commands with a fixed environment (never the real one, so
// a developer's EARSHOT_URL cannot leak in) and terminal answers.
type tester struct {
	t      *testing.T
	env    map[string]string
	ttyErr bool // stderr is a terminal (80 columns)
	ttyOut bool // stdout is a terminal (80 columns)
	stdin  io.Reader
}

func newTester(t *testing.T) *tester { return &tester{t: t, env: map[string]string{}} }

// remote returns a tester whose environment names the shared server.
func remote(t *testing.T) *tester {
	srv := testServer(t)
	tt := newTester(t)
	tt.env["EARSHOT_URL"] = srv.URL
	tt.env["EARSHOT_KEY"] = testKey
	return tt
}

func (tt *tester) run(args ...string) result {
	tt.t.Helper()
	var stdout, stderr bytes.Buffer
	c := newCLI(tt.stdin, &stdout, &stderr)
	c.getenv = func(k string) string { return tt.env[k] }
	c.terminal = func(w io.Writer) (bool, int) {
		if (w == io.Writer(&stderr) && tt.ttyErr) || (w == io.Writer(&stdout) && tt.ttyOut) {
			return true, 80
		}
		return false, 0
	}
	c.pollMin, c.pollMax = 50*time.Millisecond, 500*time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	code := c.run(ctx, args)
	return result{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// mustRun runs a command that must succeed.
func (tt *tester) mustRun(args ...string) result {
	tt.t.Helper()
	r := tt.run(args...)
	if r.code != 0 {
		tt.t.Fatalf("earshot %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

// wantError checks a failed command: its exit code, nothing on stdout, and
// exactly one line on stderr, "earshot: ...", containing each of parts.
func wantError(t *testing.T, r result, code int, parts ...string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit code %d, want %d (stderr %q)", r.code, code, r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("stdout %q, want nothing", r.stdout)
	}
	if !strings.HasPrefix(r.stderr, "earshot: ") || strings.Count(r.stderr, "\n") != 1 || !strings.HasSuffix(r.stderr, "\n") {
		t.Errorf("stderr %q, want one line starting with \"earshot: \"", r.stderr)
	}
	for _, p := range parts {
		if !strings.Contains(r.stderr, p) {
			t.Errorf("stderr %q does not mention %q", r.stderr, p)
		}
	}
}

// words returns the lowercase words of s, without punctuation.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' })
}

// recall is the fraction of ref's words found in hyp.
func recall(ref, hyp string) float64 {
	have := map[string]int{}
	for _, w := range words(hyp) {
		have[w]++
	}
	r := words(ref)
	found := 0
	for _, w := range r {
		if have[w] > 0 {
			have[w]--
			found++
		}
	}
	return float64(found) / float64(len(r))
}

func wantWords(t *testing.T, ref, hyp string) {
	t.Helper()
	if got := recall(ref, hyp); got < 0.75 {
		t.Errorf("transcript %q has %.0f%% of the words of %q, want at least 75%%", hyp, 100*got, ref)
	}
}
