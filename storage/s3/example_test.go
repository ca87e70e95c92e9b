package s3_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/earshot-dev/earshot/storage/s3"
)

// Example stores and reads back a blob. It needs a server, so it is
// compiled but not run; the package's tests run the same steps against
// versitygw.
func Example() {
	ctx := context.Background()
	store, err := s3.New(ctx, s3.Config{
		Endpoint:     "https://s3.eu-west-1.amazonaws.com",
		Region:       "eu-west-1",
		Bucket:       "earshot-media",
		Prefix:       "production",
		AccessKey:    os.Getenv("AWS_ACCESS_KEY_ID"),
		SecretKey:    os.Getenv("AWS_SECRET_ACCESS_KEY"),
		CreateBucket: true,
	})
	if err != nil {
		log.Fatal(err)
	}
	n, err := store.Put(ctx, "uploads/42", strings.NewReader("media bytes"))
	if err != nil {
		log.Fatal(err)
	}
	rc, err := store.Open(ctx, "uploads/42")
	if err != nil {
		log.Fatal(err)
	}
	defer rc.Close()
	b, _ := io.ReadAll(rc)
	fmt.Println(n, string(b))
}

// New refuses a bad configuration before any request, naming the field,
// and never repeats credentials found in it.
func ExampleNew_invalidConfig() {
	ctx := context.Background()
	_, err := s3.New(ctx, s3.Config{Endpoint: "https://AKIAEXAMPLE:secret@s3.example.com", Bucket: "media"})
	fmt.Println(err)
	fmt.Println(errors.Is(err, s3.ErrInvalidConfig))
	_, err = s3.New(ctx, s3.Config{Endpoint: "minio.internal:9000", Bucket: "media", PartSize: 1 << 20, AccessKey: "k", SecretKey: "s"})
	fmt.Println(err)
	// Output:
	// s3: invalid config: Endpoint holds user information; pass credentials in AccessKey and SecretKey
	// true
	// s3: invalid config: PartSize 1048576: want between 5 MiB and 5 GiB
}
