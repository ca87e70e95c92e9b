package e2e

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/testservices"
)

// Helpers for tests and benchmarks that run several server processes on
// one PostgreSQL and one S3 bucket (internal/testservices), behind a
// small load balancer, as a cluster would run.

// clusterEnv is the environment every process of one cluster shares: one
// database and bucket, one content key, one key set, one public URL (the
// balancer's).
type clusterEnv struct {
	DB     string
	S3     testservices.S3Config
	Key    string // EARSHOT_API_KEYS key of project "p"
	Public string // EARSHOT_PUBLIC_URL
	Extra  []string
	env    []string
}

func newClusterEnv(tb testing.TB, public string, extra ...string) *clusterEnv {
	tb.Helper()
	return newClusterEnvOn(testservices.Postgres(tb), testservices.S3(tb), public, extra...)
}

// newClusterEnvOn is newClusterEnv on the database db and the bucket s3.
func newClusterEnvOn(db string, s3 testservices.S3Config, public string, extra ...string) *clusterEnv {
	c := &clusterEnv{DB: db, S3: s3, Key: "cluster-key-0123456789abcdef", Public: public, Extra: extra}
	content := make([]byte, 32)
	_, _ = rand.Read(content)
	c.env = append([]string{
		"EARSHOT_DATABASE_URL=" + c.DB,
		"EARSHOT_S3_ENDPOINT=" + c.S3.Endpoint, "EARSHOT_S3_BUCKET=" + c.S3.Bucket, "EARSHOT_S3_REGION=" + c.S3.Region,
		"EARSHOT_S3_ACCESS_KEY=" + c.S3.AccessKey, "EARSHOT_S3_SECRET_KEY=" + c.S3.SecretKey,
		"EARSHOT_ENCRYPTION_KEY=" + hex.EncodeToString(content),
		"EARSHOT_API_KEYS=" + c.Key + ":p",
		"EARSHOT_PUBLIC_URL=" + public,
		"EARSHOT_ALLOW_PRIVATE_URLS=true",
		"EARSHOT_RATE_LIMIT=-1",
		"EARSHOT_LOG_LEVEL=info",
	}, extra...)
	return c
}

// node is one server process of a cluster.
type node struct {
	tb     testing.TB
	name   string
	Addr   string
	Data   string
	cmd    *exec.Cmd
	logMu  sync.Mutex
	log    bytes.Buffer
	exited chan struct{}
}

// startNode runs a server process with the cluster's environment, its
// own data directory and address, and extra settings; it returns once
// the process answers HTTP.
func startNode(tb testing.TB, c *clusterEnv, name, data, addr string, extra ...string) *node {
	tb.Helper()
	n := &node{tb: tb, name: name, Addr: addr, Data: data, exited: make(chan struct{})}
	n.cmd = exec.Command(serverBinary(tb))
	n.cmd.Env = append(append(append(os.Environ(), c.env...), "EARSHOT_ADDR="+addr, "EARSHOT_DATA="+data), extra...)
	pr, pw := io.Pipe()
	n.cmd.Stdout, n.cmd.Stderr = pw, pw
	if err := n.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			n.logMu.Lock()
			n.log.WriteString(sc.Text() + "\n")
			n.logMu.Unlock()
		}
		io.Copy(io.Discard, pr)
	}()
	go func() { n.cmd.Wait(); pw.Close(); close(n.exited) }()
	tb.Cleanup(func() {
		n.stop()
		if tb.Failed() {
			tb.Logf("log of %s:\n%s", n.name, n.logs())
		}
	})
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-n.exited:
			tb.Fatalf("%s exited early:\n%s", name, n.logs())
		default:
		}
		if res, err := http.Get("http://" + addr + "/v2/transcript"); err == nil {
			res.Body.Close()
			return n
		}
		time.Sleep(100 * time.Millisecond)
	}
	tb.Fatalf("%s did not start:\n%s", name, n.logs())
	return nil
}

func (n *node) logs() string {
	n.logMu.Lock()
	defer n.logMu.Unlock()
	return n.log.String()
}

// kill9 sends SIGKILL and waits for the process to be gone.
func (n *node) kill9() {
	_ = n.cmd.Process.Signal(syscall.SIGKILL)
	<-n.exited
}

func (n *node) stop() {
	select {
	case <-n.exited:
		return
	default:
	}
	_ = n.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-n.exited:
	case <-time.After(30 * time.Second):
		_ = n.cmd.Process.Kill()
		<-n.exited
	}
}

// finished returns, per transcript id, how many times this process
// logged that it stored a job's final state ("finished").
var finishedLine = regexp.MustCompile(`msg=finished id=([0-9a-f-]{36}) status=(\S+)`)

func (n *node) finished() map[string]int {
	out := map[string]int{}
	for _, m := range finishedLine.FindAllStringSubmatch(n.logs(), -1) {
		out[m[1]]++
	}
	return out
}

// claims returns the ids this process logged taking over from a worker
// that died (claim 2 or more).
var takeoverLine = regexp.MustCompile(`msg=processing id=([0-9a-f-]{36}) claim=([2-9]|[1-9][0-9])`)

func (n *node) takeovers() int { return len(takeoverLine.FindAllString(n.logs(), -1)) }

// busy reports whether the process's last claimed job has not finished.
var processingLine = regexp.MustCompile(`msg=processing id=([0-9a-f-]{36})`)

