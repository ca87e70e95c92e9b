package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/earshot-dev/earshot/storage/postgres"
	"github.com/earshot-dev/earshot/transcribe"
)

// Open a store and hand out a job: two workers (in one process here; they
// would usually be two processes) share the database, and only one gets
// the queued job. (Examples that need a server are compiled, not run; the
// package's tests run the same calls against a real PostgreSQL.)
func ExampleOpen() {
	ctx := context.Background()
	store, err := postgres.Open(ctx, postgres.Config{
		URL: os.Getenv("DATABASE_URL"), // postgres://user:password@host:5432/earshot
	})
	if err != nil {
		log.Fatal(err) // names the server, never the password
	}
	defer store.Close()

	now := time.Now()
	rec := &transcribe.Record{ID: "t1", ProjectID: "p1", Status: transcribe.StatusQueued, Created: now, Data: []byte("sealed")}
	if err := store.Create(ctx, rec); err != nil {
		log.Fatal(err)
	}
	job, err := store.ClaimJob(ctx, transcribe.Claim{Owner: "worker-1", Now: now, Lease: 30 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(job.ID, job.Status, job.LeaseOwner, job.Claims)
	_, err = store.ClaimJob(ctx, transcribe.Claim{Owner: "worker-2", Now: now, Lease: 30 * time.Second})
	fmt.Println("worker-2:", errors.Is(err, transcribe.ErrNoJob))
}

// One database, one schema per region: the stores never see each other's
// transcripts, uploads or webhook deliveries, and each migrates on its own.
func ExampleOpen_regions() {
	ctx := context.Background()
	stores := map[string]*postgres.Store{}
	for _, region := range []string{"eu", "us"} {
		s, err := postgres.Open(ctx, postgres.Config{
			URL:      os.Getenv("DATABASE_URL"),
			Schema:   "earshot_" + region,
			MaxConns: 20,
		})
		if err != nil {
			log.Fatal(err)
		}
		defer s.Close()
		stores[region] = s
	}
	// Hand stores["eu"] to the EU Service as its Store (and UploadStore),
	// and to its webhook.Notifier as the Queue.
	fmt.Println(stores["eu"].Schema(), stores["us"].Schema())
}
