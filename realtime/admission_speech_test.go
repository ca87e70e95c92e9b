package realtime

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/earshot-dev/earshot/adapters/isolate"
	"github.com/earshot-dev/earshot/realtime/realtimetest/streamtest"
)

// The admission scenario runs the server as it runs in production:
// pocketsphinx in isolated worker processes, the default LoadAdmission,
// flite speech streamed at real time in 100 ms chunks over loopback
// WebSockets. Sessions are opened one at a time, each after the
// admission has measured the ones before it, until one is refused; the
// admitted ones go on streaming for a while, then all end, and the
// workers are left to reach their idle timeout.
//
// Everything it reports is measured in the same run: the CPU cost of a
// session (this process and its worker processes, from /proc) while it
// streams alone, the final-transcript latency of that lone session, the
// same latencies once all admitted sessions run, the time to the refusal,
// and the resident memory of this process plus its workers when idle
// before the sessions, at their peak, and after the idle timeout.

// scenarioConfig tunes runAdmissionScenario.
type scenarioConfig struct {
	MaxSessions int           // stop opening sessions here, refused or not
	Step        time.Duration // between two session openings
	Alone       time.Duration // the first session streams alone this long
	Hold        time.Duration // admitted sessions stream this long after the refusal
	IdleTimeout time.Duration // the workers' (isolate.Config.IdleTimeout)
}

type scenarioResult struct {
	Load        float64 // 1-minute load average at the start
	Cores       int
	CPUCost     float64 // CPU-seconds per audio second of the lone session (process + workers)
	AloneCost   float64 // the admission's measured cost with the lone session
	AloneFinal  time.Duration
	Admitted    int
	Refused     bool
	RefusedIn   time.Duration // dial to close frame
	RefusalCode websocket.StatusCode
	RefusalText string // the {"error"} message
	Reason      string // the close reason
	Stats       LoadStats

	// Per admitted session: the median final latency over the finals
	// whose pause ended once all admitted sessions were streaming, the
	// session's errors, and terminate_session -> SessionTerminated.
	Finals     []time.Duration
	AllFinals  []time.Duration // every such final of every session
	Terminated []time.Duration
	Errs       []error

	IdleRSS, PeakRSS, AfterRSS int64
	AfterWait                  time.Duration // from the end of the sessions to all workers gone
	Workers                    int           // workers alive at the peak
}

// streamer streams pcm at real time in 100 ms chunks until the audio
// ends or stop is closed, then terminates the session.
type streamer struct {
	run   clipRun
	began time.Time
}

// streamUntil streams pcm over c, a session that has begun, at real-time
// speed in 100 ms chunks until pcm ends or stop is closed (nil: never),
// then terminates the session and records what came back and when.
func streamUntil(ctx context.Context, c *websocket.Conn, pcm []byte, stop <-chan struct{}) clipRun {
	var r clipRun
	defer c.CloseNow()
	var mu sync.Mutex
	termAt := make(chan time.Time, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			_, b, err := c.Read(ctx)
			if err != nil {
				return
			}
			var rm recvMsg
			rm.at = time.Now()
			var head struct {
				MessageType string `json:"message_type"`
			}
			_ = json.Unmarshal(b, &head)
			rm.typ = head.MessageType
			_ = json.Unmarshal(b, &rm.m)
			mu.Lock()
			r.msgs = append(r.msgs, rm)
			mu.Unlock()
			if rm.typ == "SessionTerminated" {
				termAt <- rm.at
			}
		}
	}()
	start := time.Now()
loop:
	for i, ch := range streamtest.Chunks(pcm, 100, 16000) {
		select {
		case <-stop:
			break loop
		case <-time.After(time.Until(start.Add(time.Duration(i) * 100 * time.Millisecond))):
		}
		mu.Lock()
		r.sent = append(r.sent, time.Now())
		mu.Unlock()
		if err := c.Write(ctx, websocket.MessageBinary, ch); err != nil {
			r.err = err
			return r
		}
	}
	t := time.Now()
	if err := c.Write(ctx, websocket.MessageText, []byte(`{"terminate_session":true}`)); err != nil {
		r.err = err
		return r
	}
	select {
	case at := <-termAt:
		r.terminated = at.Sub(t)
	case <-ctx.Done():
		r.err = ctx.Err()
	}
	<-done
	mu.Lock()
	defer mu.Unlock()
	return r
}

