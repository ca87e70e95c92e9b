package postgres

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/testservices"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/webhook"
)

// childURLEnv carries the database URL to TestLeaseHolderChild.
const childURLEnv = "EARSHOT_POSTGRES_LEASE_CHILD_URL"

const childApp = "earshot-lease-child"

// TestLeaseHolderChild runs as a separate process for TestKilledProcess:
// it claims the job and the delivery, then renews the job's lease in a
// tight loop (as a worker's heartbeat would, only faster) until it is
// killed.
func TestLeaseHolderChild(t *testing.T) {
	url := os.Getenv(childURLEnv)
	if url == "" {
		t.Skip("helper process for TestKilledProcess")
	}
	ctx := context.Background()
	s, err := Open(ctx, Config{URL: url, ApplicationName: childApp, MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ClaimJob(ctx, driver.Claim{Owner: "child", Now: t0, Lease: 30 * time.Second}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ClaimDelivery(ctx, webhook.Claim{Owner: "child", Now: t0, Lease: 30 * time.Second}); err != nil {
		t.Fatal(err)
	}
	fmt.Println("claimed")
	for i := 0; ; i++ {
		if err := s.ExtendLease(ctx, driver.Lease{ID: "job", Owner: "child", Until: t0.Add(30 * time.Second)}); err != nil {
			t.Fatal(err)
		}
		fmt.Println("beat", i)
	}
}

// A process killed with SIGKILL while it holds a lease (and, most likely,
// while one of its statements runs) loses its job and delivery to another
// process once the lease has run out: PostgreSQL ends its connections and
// releases whatever it had locked.
func TestKilledProcess(t *testing.T) {
	if os.Getenv(childURLEnv) != "" {
		t.Skip("in the child")
	}
	t.Parallel()
	url := testservices.Postgres(t)
	ctx := context.Background()
	s := openTest(t, url, "")
	mustCreate(t, s, queued("job", "p", 0))
	if err := s.AddDelivery(ctx, &webhook.Delivery{ID: "d", TranscriptID: "job", NextAttempt: t0}); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(os.Args[0], "-test.run=^TestLeaseHolderChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), childURLEnv+"="+url)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(out)
	beats := 0
	for beats < 50 && lines.Scan() {
		if strings.HasPrefix(lines.Text(), "beat ") {
			beats++
		}
	}
	if beats < 50 {
		t.Fatalf("child stopped after %d heartbeats: %v", beats, lines.Err())
	}
	// Keep reading, so that the child is busy renewing (not blocked on a
	// full pipe) when it is killed.
	go io.Copy(io.Discard, out)
	time.Sleep(50 * time.Millisecond)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	killed := time.Now()

	// While the lease holds, nobody gets the job.
	if r, err := s.ClaimJob(ctx, driver.Claim{Owner: "survivor", Now: t0.Add(30 * time.Second), Lease: time.Minute}); !errors.Is(err, transcribe.ErrNoJob) {
		t.Fatalf("claim while the dead process's lease holds: %+v, %v", r, err)
	}
	// Once it has run out, the survivor takes over. A row lock of the dead
	// process's last statement lasts until PostgreSQL notices the closed
	// connection, so allow a few seconds.
	var took *driver.Record
	for {
		took, err = s.ClaimJob(ctx, driver.Claim{Owner: "survivor", Now: t0.Add(30*time.Second + time.Microsecond), Lease: time.Minute})
		if err == nil || !errors.Is(err, transcribe.ErrNoJob) || time.Since(killed) > 10*time.Second {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("claim after the lease ran out: %v (%v after the kill)", err, time.Since(killed))
	}
	t.Logf("job taken over %v after the kill, after %d heartbeats", time.Since(killed).Round(time.Millisecond), beats)
	if took.ID != "job" || took.Claims != 2 || took.LeaseOwner != "survivor" {
		t.Errorf("taken over as %+v", took)
	}
	if d, err := s.ClaimDelivery(ctx, webhook.Claim{Owner: "survivor", Now: t0.Add(31 * time.Second), Lease: time.Minute}); err != nil || d.ID != "d" {
		t.Errorf("delivery after the lease ran out: %+v, %v", d, err)
	}
	if err := s.ExtendLease(ctx, driver.Lease{ID: "job", Owner: "child", Until: t0.Add(time.Hour)}); !errors.Is(err, transcribe.ErrLeaseLost) {
		t.Errorf("the dead owner's heartbeat after the takeover: %v, want ErrLeaseLost", err)
	}
	// The dead process's connections are gone.
	conn := admin(t, url)
	deadline := time.Now().Add(10 * time.Second)
	for {
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, childApp).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d connections of the killed process still open", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
