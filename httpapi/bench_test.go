package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/storage/sqlite"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// tenMinutes is the words of ten minutes of read speech (about 165 words
// a minute), spread evenly over 600 s: what a 10-minute transcript holds.
func tenMinutes(audio []int16, _ transcribe.RecognizeOptions) ([]transcribe.Word, error) {
	text := strings.Fields("she was sensible and clever but eager in everything her sorrows her joys could have no moderation " +
		"she was generous amiable interesting she was everything but prudent the resemblance between her and her mother was strikingly great")
	const n, span = 1650, 600_000
	ws := make([]transcribe.Word, n)
	for i := range ws {
		start := int64(i) * span / n
		ws[i] = transcribe.Word{Text: text[i%len(text)], Start: start, End: start + span/n - 40, Confidence: 0.87}
	}
	return ws, nil
}

// readFixture is the API on the default SQLite store holding n completed
// 10-minute transcripts of project p1 (the recognizer is scripted: these
// benchmarks measure the read path, not recognition).
func readFixture(b *testing.B, n int) (*fixture, []string) {
	store, err := sqlite.Open(sqlite.Config{Path: filepath.Join(b.TempDir(), "earshot.db")})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	f := newFixtureWith(b, func(c *transcribe.Config) {
		c.Store, c.Uploads = store, store
		c.Recognizer.(*transcribetest.FakeRecognizer).Script = tenMinutes
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

// hammer sends requests GETs of url with the key from conc clients at once
// and returns requests per second; every answer must be 200 of want's
// length.
func hammer(b *testing.B, url, key string, requests, conc, want int) float64 {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc}}
	defer client.CloseIdleConnections()
	var wg sync.WaitGroup
	next := make(chan struct{}, requests)
	for range requests {
		next <- struct{}{}
	}
	close(next)
	errs := make(chan error, conc)
	t0 := time.Now()
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range next {
				req, _ := http.NewRequest("GET", url, nil)
				req.Header.Set("Authorization", key)
				res, err := client.Do(req)
				if err != nil {
					errs <- err
					return
				}
				n, _ := io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != 200 || int(n) != want {
					errs <- fmt.Errorf("%s: status %d, %d bytes (want %d)", url, res.StatusCode, n, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(t0)
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
	return float64(requests) / elapsed.Seconds()
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
// and reports both rates and their median ratio.
func compare(b *testing.B, f *fixture, path string, requests int) {
	first := f.do(b, "GET", path, "k1", nil)
	if first.status != 200 {
		b.Fatalf("%s: %d %s", path, first.status, first.body)
	}
	base := plain(b, first.body)
	const conc = 8
	hammer(b, f.srv.URL+path, "k1", requests/4, conc, len(first.body)) // warm both
	hammer(b, base, "k1", requests/4, conc, len(first.body))
	var ratios, apis, plains []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		api := hammer(b, f.srv.URL+path, "k1", requests, conc, len(first.body))
		pl := hammer(b, base, "k1", requests, conc, len(first.body))
		ratios, apis, plains = append(ratios, api/pl), append(apis, api), append(plains, pl)
	}
	b.ReportMetric(medianOf(apis), "api-req/s")
	b.ReportMetric(medianOf(plains), "plain-req/s")
	b.ReportMetric(medianOf(ratios), "api/plain")
	b.ReportMetric(float64(len(first.body))/1024, "KiB/response")
}

func medianOf(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s[len(s)/2]
}

// BenchmarkGetTranscript: GET /v2/transcript/{id} of a 10-minute
// transcript on the SQLite store, over loopback with 8 clients, against a
// plain handler serving the same bytes from memory. Target: api/plain at
// least 0.5.
func BenchmarkGetTranscript(b *testing.B) {
	f, ids := readFixture(b, 1)
	compare(b, f, "/v2/transcript/"+ids[0], 2000)
}

// BenchmarkListPage: GET /v2/transcript?limit=200 over 200 stored
// 10-minute transcripts on the SQLite store, against a plain handler
// serving the same page. Target: api/plain at least 0.3.
func BenchmarkListPage(b *testing.B) {
	f, _ := readFixture(b, 200)
	compare(b, f, "/v2/transcript?limit=200", 400)
}