// finalsAfter returns the final latencies of r whose pause ended after
// from (on the sending clock).
func (r clipRun) finalsAfter(flags []bool, from time.Time) []time.Duration {
	_, all, _ := r.latenciesAt(flags)
	var out []time.Duration
	for _, f := range all {
		if f.sent.After(from) {
			out = append(out, f.d)
		}
	}
	return out
}

type finalAt struct {
	sent time.Time // when the chunk ending the pause was sent
	d    time.Duration
}

// latenciesAt is latencies with the send time of each final's pause-end
// chunk.
func (r clipRun) latenciesAt(flags []bool) ([]time.Duration, []finalAt, int) {
	partial, finals, missed := r.latencies(flags)
	// latencies appends finals in message order; recompute their chunks.
	var out []finalAt
	k := 0
	for _, f := range r.msgs {
		if f.typ != "FinalTranscript" || k >= len(finals) {
			continue
		}
		last := -1
		for j := int(min(int64(len(flags)-1), (f.m.AudioEnd+300)/10)); j >= 0; j-- {
			if flags[j] {
				last = j
				break
			}
		}
		if last < 0 {
			continue
		}
		pauseEnd := int64(last+1)*10 + DefaultSilenceThreshold.Milliseconds()
		i := int(pauseEnd / 100)
		if i < 0 || i >= len(r.sent) || pauseEnd >= int64(len(r.sent))*100 {
			continue
		}
		out = append(out, finalAt{sent: r.sent[i], d: f.at.Sub(r.sent[i])})
		k++
	}
	return partial, out, missed
}

// dialSession opens a session. When it begins it returns the connection;
// when it is refused, how long the refusal took, its close code and
// reason, and the error text sent before it.
func dialSession(ctx context.Context, url string) (c *websocket.Conn, r refusal, err error) {
	t0 := time.Now()
	c, _, err = websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"key-a"}}})
	if err != nil {
		return nil, r, err
	}
	for {
		_, b, rerr := c.Read(ctx)
		if rerr != nil {
			c.CloseNow()
			var ce websocket.CloseError
			if !errors.As(rerr, &ce) {
				return nil, r, rerr
			}
			r.took, r.code, r.reason = time.Since(t0), ce.Code, ce.Reason
			return nil, r, nil
		}
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		if m["message_type"] == "SessionBegins" {
			return c, r, nil
		}
		if s, ok := m["error"].(string); ok {
			r.text = s
		}
	}
}

type refusal struct {
	took   time.Duration
	code   websocket.StatusCode
	reason string
	text   string
}

