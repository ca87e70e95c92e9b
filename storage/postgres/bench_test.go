package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/earshot-dev/earshot/internal/testservices"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// BenchmarkClaimContention measures ClaimJob under contention: b.N queued
// jobs, claimed by 1, 2, 4 and 8 concurrent claimers (goroutines sharing
// one Store with a connection each) until none is left. It reports the
// latency of one claim (p50, p99, in µs), claims per second, and the
// throughput relative to one claimer measured in the same run
// (x-vs-1-claimer, against the mean of the one-claimer runs), which is
// what to compare across machines.
//
//	go test -run '^$' -bench ClaimContention ./storage/postgres
func BenchmarkClaimContention(b *testing.B) {
	url := testservices.Postgres(b)
	ctx := context.Background()
	s := openTest(b, url, "")
	conn := admin(b, url)
	var oneClaimer []float64 // claims/s of every one-claimer run (-count runs each level that often in a row)
	for _, claimers := range []int{1, 2, 4, 8} {
		b.Run(fmt.Sprintf("claimers=%d", claimers), func(b *testing.B) {
			b.StopTimer()
			if _, err := conn.Exec(ctx, `TRUNCATE earshot.transcripts`); err != nil {
				b.Fatal(err)
			}
			rows := make([][]any, b.N)
			for i := range rows {
				rows[i] = []any{fmt.Sprintf("job-%d", i), "p", "queued", t0}
			}
			if _, err := conn.CopyFrom(ctx, pgx.Identifier{"earshot", "transcripts"}, []string{"id", "project_id", "status", "created"},
				pgx.CopyFromRows(rows)); err != nil {
				b.Fatal(err)
			}
			if _, err := conn.Exec(ctx, `ANALYZE earshot.transcripts`); err != nil {
				b.Fatal(err)
			}
			var (
				wg        sync.WaitGroup
				mu        sync.Mutex
				latencies = make([]time.Duration, 0, b.N)
				claimed   int
				start     = make(chan struct{})
			)
			for g := range claimers {
				wg.Go(func() {
					var mine []time.Duration
					owner := fmt.Sprint("claimer-", g)
					<-start
					for {
						t := time.Now()
						_, err := s.ClaimJob(ctx, driver.Claim{Owner: owner, Now: t0, Lease: time.Hour})
						if errors.Is(err, transcribe.ErrNoJob) {
							break
						}
						if err != nil {
							b.Error(err)
							break
						}
						mine = append(mine, time.Since(t))
					}
					mu.Lock()
					latencies = append(latencies, mine...)
					claimed += len(mine)
					mu.Unlock()
				})
			}
			began := time.Now()
			b.StartTimer()
			close(start)
			wg.Wait()
			b.StopTimer()
			elapsed := time.Since(began)
			if claimed != b.N {
				b.Fatalf("%d of %d jobs claimed", claimed, b.N)
			}
			slices.Sort(latencies)
			pct := func(p float64) float64 {
				return float64(latencies[int(p*float64(len(latencies)-1))].Microseconds())
			}
			rate := float64(claimed) / elapsed.Seconds()
			b.ReportMetric(pct(0.50), "p50-µs")
			b.ReportMetric(pct(0.99), "p99-µs")
			b.ReportMetric(rate, "claims/s")
			if claimers == 1 {
				oneClaimer = append(oneClaimer, rate)
			} else if len(oneClaimer) > 0 {
				mean := 0.0
				for _, r := range oneClaimer {
					mean += r / float64(len(oneClaimer))
				}
				b.ReportMetric(rate/mean, "x-vs-1-claimer")
			}
		})
	}
}
