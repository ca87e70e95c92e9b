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
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/webhook"
)

// Given elsewhere in a real program.
var (
	blobs      driver.BlobStore
	recognizer transcribe.Recognizer
	decoder    transcribe.Decoder
	contentKey []byte
)

// Open the store and hand it to the Service three times over: as the
// transcript Store, as the UploadStore, and as the webhook Notifier's
// Queue. Every process started this way on the same database shares the
// work. (Examples that need a server are compiled, not run; the package's
// tests make the same calls against a real PostgreSQL.)
func ExampleOpen() {
	ctx := context.Background()
	store, err := postgres.Open(ctx, postgres.Config{
		URL: os.Getenv("DATABASE_URL"), // postgres://user:password@host:5432/earshot
	})
	if err != nil {
		log.Fatal(err) // names the server, never the password
	}
	defer store.Close()

	hooks, err := webhook.New(webhook.Config{Queue: store, Key: transcribe.NewKey(), OnStatus: store.SetWebhookStatus})
	if err != nil {
		log.Fatal(err)
	}
	hooks.Start()
	defer hooks.Close()
	svc, err := transcribe.NewService(transcribe.Config{
		Store:      store, // also the UploadStore
		Notifier:   hooks,
		Blobs:      blobs, // shared by every process: storage/s3
		Recognizer: recognizer,
		Decoder:    decoder,
		Key:        contentKey,       // the same in every process
		Lease:      30 * time.Second, // a job whose process died is resumed after this
	})
	if err != nil {
		log.Fatal(err)
	}
	svc.Start()
	defer svc.Close(ctx)
}

// A worker that stops renewing its lease (its process died) loses the job
// to the next claimer once the lease has run out.
func ExampleStore_ClaimJob() {
	ctx := context.Background()
	store, err := postgres.Open(ctx, postgres.Config{URL: os.Getenv("DATABASE_URL")})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	start := time.Now()
	if err := store.Create(ctx, &driver.Record{ID: "t1", ProjectID: "p1", Status: transcribe.StatusQueued, Created: start}); err != nil {
		log.Fatal(err)
	}
	first, _ := store.ClaimJob(ctx, driver.Claim{Owner: "a", Now: start, Lease: 30 * time.Second})
	_, err = store.ClaimJob(ctx, driver.Claim{Owner: "b", Now: start.Add(10 * time.Second), Lease: 30 * time.Second})
	fmt.Println(first.LeaseOwner, errors.Is(err, transcribe.ErrNoJob))
	later, _ := store.ClaimJob(ctx, driver.Claim{Owner: "b", Now: start.Add(31 * time.Second), Lease: 30 * time.Second})
	fmt.Println(later.LeaseOwner, later.Claims)
	// Prints:
	// a true
	// b 2
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
