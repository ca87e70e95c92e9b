package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/earshot-dev/earshot/internal/testservices"
)

// Settings of TestChaosStoreOutages.
const (
	chaosJobs         = 72
	chaosEvery        = 600 * time.Millisecond // one job submitted per interval
	chaosStoreTimeout = 3 * time.Second        // EARSHOT_STORE_TIMEOUT
	// chaosAnswerLimit is the slowest answer a client may get: the store
	// timeout, then the time a loaded 2-core machine may take to write it.
	chaosAnswerLimit = chaosStoreTimeout + 5*time.Second
	chaosDown        = 15 * time.Second // each outage
)

// TestChaosStoreOutages (issue 25) is the outage test: three server
// processes (two workers each) on one PostgreSQL cluster and one S3 server
// (versitygw) of the test's own, the cluster crash-safe. Jobs of short
// real speech arrive at a steady rate, half uploads and half audio_url,
// each with a webhook to a loopback receiver, while a poller reads
// transcripts and the list; under that load PostgreSQL is crashed
// (pg_ctl stop -m immediate) and started again 15 s later, then the S3
// server is killed and started again 15 s later. Clients retry a 5xx or a
// missing answer with the same Idempotency-Key, as the SDKs do, and treat
// a 4xx as final.
//
// Afterwards: every job completed, its completion stored once and the job
// claimed once (the outages are interruptions, not attempts), each
// submission made exactly one transcript (no orphan from a retried
// create), every final webhook arrived (duplicates counted and reported),
// no delivery is left pending; and every answer a client got during the
// outages was 200 or a 503 with Retry-After and a reason, none slower
// than the store timeout plus a margin, none missing, no 4xx.
func TestChaosStoreOutages(t *testing.T) {
	t.Parallel()
	own := testservices.StartOwn(t, true)
	clips := shortClips(t)
	hooks := newHookSink(t)
	media := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var i int
		if _, err := fmt.Sscanf(r.URL.Path, "/clip/%d.wav", &i); err != nil || i < 0 || i >= len(clips) {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "audio/wav")
		w.Write(clips[i])
	}))
	t.Cleanup(media.Close)
	lb := newBalancer(t)
	env := newClusterEnvOn(own.Postgres(t), own.S3(t), lb.URL(), "EARSHOT_WORKERS=2", "EARSHOT_STREAM_DECODERS=1",
		"EARSHOT_STORE_TIMEOUT="+chaosStoreTimeout.String(), "EARSHOT_WEBHOOK_RETRY_INTERVAL=1s")
	nodes := make([]*node, 3)
	var wg sync.WaitGroup
	for i := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nodes[i] = startNode(t, env, fmt.Sprint("process-", i), t.TempDir(), freeAddr(t))
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	lb.set(nodes[0].Addr, nodes[1].Addr, nodes[2].Addr)
	// The client's own timeout is far past chaosAnswerLimit: a slow answer
	// is measured, not cut.
	cl := &chaosClient{base: lb.URL(), key: env.Key, hc: &http.Client{Timeout: 30 * time.Second}, phase: "before"}
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()

	// Submissions at a steady rate, each in its own goroutine so that one
	// waiting out an outage does not hold the next back.
	ids := make([]string, chaosJobs)
	subErrs := make([]error, chaosJobs)
	var idsMu sync.Mutex
	submitted := func() []string {
		idsMu.Lock()
		defer idsMu.Unlock()
		var out []string
		for _, id := range ids {
			if id != "" {
				out = append(out, id)
			}
		}
		return out
	}
	start := time.Now()
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(chaosEvery)
		defer tick.Stop()
		for i := range chaosJobs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				id, err := chaosSubmit(ctx, cl, i, clips, media.URL, hooks.srv.URL)
				idsMu.Lock()
				ids[i], subErrs[i] = id, err
				idsMu.Unlock()
			}()
			<-tick.C
		}
	}()
	// A poller reads a known transcript and a page of the list, in turn.
	pollCtx, stopPoll := context.WithCancel(ctx)
	pollDone := make(chan struct{})
	go func() {
		defer close(pollDone)
		for n := 0; pollCtx.Err() == nil; n++ {
			if known := submitted(); n%2 == 0 && len(known) > 0 {
				cl.once(pollCtx, "get", "GET", "/v2/transcript/"+known[rand.IntN(len(known))], nil, "")
			} else {
				cl.once(pollCtx, "list", "GET", "/v2/transcript?limit=5", nil, "")
			}
			select {
			case <-pollCtx.Done():
			case <-time.After(250 * time.Millisecond):
			}
		}
	}()

	// The outages, under load.
	at := func(d time.Duration) { time.Sleep(time.Until(start.Add(d))) }
	at(8 * time.Second)
	// The crash lands while jobs run, so that their results are written
	// during the outage.
	for busy := 0; busy < 2 && time.Since(start) < 20*time.Second; time.Sleep(5 * time.Millisecond) {
		busy = 0
		for _, n := range nodes {
			if n.busy() {
				busy++
			}
		}
	}
	cl.setPhase("postgres down")
	pgDown := time.Since(start)
	own.CrashPostgres(t)
	hooksAtCrash := hooks.distinct()
	time.Sleep(chaosDown)
	own.StartPostgres(t)
	cl.setPhase("postgres back")
	pgUp := time.Since(start)
	at(pgUp + 8*time.Second)
	cl.setPhase("s3 down")
	s3Down := time.Since(start)
	own.KillS3(t)
	time.Sleep(chaosDown)
	own.StartS3(t)
	cl.setPhase("after")
	s3Up := time.Since(start)

	wg.Wait() // every submission answered (or given up)
	allSubmitted := time.Since(start)
	for i, err := range subErrs {
		if err != nil {
			t.Errorf("job %d was not submitted: %v", i, err)
		}
	}
	if t.Failed() {
		stopPoll()
		<-pollDone
		t.FailNow()
	}
	for hooks.distinct() < chaosJobs && ctx.Err() == nil {
		time.Sleep(200 * time.Millisecond)
	}
	allHooks := time.Since(start)
	stopPoll()
	<-pollDone

	// Every answer during the outages was clear and quick.
	problems, summary := cl.judge(chaosAnswerLimit)
	for _, p := range problems[:min(len(problems), 30)] {
		t.Error(p)
	}
	if len(problems) > 30 {
		t.Errorf("... and %d more", len(problems)-30)
	}

	// Every job completed, stored once and claimed once, on every
	// process's view; each submission is one transcript.
	logs := ""
	finished := map[string]int{}
	for _, n := range nodes {
		logs += n.logs()
		for id, c := range n.finished() {
			finished[id] += c
		}
	}
	want := map[string]bool{}
	claimsTotal := 0
	for i, id := range ids {
		if want[id] {
			t.Errorf("job %d: transcript %s was already another job's", i, id)
		}
		want[id] = true
		if finished[id] != 1 {
			t.Errorf("job %d (%s): %d stored completions, want 1", i, id, finished[id])
		}
		claims := len(regexp.MustCompile(`msg=processing id=`+id+` `).FindAllString(logs, -1))
		claimsTotal += claims
		if claims != 1 {
			t.Errorf("job %d (%s): claimed %d times, want once (an outage is not an attempt)", i, id, claims)
		}
		for _, n := range nodes {
			var tr struct {
				Status string  `json:"status"`
				Error  *string `json:"error"`
			}
			if _, err := (api{base: "http://" + n.Addr, key: env.Key, c: http.DefaultClient}).do(ctx, "GET", "/v2/transcript/"+id, nil, &tr); err != nil {
				t.Errorf("job %d on %s: %v", i, n.name, err)
			} else if tr.Status != "completed" {
				t.Errorf("job %d (%s) on %s: %s (%s)", i, id, n.name, tr.Status, deref(tr.Error))
			}
		}
	}

	// Every final webhook arrived; none is left to deliver.
	db, err := pgx.Connect(ctx, env.DB)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	var records, pending int
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if err := db.QueryRow(ctx, `SELECT (SELECT count(*) FROM earshot.transcripts),
			(SELECT count(*) FROM earshot.deliveries WHERE NOT done)`).Scan(&records, &pending); err != nil {
			t.Fatal(err)
		}
		if pending == 0 || time.Now().After(deadline) {
			break
		}
	}
	if records != chaosJobs || pending != 0 {
		t.Errorf("database: %d transcripts (a retried create made an orphan?), %d pending deliveries; want %d, 0", records, pending, chaosJobs)
	}
	hooks.mu.Lock()
	dups, total := 0, hooks.total
	for i, id := range ids {
		switch {
		case hooks.count[id] == 0:
			t.Errorf("job %d (%s): no webhook", i, id)
		case hooks.status[id] != "completed":
			t.Errorf("job %d (%s): webhook status %q", i, id, hooks.status[id])
		}
		dups += max(hooks.count[id]-1, 0)
	}
	for id := range hooks.count {
		if !want[id] {
			t.Errorf("webhook for a transcript no client was given: %s", id)
		}
	}
	hooks.mu.Unlock()

	waits := len(regexp.MustCompile(`msg="waiting for an outage to end"`).FindAllString(logs, -1))
	// Results whose write failed while the database was down and that
	// their worker stored once it was back.
	storedLater := len(regexp.MustCompile(`msg="the result was stored( on a later try|; its reply was lost)`).FindAllString(logs, -1))
	if storedLater == 0 {
		t.Error("no worker stored a job's result after PostgreSQL came back: the crash did not land while jobs ran, or their results were given up")
	}
	t.Logf("%d jobs on 3 processes (PostgreSQL crash-safe: %v): PostgreSQL crashed at %v (%d webhooks in), back at %v; S3 killed at %v, back at %v; all submitted at %v, all webhooks at %v",
		chaosJobs, own.Durable, pgDown.Round(time.Millisecond), hooksAtCrash, pgUp.Round(time.Millisecond), s3Down.Round(time.Millisecond),
		s3Up.Round(time.Millisecond), allSubmitted.Round(time.Millisecond), allHooks.Round(time.Millisecond))
	t.Logf("completions stored once: %d of %d; claims %d; results stored after the database came back %d; webhooks %d for %d transcripts (%d duplicates); %d blob store outage waits logged by workers",
		countOnce(finished, ids), chaosJobs, claimsTotal, storedLater, total, len(hooks.count), dups, waits)
	t.Logf("client answers per phase (limit %v):\n%s", chaosAnswerLimit, strings.Join(summary, "\n"))
}

