package webhook_test

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/webhookfakes"
	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
	"github.com/earshot-dev/earshot/webhook"
)

func newStartedNotifier(t *testing.T, redactedAudioURL func(string) string) *webhook.Notifier {
	st := memory.New()
	t.Cleanup(func() { st.Close() })
	key := transcribe.NewKey()
	n, err := webhook.New(webhook.Config{
		Queue: st, Key: key, AllowPrivate: true, RedactedAudioURL: redactedAudioURL,
		PollInterval: 10 * time.Millisecond, Logger: webhookfakes.QuietLogger(),
	})
	if err != nil {
		t.Fatal(err)
	}
	n.Start()
	t.Cleanup(func() { n.Close() })
	return n
}

func TestConformance(t *testing.T) {
	transcribetest.RunNotifierTests(t, func(t *testing.T, u func(string) string) transcribe.Notifier { return newStartedNotifier(t, u) })
}

// TestBrokenNotifierChild runs the suite on a Notifier that drops the
// webhook URL's query; TestSuiteCatchesBrokenNotifier expects it to fail.
func TestBrokenNotifierChild(t *testing.T) {
	if os.Getenv("EARSHOT_BROKEN_NOTIFIER") == "" {
		t.Skip("helper process for TestSuiteCatchesBrokenNotifier")
	}
	transcribetest.RunNotifierTests(t, func(t *testing.T, u func(string) string) transcribe.Notifier {
		n := newStartedNotifier(t, u)
		return transcribe.NotifierFunc(func(ctx context.Context, note transcribe.Notification) error {
			u, _ := url.Parse(note.URL)
			u.RawQuery = ""
			note.URL = u.String()
			return n.Notify(ctx, note)
		})
	})
}

func TestSuiteCatchesBrokenNotifier(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a subprocess")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestBrokenNotifierChild$/^TranscriptCompleted$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "EARSHOT_BROKEN_NOTIFIER=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("RunNotifierTests passed a Notifier that drops the query:\n%s", out)
	}
	if !strings.Contains(string(out), "query kept exactly") {
		t.Errorf("the suite failed for another reason:\n%s", out)
	}
}
