package sqlite

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

func claimAll(s *Store, owner string, out func(id string)) error {
	for {
		r, err := s.ClaimJob(context.Background(), driver.Claim{Owner: owner, Now: time.Now(), Lease: time.Hour})
		if errors.Is(err, transcribe.ErrNoJob) {
			return nil
		}
		if err != nil {
			return err
		}
		out(r.ID)
	}
}

func seedJobs(t *testing.T, path string, n int) {
	t.Helper()
	s := openTemp(t, Config{Path: path})
	defer s.Close()
	for i := range n {
		if err := s.Create(t.Context(), queued(fmt.Sprintf("job%04d", i))); err != nil {
			t.Fatal(err)
		}
	}
}

func checkClaims(t *testing.T, claims map[string][]string, n int) {
	t.Helper()
	if len(claims) != n {
		t.Errorf("%d of %d jobs claimed", len(claims), n)
	}
	for id, owners := range claims {
		if len(owners) != 1 {
			t.Errorf("job %s claimed by %v", id, owners)
		}
	}
}

// TestTwoHandles: two Stores on one file (as two processes would have)
// claim concurrently and never get the same job.
func TestTwoHandles(t *testing.T) {
	const jobs = 200
	path := filepath.Join(t.TempDir(), "earshot.db")
	seedJobs(t, path, jobs)
	var (
		mu     sync.Mutex
		claims = map[string][]string{}
		wg     sync.WaitGroup
	)
	for h := range 2 {
		s := openTemp(t, Config{Path: path})
		defer s.Close()
		for g := range 4 {
			owner := fmt.Sprintf("h%d/g%d", h, g)
			wg.Go(func() {
				err := claimAll(s, owner, func(id string) {
					mu.Lock()
					claims[id] = append(claims[id], owner)
					mu.Unlock()
				})
				if err != nil {
					t.Errorf("%s: %v", owner, err)
				}
			})
		}
	}
	wg.Wait()
	checkClaims(t, claims, jobs)
}

const childEnv = "EARSHOT_SQLITE_CLAIM_CHILD"

// TestClaimChild is run as a separate process by TestProcesses: it claims
// jobs from the database named in childEnv and prints their ids.
func TestClaimChild(t *testing.T) {
	path := os.Getenv(childEnv)
	if path == "" {
		t.Skip("helper process for TestProcesses")
	}
	s, err := Open(Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Report readiness and wait for the parent's go, so that the
	// processes claim at the same time.
	fmt.Println("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		t.Fatalf("waiting for the start signal: %v", err)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Go(func() {
			err := claimAll(s, fmt.Sprintf("pid%d/g%d", os.Getpid(), g), func(id string) {
				mu.Lock()
				fmt.Printf("claimed %s\n", id)
				mu.Unlock()
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

// TestProcesses: three processes share one database file and claim
// concurrently; no job is claimed twice.
func TestProcesses(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("in the child")
	}
	const jobs = 300
	path := filepath.Join(t.TempDir(), "earshot.db")
	seedJobs(t, path, jobs)
	claims := map[string][]string{}
	var (
		cmds   []*exec.Cmd
		outs   []*bufio.Scanner
		starts []io.WriteCloser
	)
	for range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestClaimChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), childEnv+"="+path)
		cmd.Stderr = os.Stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Process.Kill()
		cmds, starts = append(cmds, cmd), append(starts, stdin)
		outs = append(outs, bufio.NewScanner(stdout))
	}
	for i, sc := range outs {
		if !sc.Scan() || sc.Text() != "ready" {
			t.Fatalf("child %d did not get ready: %q %v", i, sc.Text(), sc.Err())
		}
	}
	for _, w := range starts {
		fmt.Fprintln(w, "go")
		w.Close()
	}
	perProc := make([]int, len(cmds))
	for i, sc := range outs {
		for sc.Scan() {
			if id, ok := strings.CutPrefix(sc.Text(), "claimed "); ok {
				claims[id] = append(claims[id], fmt.Sprint("process ", i))
				perProc[i]++
			}
		}
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("child %d: %v", i, err)
		}
	}
	t.Logf("claims per process: %v", perProc)
	checkClaims(t, claims, jobs)
}

func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashEnv)
	if path == "" {
		t.Skip("helper process for TestCrashRecovery")
	}
	s, err := Open(Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range 50 {
		r := queued(fmt.Sprintf("c%02d", i))
		if err := s.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.ClaimJob(ctx, driver.Claim{Owner: "doomed", Now: base, Lease: time.Minute}); err != nil {
		t.Fatal(err)
	}
	fmt.Println("written")
	time.Sleep(time.Minute) // killed before this ends
}

// TestCrashRecovery: a process killed with SIGKILL after its writes
// returned loses none of them, and its claimed job is reclaimed once the
// lease runs out.
func TestCrashRecovery(t *testing.T) {
	if os.Getenv(crashEnv) != "" {
		t.Skip("in the child")
	}
	path := filepath.Join(t.TempDir(), "earshot.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"="+path)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() || sc.Text() != "written" {
		cmd.Process.Kill()
		t.Fatalf("child did not finish writing: %q %v", sc.Text(), sc.Err())
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if _, err := os.Stat(path + "-wal"); err != nil {
		t.Logf("no WAL left behind: %v", err)
	}

	s := openTemp(t, Config{Path: path})
	defer s.Close()
	ctx := t.Context()
	recs, err := s.List(ctx, driver.ListQuery{ProjectID: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 50 {
		t.Fatalf("%d of 50 records survived the crash", len(recs))
	}
	got, err := s.Get(ctx, "c00")
	if err != nil || got.LeaseOwner != "doomed" || got.Status != transcribe.StatusProcessing {
		t.Fatalf("the crashed worker's job: %+v %v", got, err)
	}
	// Its lease runs out and another worker takes the job over.
	if j, err := s.ClaimJob(ctx, driver.Claim{Owner: "survivor", Now: base.Add(2 * time.Minute), Lease: time.Minute}); err != nil || j.ID != "c00" {
		t.Errorf("reclaim after the crash: %v %v", j, err)
	}
}

// TestGetDataIsOwned: the Data that Get hands out without database/sql's
// copy (sql.RawBytes) is the caller's: later reads, of the same record and
// of others, on every pooled connection, leave it as it was.
