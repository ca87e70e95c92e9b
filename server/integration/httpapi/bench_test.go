package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/testservices"
	"github.com/earshot-dev/earshot/storage/postgres"
	"github.com/earshot-dev/earshot/storage/sqlite"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// The read benchmarks run the API on a real store and compare it with a
// plain net/http handler writing the same bytes from memory, alternating
// the two in one run (api/plain is what to compare across machines):
//
//	go test -run '^$' -bench 'GetTranscript|ListPage' -benchtime 9x ./httpapi
//
// (each of the 9 rounds hammers the API, then the plain handler; the
// ratio is the median of the rounds', the p99 over all their requests;
// api-cpu-µs/req and plain-cpu-µs/req are the medians of this process's
// CPU time per request, clients included, a steadier figure than rates
// on a shared machine, without a database server's CPU).
// The PostgreSQL ones need EARSHOT_TEST_POSTGRES_URL (scripts/services.sh).

// speech returns a scripted recognizer answering n words spread evenly
// over span milliseconds. Read speech is about 165 words a minute: 1650
// words over 10 minutes make a transcript of about 162 KB on the wire;
// 155 words over 30 s, one of about 17 KB (a fast speaker, or the size
// of a 30-second transcript with its utterances).
func speech(n int, span int64) func([]int16, transcribe.RecognizeOptions) ([]transcribe.Word, error) {
	text := strings.Fields("she was sensible and clever but eager in everything her sorrows her joys could have no moderation " +
		"she was generous amiable interesting she was everything but prudent the resemblance between her and her mother was strikingly great")
	return func([]int16, transcribe.RecognizeOptions) ([]transcribe.Word, error) {
		ws := make([]transcribe.Word, n)
		for i := range ws {
			start := int64(i) * span / int64(n)
			ws[i] = transcribe.Word{Text: text[i%len(text)], Start: start, End: start + span/int64(n) - 40, Confidence: 0.87}
		}
		return ws, nil
	}
}

// The transcripts the read benchmarks serve.
var (
	tenMinutes = speech(1650, 600_000) // about 162 KB
	small      = speech(155, 30_000)   // about 17 KB
	sizes      = []struct {
		name   string
		script func([]int16, transcribe.RecognizeOptions) ([]transcribe.Word, error)
	}{{"17KB", small}, {"162KB", tenMinutes}}
)

// benchStore opens the store a read benchmark runs on: "sqlite" (a file
// in the benchmark's temporary directory) or "postgres" (a fresh database
// on the suite's server; skipped without one).
func benchStore(b testing.TB, kind string) driver.Store {
	switch kind {
	case "sqlite":
		s, err := sqlite.Open(sqlite.Config{Path: filepath.Join(b.TempDir(), "earshot.db")})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	case "postgres":
		url := testservices.Postgres(b)
		s, err := postgres.Open(context.Background(), postgres.Config{URL: url})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}
	b.Fatalf("unknown store %q", kind)
	return nil
}

