package localfs_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/earshot-dev/earshot/storage/localfs"
)

func Example() {
	dir, _ := os.MkdirTemp("", "blobs")
	defer os.RemoveAll(dir)
	s, err := localfs.New(dir)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	n, _ := s.Put(ctx, "uploads/42", strings.NewReader("media bytes"))
	rc, _ := s.Open(ctx, "uploads/42")
	b, _ := io.ReadAll(rc)
	rc.Close()
	fmt.Println(n, string(b))
	_, err = s.Put(ctx, "../outside", strings.NewReader("x"))
	fmt.Println(err)
	// Output:
	// 11 media bytes
	// localfs: invalid key "../outside": ".." segment
}