// lastProcessing is the id of the last job the process logged claiming.
func (n *node) lastProcessing() string {
	all := processingLine.FindAllStringSubmatch(n.logs(), -1)
	if len(all) == 0 {
		return ""
	}
	return all[len(all)-1][1]
}

func (n *node) busy() bool {
	logs := n.logs()
	all := processingLine.FindAllStringSubmatchIndex(logs, -1)
	if len(all) == 0 {
		return false
	}
	last := all[len(all)-1]
	id := logs[last[2]:last[3]]
	return !strings.Contains(logs[last[1]:], "msg=finished id="+id)
}

// balancer is a round-robin HTTP load balancer over the cluster's
// processes: a request that cannot connect to one process (down, or
// restarting) goes to the next, as a load balancer's health checks
// would arrange.
type balancer struct {
	srv      *httptest.Server
	mu       sync.Mutex
	backends []string
	next     int
	tr       *http.Transport
}

func newBalancer(tb testing.TB) *balancer {
	b := &balancer{tr: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.srv = httptest.NewServer(b)
	tb.Cleanup(func() { b.srv.Close(); b.tr.CloseIdleConnections() })
	return b
}

func (b *balancer) URL() string { return b.srv.URL }

func (b *balancer) set(backends ...string) {
	b.mu.Lock()
	b.backends = backends
	b.mu.Unlock()
}

func (b *balancer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	b.mu.Lock()
	backends := append([]string(nil), b.backends...)
	start := b.next
	b.next++
	b.mu.Unlock()
	var last error
	for i := range backends {
		out := r.Clone(r.Context())
		out.RequestURI = ""
		out.URL.Scheme, out.URL.Host = "http", backends[(start+i)%len(backends)]
		out.Body = io.NopCloser(bytes.NewReader(body))
		out.ContentLength = int64(len(body))
		res, err := b.tr.RoundTrip(out)
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			last = err
			continue // not reached: try the next process
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		for k, v := range res.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(res.StatusCode)
		io.Copy(w, res.Body)
		res.Body.Close()
		return
	}
	http.Error(w, fmt.Sprintf("no process answers: %v", last), http.StatusBadGateway)
}

// hookSink receives webhooks and counts them per transcript.
type hookSink struct {
	srv    *httptest.Server
	mu     sync.Mutex
	count  map[string]int
	status map[string]string
	total  int
}

func newHookSink(tb testing.TB) *hookSink {
	h := &hookSink{count: map[string]int{}, status: map[string]string{}}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			ID     string `json:"transcript_id"`
			Status string `json:"status"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.ID == "" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		h.mu.Lock()
		h.count[body.ID]++
		h.status[body.ID] = body.Status
		h.total++
		h.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	tb.Cleanup(h.srv.Close)
	return h
}

// distinct returns how many transcripts had at least one webhook.
func (h *hookSink) distinct() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.count)
}

// api is a minimal client of the v2 REST API.
type api struct {
	base, key string
	c         *http.Client
}

func (a api) do(ctx context.Context, method, path string, body io.Reader, out any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, body)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", a.key)
	res, err := a.c.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return res.StatusCode, err
	}
	if res.StatusCode != 200 {
		return res.StatusCode, fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return res.StatusCode, fmt.Errorf("%s %s: %v in %s", method, path, err, b)
		}
	}
	return res.StatusCode, nil
}

// upload uploads audio and submits it with a webhook; it returns the
// transcript id.
func (a api) submit(ctx context.Context, audio []byte, params map[string]any) (string, error) {
	var up struct {
		URL string `json:"upload_url"`
	}
	if _, err := a.do(ctx, "POST", "/v2/upload", bytes.NewReader(audio), &up); err != nil {
		return "", err
	}
	p := map[string]any{"audio_url": up.URL}
	for k, v := range params {
		p[k] = v
	}
	body, _ := json.Marshal(p)
	var tr struct{ ID string }
	if _, err := a.do(ctx, "POST", "/v2/transcript", bytes.NewReader(body), &tr); err != nil {
		return "", err
	}
	return tr.ID, nil
}

// listAll pages through GET /v2/transcript (newest first, following
// prev_url) and returns every entry's id and status, in page order.
func (a api) listAll(ctx context.Context, limit int) (ids []string, status map[string]string, pages int, err error) {
	status = map[string]string{}
	path := fmt.Sprintf("/v2/transcript?limit=%d", limit)
	for path != "" {
		var page struct {
			PageDetails struct {
				PrevURL *string `json:"prev_url"`
			} `json:"page_details"`
			Transcripts []struct {
				ID     string `json:"id"`
				Status string `json:"status"`
			} `json:"transcripts"`
		}
		if _, err := a.do(ctx, "GET", path, nil, &page); err != nil {
			return nil, nil, pages, err
		}
		pages++
		for _, t := range page.Transcripts {
			ids = append(ids, t.ID)
			status[t.ID] = t.Status
		}
		path = ""
		if p := page.PageDetails.PrevURL; p != nil && *p != "" && len(page.Transcripts) > 0 {
			path = strings.TrimPrefix(*p, a.base)
		}
		if pages > 10000 {
			return nil, nil, pages, errors.New("list does not end")
		}
	}
	return ids, status, pages, nil
}