// chaosSubmit submits job i: even jobs upload their clip first, odd ones
// give the media server's URL; both with a webhook. Each request carries
// an Idempotency-Key of its own, kept across its retries.
func chaosSubmit(ctx context.Context, cl *chaosClient, i int, clips [][]byte, mediaURL, hookURL string) (string, error) {
	audio := fmt.Sprintf("%s/clip/%d.wav", mediaURL, i%len(clips))
	if i%2 == 0 {
		var up struct {
			URL string `json:"upload_url"`
		}
		if err := cl.retry(ctx, "upload", "POST", "/v2/upload", clips[i%len(clips)], fmt.Sprintf("chaos-upload-%d", i), &up); err != nil {
			return "", err
		}
		audio = up.URL
	}
	body, _ := json.Marshal(map[string]any{"audio_url": audio, "webhook_url": fmt.Sprintf("%s/hook?job=%d", hookURL, i)})
	var tr struct {
		ID string `json:"id"`
	}
	if err := cl.retry(ctx, "create", "POST", "/v2/transcript", body, fmt.Sprintf("chaos-create-%d", i), &tr); err != nil {
		return "", err
	}
	if tr.ID == "" {
		return "", fmt.Errorf("job %d: no id", i)
	}
	return tr.ID, nil
}

func countOnce(m map[string]int, ids []string) int {
	n := 0
	for _, id := range ids {
		if m[id] == 1 {
			n++
		}
	}
	return n
}
