package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/earshot-dev/earshot/internal/testservices"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/transcribe/driver/drivertest"
)

func TestLeMURConformance(t *testing.T) {
	t.Parallel()
	url := testservices.Postgres(t)
	conn := admin(t, url)
	drivertest.RunLeMURStoreTests(t, func(t *testing.T) driver.LeMURStore {
		s := openTest(t, url, "lemur")
		if err := s.lemurTable(context.Background()); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(context.Background(), `TRUNCATE lemur.lemur_responses`); err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestLeMURAcrossStores: an answer stored by one Store (process) is read
// and purged by another on the same schema; two Stores creating the table
// at once both succeed.
func TestLeMURAcrossStores(t *testing.T) {
	t.Parallel()
	url := testservices.Postgres(t)
	a, b := openTest(t, url, "lemur_shared"), openTest(t, url, "lemur_shared")
	ctx := context.Background()
	errs := make(chan error, 2)
	for _, s := range []*Store{a, b} {
		go func() { errs <- s.lemurTable(ctx) }()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	r := &driver.LeMURRecord{ProjectID: "p", RequestID: uuid.NewString(), Data: []byte("sealed"), Created: time.Now()}
	if err := a.PutLeMUR(ctx, r); err != nil {
		t.Fatal(err)
	}
	got, err := b.GetLeMUR(ctx, "p", r.RequestID)
	if err != nil || string(got.Data) != "sealed" {
		t.Fatalf("read through the other store: %+v, %v", got, err)
	}
	if ok, err := b.DeleteLeMUR(ctx, "p", r.RequestID); !ok || err != nil {
		t.Fatalf("delete through the other store: %v, %v", ok, err)
	}
	if _, err := a.GetLeMUR(ctx, "p", r.RequestID); err == nil {
		t.Fatal("purged answer still readable")
	}
}
