package isolate

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
)

// TestWorkerEnvironment: a worker starts with a minimal environment plus
// Config.Env, never the host's secrets, both as built and as the live
// process holds it (/proc/<pid>/environ).
func TestWorkerEnvironment(t *testing.T) {
	secrets := map[string]string{
		"EARSHOT_API_KEYS":       "leaked-key-0123456789:p",
		"EARSHOT_ENCRYPTION_KEY": "leaked-encryption-key",
		"EARSHOT_DATABASE_URL":   "postgres://u:leaked@db/x",
		"AWS_SECRET_ACCESS_KEY":  "leaked-aws",
		"EARSHOT_LLM_KEY":        "leaked-llm",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	cfg := Config{Engine: "quiet", Processes: 1, Env: []string{"ISOLATE_TEST_EXTRA=kept"}}
	check := func(where string, env []string) {
		t.Helper()
		joined := strings.Join(env, "\n")
		if strings.Contains(joined, "leaked") || strings.Contains(joined, "EARSHOT_API_KEYS") {
			t.Errorf("%s: the worker's environment holds the host's secrets:\n%s", where, joined)
		}
		for _, want := range []string{"ISOLATE_TEST_EXTRA=kept", "LC_ALL=C", "PATH=" + os.Getenv("PATH")} {
			if !strings.Contains("\n"+joined+"\n", "\n"+want+"\n") {
				t.Errorf("%s: the worker's environment lacks %q:\n%s", where, want, joined)
			}
		}
	}
	check("workerEnv", cfg.withDefaults().workerEnv())

	if runtime.GOOS != "linux" {
		return
	}
	r := newRec(t, cfg)
	if err := r.Warm(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	pids := r.p.pids()
	if len(pids) != 1 {
		t.Fatalf("%d workers", len(pids))
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pids[0]))
	if err != nil {
		t.Fatal(err)
	}
	check("/proc/<pid>/environ", strings.Split(string(bytes.TrimRight(b, "\x00")), "\x00"))
}
