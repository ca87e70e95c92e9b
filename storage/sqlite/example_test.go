package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/earshot-dev/earshot/storage/sqlite"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// Two workers share one database; only one gets the queued job.
func Example() {
	dir, err := os.MkdirTemp("", "earshot-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	store, err := sqlite.Open(sqlite.Config{Path: filepath.Join(dir, "earshot.db")})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()

	ctx := context.Background()
	now := time.Now()
	rec := &driver.Record{ID: "t1", ProjectID: "p1", Status: transcribe.StatusQueued, Created: now, Data: []byte("sealed")}
	if err := store.Create(ctx, rec); err != nil {
		log.Fatal(err)
	}
	job, err := store.ClaimJob(ctx, driver.Claim{Owner: "worker-1", Now: now, Lease: 30 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(job.ID, job.Status, job.LeaseOwner)
	_, err = store.ClaimJob(ctx, driver.Claim{Owner: "worker-2", Now: now, Lease: 30 * time.Second})
	fmt.Println("worker-2:", errors.Is(err, transcribe.ErrNoJob))
	// Output:
	// t1 processing worker-1
	// worker-2: true
}
