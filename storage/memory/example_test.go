package memory_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// List returns a project's records newest first.
func ExampleStore_List() {
	store := memory.New()
	ctx := context.Background()
	now := time.Now()
	for _, id := range []string{"a", "b", "c"} {
		store.Create(ctx, &driver.Record{ID: id, ProjectID: "p1", Status: transcribe.StatusQueued, Created: now})
	}
	store.Create(ctx, &driver.Record{ID: "x", ProjectID: "p2", Status: transcribe.StatusQueued, Created: now})
	recs, _ := store.List(ctx, driver.ListQuery{ProjectID: "p1", Limit: 2})
	for _, r := range recs {
		fmt.Println(r.ID, r.Seq)
	}
	// Output:
	// c 3
	// b 2
}

func ExampleBlobStore() {
	blobs := memory.NewBlobStore()
	ctx := context.Background()
	n, _ := blobs.Put(ctx, "uploads/1", strings.NewReader("media bytes"))
	rc, _ := blobs.Open(ctx, "uploads/1")
	data, _ := io.ReadAll(rc)
	rc.Close()
	fmt.Println(n, string(data), blobs.Keys())
	// Output: 11 media bytes [uploads/1]
}
