package testservices

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// Environment variables the helpers read; scripts/services.sh prints them.
const (
	// EnvPostgresURL is a postgres:// URL of a role that may create
	// databases, on the suite's PostgreSQL cluster.
	EnvPostgresURL = "EARSHOT_TEST_POSTGRES_URL"
	// EnvS3Endpoint is the S3 server's base URL (http://127.0.0.1:PORT).
	EnvS3Endpoint = "EARSHOT_TEST_S3_ENDPOINT"
	// EnvS3AccessKey and EnvS3SecretKey are its credentials; they may
	// create buckets.
	EnvS3AccessKey = "EARSHOT_TEST_S3_ACCESS_KEY"
	EnvS3SecretKey = "EARSHOT_TEST_S3_SECRET_KEY"
	// EnvS3Region is the region to sign for; default "us-east-1".
	EnvS3Region = "EARSHOT_TEST_S3_REGION"
	// EnvRequire set to "1" turns a missing service from a skip into a
	// test failure. scripts/test.sh (and so CI) sets it.
	EnvRequire = "EARSHOT_TEST_REQUIRE_SERVICES"
)

const howTo = "run scripts/test.sh, or start the servers with " +
	"`eval \"$(scripts/services.sh start)\"` and run go test from that shell (scripts/services.sh stop ends them)"

// check returns why a service is unusable (some of vars are unset) and
// whether that is a failure rather than a skip.
func check(getenv func(string) string, service string, vars ...string) (msg string, fail bool) {
	var missing []string
	for _, v := range vars {
		if getenv(v) == "" {
			missing = append(missing, v)
		}
	}
	if len(missing) == 0 {
		return "", false
	}
	msg = fmt.Sprintf("%s for tests is not configured (%s unset): %s", service, strings.Join(missing, ", "), howTo)
	if getenv(EnvRequire) == "1" {
		return msg + " [" + EnvRequire + "=1: a missing service fails the test]", true
	}
	return msg, false
}

func need(t testing.TB, service string, vars ...string) {
	t.Helper()
	msg, fail := check(os.Getenv, service, vars...)
	switch {
	case msg == "":
	case fail:
		t.Fatal(msg)
	default:
		t.Skip(msg)
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}

// Postgres returns the URL of a fresh, empty database on the suite's
// PostgreSQL server, created for this call and dropped (with any
// connections still open to it) when the test ends. Without
// EARSHOT_TEST_POSTGRES_URL the test is skipped, or fails when
// EARSHOT_TEST_REQUIRE_SERVICES=1; a configured but unreachable server
// always fails the test.
func Postgres(t testing.TB) string {
	t.Helper()
	need(t, "PostgreSQL", EnvPostgresURL)
	return freshDatabase(t, os.Getenv(EnvPostgresURL))
}

// freshDatabase creates a database for t on the cluster of admin, a URL
// of a role that may create databases, and drops it when t ends.
func freshDatabase(t testing.TB, admin string) string {
	t.Helper()
	u, err := url.Parse(admin)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		t.Fatalf("%s must be a postgres:// URL", EnvPostgresURL)
	}
	name := "earshot_" + dbSafe(t.Name()) + "_" + randomHex(4)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("connecting to the test PostgreSQL (%s): %v", redactURL(u), err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatalf("creating test database %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			t.Errorf("dropping test database %s: %v", name, err)
			return
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping test database %s: %v", name, err)
		}
	})
	db := *u
	db.Path = "/" + name
	db.RawPath = ""
	return db.String()
}

// dbSafe shortens a test name into lower-case letters, digits and
// underscores (database names are 63 bytes at most).
func dbSafe(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 40 {
			break
		}
	}
	return b.String()
}

func redactURL(u *url.URL) string {
	c := *u
	if c.User != nil {
		c.User = url.User(c.User.Username())
	}
	return c.String()
}

// S3Config is an S3 server and a bucket on it.
type S3Config struct {
	Endpoint  string // base URL, "http://127.0.0.1:PORT"
	Region    string
	AccessKey string
	SecretKey string
	Bucket    string // created for this test, empty
}

// S3 returns the suite's S3 server with a fresh, empty bucket created for
// this call; when the test ends the bucket's objects and incomplete
// uploads are removed and the bucket deleted. Without the
// EARSHOT_TEST_S3_* variables the test is skipped, or fails when
// EARSHOT_TEST_REQUIRE_SERVICES=1; a configured but unreachable server
// always fails the test.
func S3(t testing.TB) S3Config {
	t.Helper()
	need(t, "S3", EnvS3Endpoint, EnvS3AccessKey, EnvS3SecretKey)
	return freshBucket(t, S3Config{
		Endpoint:  os.Getenv(EnvS3Endpoint),
		Region:    os.Getenv(EnvS3Region),
		AccessKey: os.Getenv(EnvS3AccessKey),
		SecretKey: os.Getenv(EnvS3SecretKey),
	})
}

// freshBucket creates a bucket for t on the server of cfg and removes it,
// emptied, when t ends.
func freshBucket(t testing.TB, cfg S3Config) S3Config {
	t.Helper()
	cfg.Bucket = "earshot-test-" + randomHex(8)
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	client, err := cfg.Client()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := client.MakeBucket(ctx, cfg.Bucket, minio.MakeBucketOptions{Region: cfg.Region}); err != nil {
		t.Fatalf("creating test bucket %s at %s: %v", cfg.Bucket, cfg.Endpoint, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := emptyBucket(ctx, client, cfg.Bucket); err != nil {
			t.Errorf("emptying test bucket %s: %v", cfg.Bucket, err)
			return
		}
		if err := client.RemoveBucket(ctx, cfg.Bucket); err != nil {
			t.Errorf("removing test bucket %s: %v", cfg.Bucket, err)
		}
	})
	return cfg
}

// Client returns a minio-go client for the server (path-style requests),
// for tests that inspect the bucket directly.
func (c S3Config) Client() (*minio.Client, error) {
	u, err := url.Parse(c.Endpoint)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("%s=%q: want http://host:port", EnvS3Endpoint, c.Endpoint)
	}
	return minio.New(u.Host, &minio.Options{
		Creds:        credentials.NewStaticV4(c.AccessKey, c.SecretKey, ""),
		Secure:       u.Scheme == "https",
		Region:       c.Region,
		BucketLookup: minio.BucketLookupPath,
	})
}

func emptyBucket(ctx context.Context, client *minio.Client, bucket string) error {
	for u := range client.ListIncompleteUploads(ctx, bucket, "", true) {
		if u.Err != nil {
			return u.Err
		}
		if err := client.RemoveIncompleteUpload(ctx, bucket, u.Key); err != nil {
			return err
		}
	}
	for o := range client.ListObjects(ctx, bucket, minio.ListObjectsOptions{Recursive: true}) {
		if o.Err != nil {
			return o.Err
		}
		if err := client.RemoveObject(ctx, bucket, o.Key, minio.RemoveObjectOptions{}); err != nil {
			return err
		}
	}
	return nil
}
