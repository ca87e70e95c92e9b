package sqlite

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// TestDeletedDataLeavesNoTrace: once a record is updated as deleted with new
// data, the old data's bytes are found in no file of the database directory
// (main file, WAL, shared memory), even though SQLite normally keeps old
// page images and free-page contents around.
func TestDeletedDataLeavesNoTrace(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(Config{Path: filepath.Join(dir, "e.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	secret := bytes.Repeat([]byte("SECRET-TRANSCRIPT-CONTENT-"), 400) // ~10 KB: overflow pages too
	small := []byte("SMALL-SECRET-CONTENT-XYZ")
	for i, data := range [][]byte{secret, small} {
		id := []string{"6f1c2c1e-8d7f-4f59-9a57-1b1a5b0d1d1d", "7f1c2c1e-8d7f-4f59-9a57-1b1a5b0d1d1d"}[i]
		r := &driver.Record{ID: id, ProjectID: "p", Status: transcribe.StatusCompleted, Created: time.Now(), Data: data}
		if err := s.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
		r.Deleted = true
		r.Data = []byte("deleted")
		if err := s.Update(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, needle := range [][]byte{[]byte("SECRET-TRANSCRIPT-CONTENT"), small} {
			if bytes.Contains(b, needle) {
				t.Errorf("%s still holds deleted data %q", e.Name(), needle)
			}
		}
	}
}
