package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/transcribe/driver/drivertest"
)

func TestLeMURConformance(t *testing.T) {
	t.Parallel()
	drivertest.RunLeMURStoreTests(t, func(t *testing.T) driver.LeMURStore { return openTemp(t, Config{}) })
}

// TestLeMURAcrossOpens: an answer stored through one handle is read and
// purged through another handle of the same file (another process).
func TestLeMURAcrossOpens(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "earshot.db")
	a, b := openTemp(t, Config{Path: path}), openTemp(t, Config{Path: path})
	defer a.Close()
	defer b.Close()
	ctx := context.Background()
	r := &driver.LeMURRecord{ProjectID: "p", RequestID: uuid.NewString(), Data: []byte("sealed"), Created: time.Now()}
	if err := a.PutLeMUR(ctx, r); err != nil {
		t.Fatal(err)
	}
	got, err := b.GetLeMUR(ctx, "p", r.RequestID)
	if err != nil || string(got.Data) != "sealed" {
		t.Fatalf("read through the other handle: %+v, %v", got, err)
	}
	if ok, err := b.DeleteLeMUR(ctx, "p", r.RequestID); !ok || err != nil {
		t.Fatalf("delete through the other handle: %v, %v", ok, err)
	}
	if _, err := a.GetLeMUR(ctx, "p", r.RequestID); err == nil {
		t.Fatal("purged answer still readable")
	}
}
