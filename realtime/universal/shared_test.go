package universal

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/httpguard"
	"github.com/earshot-dev/earshot/realtime"
	"github.com/earshot-dev/earshot/realtime/realtimetest/streamtest"
)

// TestGuard: wrong keys and tokens on /v3/token and /v3/ws spend one
// failed-auth budget per address (the Guard the server shares with v2 and
// /v1); over it the token endpoint answers 429 with Retry-After and the
// WebSocket closes with 1013 before the credential is looked at, while a
// key that authenticated from the address before keeps working; each
// connection spends a request of its project's budget.
func TestGuard(t *testing.T) {
	t.Parallel()
	g, err := httpguard.New(httpguard.Config{AuthFailureRate: 0.001, AuthFailureBurst: 3, RateLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, ts := testServer(t, Config{Engine: engineConfig(&streamtest.FakeRecognizer{}), Guard: g})
	tokenStatus := func(key string) (int, string) {
		req, _ := http.NewRequest("GET", ts.URL+"/v3/token?expires_in_seconds=60", nil)
		req.Header.Set("Authorization", key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode, res.Header.Get("Retry-After")
	}
	if code, _ := tokenStatus("key-a"); code != 200 { // key-a known good before the attack
		t.Fatalf("key-a: %d", code)
	}
	if code, _ := tokenStatus("wrong"); code != 401 {
		t.Fatalf("wrong key: %d", code)
	}
	refused(t, dial(t, ts, "sample_rate=16000", "wrong"), 1008, "Invalid API key")
	refused(t, dial(t, ts, "sample_rate=16000&token=nope", ""), 1008, "Invalid temporary token")
	if code, retry := tokenStatus("wrong"); code != 429 || retry == "" {
		t.Fatalf("token endpoint over the limit: %d, Retry-After %q", code, retry)
	}
	refused(t, dial(t, ts, "sample_rate=16000", "wrong"), 1013, "failed authentications")
	refused(t, dial(t, ts, "sample_rate=16000", "key-b"), 1013, "failed authentications") // not known from here
	c := dial(t, ts, "sample_rate=16000", "key-a")
	c.until("Begin")
	c.text(`{"type":"Terminate"}`)
	if code, _, _ := c.closed(); code != 1000 {
		t.Fatalf("known key during the lockout: %d", code)
	}

	// The project's request budget: one connection allowed, the next 1013.
	g2, err := httpguard.New(httpguard.Config{RateLimit: 0.001, RateBurst: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, ts2 := testServer(t, Config{Engine: engineConfig(&streamtest.FakeRecognizer{}), Guard: g2})
	c = dial(t, ts2, "sample_rate=16000", "key-a")
	c.until("Begin")
	refused(t, dial(t, ts2, "sample_rate=16000", "key-a"), 1013, "rate limit of this project")
}

// TestSharedState: two Handlers (two processes) on one StateStore see the
// same tokens: a token minted on one starts a session on the other, once;
// the session's record is in the store, terminated at the end.
func TestSharedState(t *testing.T) {
	t.Parallel()
	st := realtime.NewMemoryState()
	h1, _ := testServer(t, Config{Engine: engineConfig(&streamtest.FakeRecognizer{}), State: st, ProcessID: "p1"})
	_, ts2 := testServer(t, Config{Engine: engineConfig(&streamtest.FakeRecognizer{}), State: st, ProcessID: "p2"})
	tok, err := h1.NewToken(context.Background(), "a", time.Minute, 0)
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, ts2, "sample_rate=16000&token="+tok, "")
	b, _ := c.until("Begin")
	id := b["id"].(string)
	rec, err := st.GetSession(context.Background(), id)
	if err != nil || rec.Owner != "p2" || rec.Project != "a" || rec.State != realtime.StateStreaming || rec.TokenHash != realtime.TokenHash(tok) {
		t.Fatalf("record %+v %v", rec, err)
	}
	c.send(streamtest.Silence(500, 16000))
	c.text(`{"type":"Terminate"}`)
	if code, _, _ := c.closed(); code != 1000 {
		t.Fatal(code)
	}
	rec, err = st.GetSession(context.Background(), id)
	if err != nil || rec.State != realtime.StateTerminated || rec.Attached || rec.AudioSamples != 8000 {
		t.Fatalf("record after the end %+v %v", rec, err)
	}
	refused(t, dial(t, ts2, "sample_rate=16000&token="+tok, ""), 1008, "already used")
	if !strings.HasSuffix(tok, ".0") {
		t.Errorf("token %q", tok)
	}
}

// countingAdmission admits every session with a ticket that counts calls.
type countingAdmission struct {
	mu                       sync.Mutex
	admits, leaves, releases int
	audio                    time.Duration
}

func (a *countingAdmission) Admit() (realtime.Ticket, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.admits++
	return countingTicket{a}, nil
}

type countingTicket struct{ a *countingAdmission }

func (countingTicket) Enter() {}
func (t countingTicket) Leave(c realtime.Call) {
	t.a.mu.Lock()
	t.a.leaves++
	t.a.audio += c.Audio
	t.a.mu.Unlock()
}
func (t countingTicket) Release() { t.a.mu.Lock(); t.a.releases++; t.a.mu.Unlock() }

// TestAdmissionMetersSessions: a v3 session takes a ticket of the shared
// Admission, reports its recognizer calls (the audio written) to it and
// releases it when it ends, as a v2 session does.
func TestAdmissionMetersSessions(t *testing.T) {
	t.Parallel()
	adm := &countingAdmission{}
	_, ts := testServer(t, Config{Engine: engineConfig(&streamtest.FakeRecognizer{}), Admission: adm})
	c := dial(t, ts, "sample_rate=16000", "key-a")
	c.until("Begin")
	for range 5 {
		c.send(streamtest.Silence(100, 16000))
	}
	c.text(`{"type":"Terminate"}`)
	if code, _, _ := c.closed(); code != 1000 {
		t.Fatal(code)
	}
	adm.mu.Lock()
	defer adm.mu.Unlock()
	if adm.admits != 1 || adm.releases != 1 || adm.leaves < 5 || adm.audio != 500*time.Millisecond {
		t.Fatalf("admission saw %+v", adm)
	}
}
