package metrics_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/earshot-dev/earshot/server/metrics"
	"github.com/earshot-dev/earshot/transcribe"
)

// The hooks go into the libraries' configs (transcribe.Config{OnJob:
// m.Job}, ...); here one finished job is reported by hand, and /metrics
// shows it.
func ExampleMetrics() {
	m := metrics.New(metrics.Config{})
	m.Job(transcribe.JobEvent{Kind: transcribe.JobFinished, ID: "tr-1", Engine: "pocketsphinx", Claim: 1,
		Outcome: transcribe.JobCompleted, Processing: 2 * time.Second, Turnaround: 3 * time.Second, Audio: 10 * time.Second})

	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	sc := bufio.NewScanner(rec.Body)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "earshot_jobs_total") || strings.HasPrefix(l, "earshot_audio_seconds_total") ||
			strings.HasPrefix(l, "earshot_realtime_factor_sum") {
			fmt.Println(l)
		}
	}
	// Output:
	// earshot_audio_seconds_total{engine="pocketsphinx"} 10
	// earshot_jobs_total{engine="pocketsphinx",outcome="completed"} 1
	// earshot_realtime_factor_sum{engine="pocketsphinx"} 0.2
}

func ExampleHealth() {
	ready := errors.New("the store is being migrated")
	h := metrics.NewHealth(metrics.HealthConfig{Logger: slog.New(slog.DiscardHandler), Checks: []metrics.Check{
		{Name: "store", Func: func(context.Context) error { return ready }},
	}})
	for range 2 {
		rec := httptest.NewRecorder()
		h.Ready().ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
		fmt.Println(rec.Code, rec.Body.String())
		ready = nil
	}
	// Output:
	// 503 {"status":"not ready","checks":{"store":"the store is being migrated"}}
	// 200 {"status":"ready","checks":{"store":"ok"}}
}