func runAdmissionScenario(t testing.TB, sc scenarioConfig) scenarioResult {
	t.Helper()
	res := scenarioResult{Load: loadAvg()}
	rec := isolatedRecognizer(t, sc.MaxSessions+1, sc.IdleTimeout)
	adm, err := NewLoadAdmission(LoadAdmissionConfig{})
	if err != nil {
		t.Fatal(err)
	}
	res.Cores = adm.cfg.Cores
	h, err := NewHandler(Config{Recognizer: rec, Authenticate: authKeys, MaxSessionsPerProject: 1000, Admission: adm})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.Close()
		h.Close()
	})
	url := "ws" + strings.TrimPrefix(ts.URL, "http") + "/v2/realtime/ws"

	// Enough speech for the longest run: sentences with pauses.
	total := sc.Alone + time.Duration(sc.MaxSessions)*sc.Step + sc.Hold + 5*time.Second
	pcm, flags := benchClip(t, int(total/(3500*time.Millisecond))+1)

	// Idle: the worker New started has reached its idle timeout.
	waitWorkers(t, rec, 0, sc.IdleTimeout+10*time.Second)
	res.IdleRSS = readTree().RSS

	ctx, cancel := context.WithTimeout(context.Background(), total+time.Minute)
	defer cancel()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var runs []*streamer
	var peak struct {
		sync.Mutex
		rss     int64
		workers int
	}
	sample := func() {
		tr := readTree()
		peak.Lock()
		if tr.RSS > peak.rss {
			peak.rss, peak.workers = tr.RSS, tr.Children
		}
		peak.Unlock()
	}
	// open opens a session and, when it begins, streams on it.
	open := func() (bool, refusal) {
		c, ref, err := dialSession(ctx, url)
		if err != nil {
			t.Fatalf("session %d: %v", len(runs)+1, err)
		}
		if c == nil {
			return false, ref
		}
		s := &streamer{began: time.Now()}
		runs = append(runs, s)
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.run = streamUntil(ctx, c, pcm, stop)
		}()
		return true, ref
	}
	watch := func(d time.Duration) {
		for end := time.Now().Add(d); time.Now().Before(end); {
			time.Sleep(250 * time.Millisecond)
			sample()
		}
	}

	// The first session alone: the baseline cost and latency.
	if ok, ref := open(); !ok {
		t.Fatalf("first session refused: %+v", ref)
	}
	t0, w0 := readTree(), time.Now()
	watch(sc.Alone)
	res.CPUCost = (readTree().CPU - t0.CPU).Seconds() / time.Since(w0).Seconds()
	res.AloneCost = adm.Stats().Cost
	aloneEnd := time.Now()

	// More sessions, one per Step, until one is refused.
	for len(runs) < sc.MaxSessions {
		ok, ref := open()
		if !ok {
			res.Refused, res.RefusedIn, res.RefusalCode, res.Reason, res.RefusalText = true, ref.took, ref.code, ref.reason, ref.text
			break
		}
		watch(sc.Step)
	}
	res.Admitted = len(runs)
	res.Stats = adm.Stats()
	full := time.Now() // every admitted session is streaming from here
	watch(sc.Hold)
	close(stop)
	wg.Wait()
	ended := time.Now()

	for i, s := range runs {
		res.Errs = append(res.Errs, s.run.err)
		res.Terminated = append(res.Terminated, s.run.terminated)
		if i == 0 {
			var alone []time.Duration
			_, all, _ := s.run.latenciesAt(flags)
			for _, f := range all {
				if f.sent.Before(aloneEnd) {
					alone = append(alone, f.d)
				}
			}
			res.AloneFinal = quantile(alone, 0.5)
		}
		f := s.run.finalsAfter(flags, full)
		res.AllFinals = append(res.AllFinals, f...)
		res.Finals = append(res.Finals, quantile(f, 0.5))
	}
	peak.Lock()
	res.PeakRSS, res.Workers = peak.rss, peak.workers
	peak.Unlock()

	waitWorkers(t, rec, 0, sc.IdleTimeout+15*time.Second)
	res.AfterWait = time.Since(ended)
	res.AfterRSS = readTree().RSS
	return res
}

