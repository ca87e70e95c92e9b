package webhook_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/webhookfakes"
	"github.com/earshot-dev/earshot/storage/sqlite"
	"github.com/earshot-dev/earshot/webhook"
)

func openSQLite(t *testing.T, path string) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(sqlite.Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestSQLiteRetrySurvivesReopen(t *testing.T) {
	e := webhookfakes.NewEnv(t)
	path := filepath.Join(t.TempDir(), "earshot.db")
	rcv := webhookfakes.NewReceiver(t, e.Clock, 500, 200)

	st := openSQLite(t, path)
	e.Store = webhookfakes.NewRecordingStore(st, 100)
	a := e.Notifier(t, nil)
	note := webhookfakes.Completed("tr-sqlite", rcv.URL+"?a=1&b=2")
	note.HeaderName, note.HeaderValue = "X-Hook-Key", "k3y"
	if err := a.Notify(context.Background(), note); err != nil {
		t.Fatal(err)
	}
	webhookfakes.DeliverDue(t, a, 1)
	a.Close()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st2 := openSQLite(t, path)
	defer st2.Close()
	e.Store = webhookfakes.NewRecordingStore(st2, 100)
	b := e.Notifier(t, nil)
	e.Clock.Advance(10*time.Second - time.Millisecond)
	webhookfakes.DeliverDue(t, b, 0)
	e.Clock.Advance(time.Millisecond)
	webhookfakes.DeliverDue(t, b, 1)
	e.Clock.Advance(time.Hour)
	webhookfakes.DeliverDue(t, b, 0)
	hits := rcv.Hits()
	if len(hits) != 2 || hits[1].Query != "a=1&b=2" || hits[1].Header.Get("X-Hook-Key") != "k3y" || hits[1].Replied != 200 {
		t.Errorf("hits after reopen: %+v", hits)
	}
}

// TestKill9Child is the process that gets killed by TestKill9Durability.
func TestKill9Child(t *testing.T) {
	db := os.Getenv("EARSHOT_WEBHOOK_CHILD_DB")
	if db == "" {
		t.Skip("helper process for TestKill9Durability")
	}
	key, err := hex.DecodeString(os.Getenv("EARSHOT_WEBHOOK_CHILD_KEY"))
	if err != nil {
		t.Fatal(err)
	}
	st := openSQLite(t, db)
	n, err := webhook.New(webhook.Config{
		Queue: st, Key: key, AllowPrivate: true, Owner: "child",
		Timeout: time.Second, Lease: 2 * time.Second, PollInterval: 10 * time.Millisecond,
		Policy: webhook.Policy{Backoff: webhook.ConstantBackoff(300 * time.Millisecond)},
		Logger: webhookfakes.QuietLogger(),
	})
	if err != nil {
		t.Fatal(err)
	}
	note := webhookfakes.Completed("tr-kill9", os.Getenv("EARSHOT_WEBHOOK_CHILD_URL"))
	note.HeaderName, note.HeaderValue = "Authorization", "Bearer child-secret"
	if err := n.Notify(context.Background(), note); err != nil {
		t.Fatal(err)
	}
	n.Run(context.Background()) // until killed
}

// TestKill9Durability kills a dispatching process with SIGKILL while an
// attempt is in flight and checks that a new process on the same SQLite
// file takes the delivery over once the dead process's lease expires.
func TestKill9Durability(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a subprocess")
	}
	e := webhookfakes.NewEnv(t)
	path := filepath.Join(t.TempDir(), "earshot.db")
	st := openSQLite(t, path) // creates the schema before the child starts
	defer st.Close()
	rcv := webhookfakes.NewReceiver(t, e.Clock, 500, 0, 200)
	arrived := make(chan int, 10)
	release := make(chan struct{})
	defer close(release)
	rcv.SetIntercept(func(w http.ResponseWriter, r *http.Request) bool {
		rcv.Mu.Lock()
		n := len(rcv.Seen) + 1
		rcv.Mu.Unlock()
		arrived <- n
		if n != 2 {
			return false // attempt 1 gets 500, attempt 3 gets 200
		}
		// Attempt 2 hangs: the child is killed while it waits.
		io.Copy(io.Discard, r.Body)
		rcv.Mu.Lock()
		rcv.Seen = append(rcv.Seen, webhookfakes.Hit{Method: r.Method})
		rcv.Mu.Unlock()
		select {
		case <-release:
		case <-r.Context().Done():
		}
		return true
	})

	cmd := exec.Command(os.Args[0], "-test.run=^TestKill9Child$", "-test.count=1")
	cmd.Env = append(os.Environ(),
		"EARSHOT_WEBHOOK_CHILD_DB="+path,
		"EARSHOT_WEBHOOK_CHILD_KEY="+hex.EncodeToString(e.Key),
		"EARSHOT_WEBHOOK_CHILD_URL="+rcv.URL+"/hook?job=9",
	)
	out := &webhookfakes.LogBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitAttempt := func(want int) {
		t.Helper()
		select {
		case n := <-arrived:
			if n != want {
				t.Fatalf("attempt %d arrived, want %d", n, want)
			}
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("attempt %d did not arrive; child output:\n%s", want, out.String())
		}
	}
	waitAttempt(1)
	waitAttempt(2)
	killedAt := time.Now()
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	cmd.Wait()

	b, err := webhook.New(webhook.Config{
		Queue: st, Key: e.Key, AllowPrivate: true, Owner: "parent",
		PollInterval: 20 * time.Millisecond, Logger: webhookfakes.QuietLogger(), OnStatus: e.Status.OnStatus,
	})
	if err != nil {
		t.Fatal(err)
	}
	b.Start()
	defer b.Close()
	waitAttempt(3)
	t.Logf("taken over %v after the kill (child lease 2s)", time.Since(killedAt).Round(time.Millisecond))
	b.Close()
	hits := rcv.Hits()
	if len(hits) != 3 {
		t.Fatalf("%d attempts, want 3", len(hits))
	}
	last := hits[2]
	if last.Query != "job=9" || last.Header.Get("Authorization") != "Bearer child-secret" ||
		last.Body != `{"transcript_id":"tr-kill9","status":"completed"}` {
		t.Errorf("attempt after takeover: %+v", last)
	}
	if got := fmt.Sprint(e.Status.Calls()); got != "[{tr-kill9 200}]" {
		t.Errorf("parent OnStatus calls %s", got)
	}
	if n, err := b.DeliverDue(context.Background()); err != nil || n != 0 {
		t.Errorf("after delivery: DeliverDue = %d, %v", n, err)
	}
}
