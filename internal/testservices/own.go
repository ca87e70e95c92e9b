package testservices

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Own is a PostgreSQL cluster and a versitygw server started for one test
// alone (by scripts/services.sh, in a state directory of their own), so
// that the test may crash and restart them without disturbing any other.
type Own struct {
	dir, script string
	postgres    string   // admin URL
	s3          S3Config // without a bucket
	// Durable: the cluster runs crash-safe (fsync, synchronous_commit
	// and full_page_writes on).
	Durable bool
}

// StartOwn starts a PostgreSQL cluster (crash-safe when durable) and a
// versitygw server for t, stopped and deleted when t ends. It needs what
// Postgres and S3 need (the EARSHOT_TEST_* variables, which say that
// scripts/services.sh runs on this machine: its binaries are installed and
// versitygw built): without them t is skipped, or fails when
// EARSHOT_TEST_REQUIRE_SERVICES=1. A start that fails fails t.
func StartOwn(t testing.TB, durable bool) *Own {
	t.Helper()
	need(t, "PostgreSQL", EnvPostgresURL)
	need(t, "S3", EnvS3Endpoint, EnvS3AccessKey, EnvS3SecretKey)
	script, err := servicesScript()
	if err != nil {
		t.Fatal(err)
	}
	o := &Own{script: script, Durable: durable}
	pg := "0"
	if durable {
		pg = "1"
	}
	// The test binary owns them: if it dies without its cleanup, the next
	// start stops them.
	out, err := o.run(t, 3*time.Minute, []string{"EARSHOT_SERVICES_PG_DURABLE=" + pg, "EARSHOT_SERVICES_OWNER=" + strconv.Itoa(os.Getpid())}, "start")
	if err != nil {
		t.Fatal(err)
	}
	env := parseExports(out)
	o.dir = env["EARSHOT_SERVICES_DIR"]
	if o.dir == "" {
		t.Fatalf("scripts/services.sh start printed no EARSHOT_SERVICES_DIR:\n%s", out)
	}
	t.Cleanup(func() {
		if _, err := o.run(t, time.Minute, nil, "stop", o.dir); err != nil {
			t.Error(err)
		}
	})
	o.postgres = env[EnvPostgresURL]
	o.s3 = S3Config{Endpoint: env[EnvS3Endpoint], AccessKey: env[EnvS3AccessKey], SecretKey: env[EnvS3SecretKey], Region: env[EnvS3Region]}
	if o.postgres == "" || o.s3.Endpoint == "" || o.s3.AccessKey == "" || o.s3.SecretKey == "" {
		t.Fatalf("scripts/services.sh start did not print every variable")
	}
	if got := env["EARSHOT_TEST_POSTGRES_DURABLE"]; got != pg {
		t.Fatalf("asked for EARSHOT_SERVICES_PG_DURABLE=%s, the cluster says EARSHOT_TEST_POSTGRES_DURABLE=%q", pg, got)
	}
	return o
}

// Postgres returns a fresh database on the cluster, dropped when t ends.
func (o *Own) Postgres(t testing.TB) string {
	t.Helper()
	return freshDatabase(t, o.postgres)
}

// S3 returns the server with a fresh bucket, removed when t ends.
func (o *Own) S3(t testing.TB) S3Config {
	t.Helper()
	return freshBucket(t, o.s3)
}

// CrashPostgres stops the cluster as a crash would (pg_ctl stop -m
// immediate: no checkpoint, connections cut); its data stays.
func (o *Own) CrashPostgres(t testing.TB) { o.must(t, "crash-postgres") }

// StartPostgres starts the cluster again on its port with its settings;
// it returns once the cluster accepts connections (after crash recovery).
func (o *Own) StartPostgres(t testing.TB) { o.must(t, "start-postgres") }

// KillS3 stops versitygw with SIGKILL; its data stays.
func (o *Own) KillS3(t testing.TB) { o.must(t, "kill-s3") }

// StartS3 starts versitygw again on its port with its keys and data; it
// returns once the port accepts connections.
func (o *Own) StartS3(t testing.TB) { o.must(t, "start-s3") }

func (o *Own) must(t testing.TB, cmd string) {
	t.Helper()
	if _, err := o.run(t, 2*time.Minute, nil, cmd, o.dir); err != nil {
		t.Fatal(err)
	}
}

func (o *Own) run(t testing.TB, limit time.Duration, env []string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, o.script, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// The servers it starts keep no copy of these pipes (their output goes
	// to log files); WaitDelay guards against one that does.
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("scripts/services.sh %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	t.Logf("%s", strings.TrimSpace(stderr.String()))
	return stdout.String(), nil
}

// parseExports reads the lines export NAME='value' that services.sh prints.
func parseExports(out string) map[string]string {
	env := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		name, value, ok := strings.Cut(strings.TrimPrefix(sc.Text(), "export "), "=")
		if ok {
			env[name] = strings.Trim(value, "'")
		}
	}
	return env
}

// servicesScript finds scripts/services.sh at the repository's root: the
// nearest directory up from the working directory (a test's package) that
// holds go.work (the workspace of Earshot's modules), or, built outside
// the workspace, the nearest with go.mod that has the script.
func servicesScript() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, "scripts", "services.sh")
		_, work := os.Stat(filepath.Join(dir, "go.work"))
		_, mod := os.Stat(filepath.Join(dir, "go.mod"))
		_, script := os.Stat(p)
		switch {
		case work == nil && script != nil:
			return "", fmt.Errorf("the workspace root %s has no scripts/services.sh: %v", dir, script)
		case (work == nil || mod == nil) && script == nil:
			return p, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no go.work or go.mod with scripts/services.sh above the working directory")
		}
		dir = up
	}
}