// waitWorkers waits until rec has n worker processes, and the processes
// it stopped have exited.
func waitWorkers(t testing.TB, rec *isolate.Recognizer, n int, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for rec.Stats().Processes != n || readTree().Children != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d worker processes after %v, want %d", rec.Stats().Processes, limit, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// log prints the scenario's figures, each against its baseline.
func (r scenarioResult) log(t testing.TB) {
	t.Helper()
	mb := func(b int64) float64 { return float64(b) / (1 << 20) }
	t.Logf("machine: %d cores, load average %.1f at the start", r.Cores, r.Load)
	target := 0.9 * float64(r.Cores) / r.CPUCost
	t.Logf("cost of one session alone: %.3f CPU-s per audio-s (this process and its workers); the admission measured %.3f (the session's own CPU in its recognizer calls)", r.CPUCost, r.AloneCost)
	t.Logf("admitted %d sessions, then refused the next: %v (close %d %q, %q) in %v",
		r.Admitted, r.Refused, r.RefusalCode, r.Reason, r.RefusalText, r.RefusedIn.Round(time.Millisecond))
	t.Logf("  sessions kept / (0.9 x cores / CPU cost = %.1f): %.2f; / (0.9 x cores / measured cost = %.1f): %.2f",
		target, float64(r.Admitted)/target, 0.9*float64(r.Cores)/r.AloneCost, float64(r.Admitted)/(0.9*float64(r.Cores)/r.AloneCost))
	t.Logf("  refusal time / 1 s: %.2f", r.RefusedIn.Seconds())
	t.Logf("  admission at the refusal: %d live, capacity %d, cost %.3f, other work %.2f cores, slowest call per utterance %v (late %v)",
		r.Stats.Live, r.Stats.Capacity, r.Stats.Cost, r.Stats.External, r.Stats.Final.Round(time.Millisecond), r.Stats.Late)
	med := quantile(r.AllFinals, 0.5)
	t.Logf("final latency, lone session (baseline): %v median", r.AloneFinal)
	t.Logf("final latency with all %d admitted sessions: %v median of %d finals (/ 300 ms: %.2f; / lone baseline: %.2f); per session %v; terminate->SessionTerminated %v",
		r.Admitted, med, len(r.AllFinals), med.Seconds()/0.3, med.Seconds()/r.AloneFinal.Seconds(), r.Finals, r.Terminated)
	t.Logf("memory (this process + workers): idle %.0f MB, peak %.0f MB with %d workers, %v after the sessions ended %.0f MB (after - idle = %.1f MB; / 50 MB: %.2f)",
		mb(r.IdleRSS), mb(r.PeakRSS), r.Workers, r.AfterWait.Round(100*time.Millisecond), mb(r.AfterRSS), mb(r.AfterRSS-r.IdleRSS), mb(r.AfterRSS-r.IdleRSS)/50)
}

// TestAdmissionRealSpeech streams real speech through isolated
// pocketsphinx workers, opening sessions until the default LoadAdmission
// refuses one: the refusal is a 1013 close within a second, the sessions
// it admitted keep up with real time while it refuses, and once they end
// the workers stop and the memory returns to within 50 MB of the idle
// server's. The figures (see runAdmissionScenario) are logged with their
// baselines; BenchmarkAdmission prints them as ratios.
func TestAdmissionRealSpeech(t *testing.T) {
	if testing.Short() {
		t.Skip("streams real speech for about a minute")
	}
	r := runAdmissionScenario(t, scenarioConfig{
		// Far above any capacity this machine can have (2 cores at
		// about 0.1 CPU-s per audio-s is 15-20 sessions on a quiet
		// machine): the scenario must reach the refusal, and 14 did not
		// on a quiet CI run (14 live, capacity 13, none refused).
		MaxSessions: 32, Step: 2500 * time.Millisecond, Alone: 8 * time.Second,
		Hold: 8 * time.Second, IdleTimeout: 2 * time.Second,
	})
	r.log(t)
	if !r.Refused {
		t.Fatalf("%d sessions admitted and none refused", r.Admitted)
	}
	if r.RefusalCode != websocket.StatusCode(CloseTryAgainLater) || r.Reason != ErrReconnectsExhausted.Reason {
		t.Errorf("refused with %d %q, want 1013 %q", r.RefusalCode, r.Reason, ErrReconnectsExhausted.Reason)
	}
	if !strings.Contains(r.RefusalText, "capacity") {
		t.Errorf("refusal says %q", r.RefusalText)
	}
	// The target (refused within 1 s) is measured by BenchmarkAdmission
	// on a quiet machine; here, beside the rest of the suite, the bound
	// only tells a prompt refusal from one that waited for a decoder
	// (about 10 s).
	if r.RefusedIn > 4*time.Second {
		t.Errorf("refusal took %v, want a prompt one (target 1 s)", r.RefusedIn)
	}
	// The admitted sessions keep real time while the next is refused:
	// none fails or falls behind (a session that fell behind would take
	// seconds to terminate and to deliver finals).
	for i := range r.Errs {
		if r.Errs[i] != nil {
			t.Errorf("session %d: %v", i+1, r.Errs[i])
		}
		if r.Terminated[i] > 4*time.Second {
			t.Errorf("session %d: SessionTerminated %v after terminate_session", i+1, r.Terminated[i])
		}
		// The latency target (< 300 ms median) is BenchmarkAdmission's,
		// on a quiet machine. Here, beside the rest of the suite, other
		// work moves latencies by a second or more from minute to minute;
		// the bound only catches sessions that fell behind for good (the
		// cliff this admission prevents: finals 5 to 8 s late and growing).
		if limit := 4*time.Second + r.AloneFinal; r.Finals[i] > limit {
			t.Errorf("session %d: median final latency %v with the admitted sessions running (lone session %v)", i+1, r.Finals[i], r.AloneFinal)
		}
	}
	if d := r.AfterRSS - r.IdleRSS; d > 50<<20 {
		t.Errorf("memory %d MB above idle after the idle timeout", d>>20)
	}
}