// readFixture is the API on store holding n completed transcripts of
// project p1 whose words script answers (the recognizer is scripted:
// these benchmarks measure the read path, not recognition).
func readFixture(b testing.TB, store driver.Store, n int, script func([]int16, transcribe.RecognizeOptions) ([]transcribe.Word, error),
	edit ...func(*transcribe.Config)) (*fixture, []string) {
	f := newFixtureWith(b, func(c *transcribe.Config) {
		for _, e := range edit {
			e(c)
		}
		c.Store = store
		if us, ok := store.(driver.UploadStore); ok {
			c.Uploads = us
		}
		c.Recognizer.(*transcribetest.FakeRecognizer).Script = script
	})
	ids := make([]string, n)
	for i := range ids {
		u, err := f.svc.Upload(context.Background(), "p1", bytes.NewReader(f.wav))
		if err != nil {
			b.Fatal(err)
		}
		tr, err := f.svc.Submit(context.Background(), "p1", transcribe.SubmitRequest{UploadID: u.ID, Params: transcribe.TranscriptParams{AudioURL: "https://example.com/a.wav"}})
		if err != nil {
			b.Fatal(err)
		}
		ids[i] = tr.ID
	}
	for _, id := range ids {
		for {
			tr, err := f.svc.Get(context.Background(), "p1", id)
			if err != nil {
				b.Fatal(err)
			}
			if tr.Status == transcribe.StatusCompleted {
				break
			}
			if tr.Status.Final() {
				b.Fatalf("transcript %s: %s", id, *tr.Error)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return f, ids
}

// run is one hammering: its rate, the latencies of its requests and the
// CPU time this process spent per request (server and clients: the
// same clients for the API and the plain handler, so the difference is
// the API's; a database server's CPU is not in it).
type run struct {
	rate      float64 // requests per second
	latencies []time.Duration
	cpu       time.Duration // per request
}

// cpuTime is the CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// hammer sends requests GETs of url with the key from conc clients at once;
// every answer must be 200 of want's length.
func hammer(b *testing.B, url, key string, requests, conc, want int) run {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc}}
	defer client.CloseIdleConnections()
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		lat = make([]time.Duration, 0, requests)
	)
	next := make(chan struct{}, requests)
	for range requests {
		next <- struct{}{}
	}
	close(next)
	errs := make(chan error, conc)
	t0, c0 := time.Now(), cpuTime()
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := make([]time.Duration, 0, requests/conc+1)
			defer func() {
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
			}()
			for range next {
				req, _ := http.NewRequest("GET", url, nil)
				req.Header.Set("Authorization", key)
				t := time.Now()
				res, err := client.Do(req)
				if err != nil {
					errs <- err
					return
				}
				n, _ := io.Copy(io.Discard, res.Body)
				res.Body.Close()
				mine = append(mine, time.Since(t))
				if res.StatusCode != 200 || int(n) != want {
					errs <- fmt.Errorf("%s: status %d, %d bytes (want %d)", url, res.StatusCode, n, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed, cpu := time.Since(t0), cpuTime()-c0
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
	return run{rate: float64(requests) / elapsed.Seconds(), latencies: lat, cpu: cpu / time.Duration(requests)}
}

// plain is the baseline: a bare net/http handler writing body from memory.
func plain(b *testing.B, body []byte) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	b.Cleanup(srv.Close)
	return srv.URL
}

// compare alternates the API and the plain handler serving the same bytes
// and reports both rates, their median ratio and the 99th percentile of
// each one's latency (over all the timed requests).
func compare(b *testing.B, f *fixture, path string, requests int) {
	first := f.do(b, "GET", path, "k1", nil)
	if first.status != 200 {
		b.Fatalf("%s: %d %s", path, first.status, first.body)
	}
	base := plain(b, first.body)
	const conc = 8
	hammer(b, f.srv.URL+path, "k1", requests/4, conc, len(first.body)) // warm both
	hammer(b, base, "k1", requests/4, conc, len(first.body))
	var (
		ratios, apis, plains []float64
		apiCPU, plainCPU     []float64
		apiLat, plainLat     []time.Duration
	)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		api := hammer(b, f.srv.URL+path, "k1", requests, conc, len(first.body))
		pl := hammer(b, base, "k1", requests, conc, len(first.body))
		ratios, apis, plains = append(ratios, api.rate/pl.rate), append(apis, api.rate), append(plains, pl.rate)
		apiLat, plainLat = append(apiLat, api.latencies...), append(plainLat, pl.latencies...)
		apiCPU, plainCPU = append(apiCPU, float64(api.cpu.Microseconds())), append(plainCPU, float64(pl.cpu.Microseconds()))
	}
	b.ReportMetric(medianOf(apis), "api-req/s")
	b.ReportMetric(medianOf(plains), "plain-req/s")
	b.ReportMetric(medianOf(ratios), "api/plain")
	b.ReportMetric(p99(apiLat), "api-p99-ms")
	b.ReportMetric(p99(plainLat), "plain-p99-ms")
	b.ReportMetric(float64(len(first.body))/1024, "KiB/response")
	b.ReportMetric(medianOf(apiCPU), "api-cpu-µs/req")
	b.ReportMetric(medianOf(plainCPU), "plain-cpu-µs/req")
}

func medianOf(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// p99 returns the 99th percentile of ds in milliseconds.
func p99(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[min(len(s)-1, len(s)*99/100)]) / float64(time.Millisecond)
}

// BenchmarkGetTranscript: GET /v2/transcript/{id} of a 17 KB and a 162 KB
// (10-minute) transcript on SQLite and on
// PostgreSQL, over loopback with 8 clients, against a plain handler
// serving the same bytes from memory. Target: api/plain at least 0.6 for
// each.
func BenchmarkGetTranscript(b *testing.B) {
	for _, store := range []string{"sqlite", "postgres"} {
		for _, size := range sizes {
			b.Run(store+"/"+size.name, func(b *testing.B) {
				f, ids := readFixture(b, benchStore(b, store), 1, size.script)
				compare(b, f, "/v2/transcript/"+ids[0], 2000)
			})
		}
	}
}

// BenchmarkListPage: GET /v2/transcript?limit=200 over 200 stored
// 10-minute transcripts on SQLite and on PostgreSQL, against a plain
// handler serving the same page. Target: api/plain at least 0.3.
func BenchmarkListPage(b *testing.B) {
	for _, store := range []string{"sqlite", "postgres"} {
		b.Run(store, func(b *testing.B) {
			f, _ := readFixture(b, benchStore(b, store), 200, tenMinutes)
			compare(b, f, "/v2/transcript?limit=200", 400)
		})
	}
}

// discardWriter is a ResponseWriter that keeps nothing but the status.
type discardWriter struct {
	h      http.Header
	status int
	n      int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) WriteHeader(code int)        { w.status = code }
func (w *discardWriter) Write(b []byte) (int, error) { w.n += len(b); return len(b), nil }

// BenchmarkGetHandler is the API's own cost of a GET /v2/transcript/{id},
// without the network: the handler called directly, per size and store,
// with its allocations (what pprof of the read path looks at).
func BenchmarkGetHandler(b *testing.B) {
	for _, store := range []string{"sqlite", "postgres"} {
		for _, size := range sizes {
			b.Run(store+"/"+size.name, func(b *testing.B) {
				f, ids := readFixture(b, benchStore(b, store), 1, size.script)
				req := httptest.NewRequest("GET", "/v2/transcript/"+ids[0], nil)
				req.Header.Set("Authorization", "k1")
				b.ReportAllocs()
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					w := &discardWriter{h: http.Header{}}
					for pb.Next() {
						clear(w.h)
						w.status, w.n = 0, 0
						f.api.ServeHTTP(w, req)
						if w.status != 200 || w.n == 0 {
							b.Errorf("status %d, %d bytes", w.status, w.n)
							return
						}
					}
				})
			})
		}
	}
}

// BenchmarkListHandler is the API's own cost of GET
// /v2/transcript?limit=200, without the network.
func BenchmarkListHandler(b *testing.B) {
	for _, store := range []string{"sqlite", "postgres"} {
		b.Run(store, func(b *testing.B) {
			f, _ := readFixture(b, benchStore(b, store), 200, tenMinutes)
			req := httptest.NewRequest("GET", "/v2/transcript?limit=200", nil)
			req.Header.Set("Authorization", "k1")
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				w := &discardWriter{h: http.Header{}}
				for pb.Next() {
					clear(w.h)
					w.status, w.n = 0, 0
					f.api.ServeHTTP(w, req)
					if w.status != 200 || w.n == 0 {
						b.Errorf("status %d, %d bytes", w.status, w.n)
						return
					}
				}
			})
		})
	}
}
