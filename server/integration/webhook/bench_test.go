package webhook_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/webhookfakes"
	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/storage/sqlite"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/webhook"
)

// BenchmarkNotifyAndDeliver measures one durable delivery end to end:
// Notify (seal + store) and one successful POST to a loopback receiver,
// claimed and recorded in the store.
func BenchmarkNotifyAndDeliver(b *testing.B) {
	for _, name := range []string{"memory", "sqlite"} {
		b.Run(name, func(b *testing.B) {
			var st interface {
				webhook.Queue
				Close() error
			}
			if name == "memory" {
				st = memory.New()
			} else {
				s, err := sqlite.Open(sqlite.Config{Path: filepath.Join(b.TempDir(), "b.db")})
				if err != nil {
					b.Fatal(err)
				}
				st = s
			}
			defer st.Close()
			var hits atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				hits.Add(1)
			}))
			defer srv.Close()
			key := transcribe.NewKey()
			n, err := webhook.New(webhook.Config{Queue: st, Key: key, AllowPrivate: true, Logger: webhookfakes.QuietLogger()})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				note := webhookfakes.Completed(fmt.Sprint("tr-", i), srv.URL+"/hook?i=1")
				note.HeaderName, note.HeaderValue = "Authorization", "Bearer x"
				if err := n.Notify(ctx, note); err != nil {
					b.Fatal(err)
				}
				if k, err := n.DeliverDue(ctx); err != nil || k != 1 {
					b.Fatalf("DeliverDue = %d, %v", k, err)
				}
			}
			b.StopTimer()
			if hits.Load() != int64(b.N) {
				b.Fatalf("%d requests for %d notifications", hits.Load(), b.N)
			}
		})
	}
}

// BenchmarkRunLatency measures Notify-to-request latency with a running
// dispatcher (woken by Notify, no polling delay).
func BenchmarkRunLatency(b *testing.B) {
	st := memory.New()
	defer st.Close()
	got := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		got <- struct{}{}
	}))
	defer srv.Close()
	key := transcribe.NewKey()
	n, err := webhook.New(webhook.Config{Queue: st, Key: key, AllowPrivate: true, PollInterval: time.Hour, Logger: webhookfakes.QuietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	n.Start()
	defer n.Close()
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := n.Notify(ctx, webhookfakes.Completed(fmt.Sprint("tr-", i), srv.URL)); err != nil {
			b.Fatal(err)
		}
		select {
		case <-got:
		case <-time.After(10 * time.Second):
			b.Fatal("no delivery within 10s")
		}
	}
}
