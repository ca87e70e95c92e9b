package testservices

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/minio/minio-go/v7"
)

func TestCheck(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if msg, fail := check(getenv, "S3", EnvS3Endpoint, EnvS3AccessKey); fail || !strings.Contains(msg, EnvS3Endpoint+", "+EnvS3AccessKey) ||
		!strings.Contains(msg, "scripts/test.sh") || !strings.Contains(msg, "scripts/services.sh start") {
		t.Errorf("both unset: %q fail=%v; want a skip naming both variables and how to run", msg, fail)
	}
	env[EnvS3Endpoint] = "http://127.0.0.1:1"
	if msg, _ := check(getenv, "S3", EnvS3Endpoint, EnvS3AccessKey); strings.Contains(msg, EnvS3Endpoint) || !strings.Contains(msg, EnvS3AccessKey) {
		t.Errorf("one unset: %q", msg)
	}
	env[EnvRequire] = "1"
	if msg, fail := check(getenv, "S3", EnvS3Endpoint, EnvS3AccessKey); !fail || !strings.Contains(msg, EnvRequire) {
		t.Errorf("required: %q fail=%v; want a failure", msg, fail)
	}
	env[EnvS3AccessKey] = "k"
	if msg, fail := check(getenv, "S3", EnvS3Endpoint, EnvS3AccessKey); msg != "" || fail {
		t.Errorf("all set: %q fail=%v", msg, fail)
	}
}

func TestDBSafe(t *testing.T) {
	for in, want := range map[string]string{
		"TestX/sub case#01":      "testx_sub_case_01",
		strings.Repeat("A", 100): strings.Repeat("a", 40),
		"Ünïcode":                "_n_code",
	} {
		if got := dbSafe(in); got != want {
			t.Errorf("dbSafe(%q) = %q, want %q", in, got, want)
		}
	}
}

// Each call makes its own empty database, and the test's end drops it.
func TestPostgres(t *testing.T) {
	t.Parallel()
	var urls []string
	t.Run("use", func(t *testing.T) {
		for range 2 {
			u := Postgres(t)
			urls = append(urls, u)
			conn, err := pgx.Connect(t.Context(), u)
			if err != nil {
				t.Fatal(err)
			}
			var n int
			if err := conn.QueryRow(t.Context(), "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").Scan(&n); err != nil || n != 0 {
				t.Fatalf("fresh database has %d tables, %v", n, err)
			}
			if _, err := conn.Exec(t.Context(), "CREATE TABLE t (id int)"); err != nil {
				t.Fatal(err)
			}
			// Left open on purpose: the drop must force it closed.
		}
		if urls[0] == urls[1] {
			t.Fatalf("two calls returned the same database %s", urls[0])
		}
	})
	if len(urls) != 2 {
		return
	}
	conn, err := pgx.Connect(t.Context(), urls[0])
	if err == nil {
		conn.Close(context.Background())
		t.Fatalf("database %s still exists after its test ended", urls[0])
	}
	if !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("connecting to a dropped database: %v", err)
	}
}

// Each call makes its own empty bucket, and the test's end removes it with
// what it holds, including unfinished multipart uploads.
func TestS3(t *testing.T) {
	t.Parallel()
	var cfgs []S3Config
	t.Run("use", func(t *testing.T) {
		for range 2 {
			cfg := S3(t)
			cfgs = append(cfgs, cfg)
			c, err := cfg.Client()
			if err != nil {
				t.Fatal(err)
			}
			for o := range c.ListObjects(t.Context(), cfg.Bucket, minio.ListObjectsOptions{Recursive: true}) {
				t.Fatalf("fresh bucket holds %q (%v)", o.Key, o.Err)
			}
			if _, err := c.PutObject(t.Context(), cfg.Bucket, "a/b", strings.NewReader("x"), 1, minio.PutObjectOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := (minio.Core{Client: c}).NewMultipartUpload(t.Context(), cfg.Bucket, "unfinished", minio.PutObjectOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if cfgs[0].Bucket == cfgs[1].Bucket {
			t.Fatalf("two calls returned the same bucket %s", cfgs[0].Bucket)
		}
	})
	if len(cfgs) != 2 {
		return
	}
	c, _ := cfgs[0].Client()
	for _, cfg := range cfgs {
		if ok, err := c.BucketExists(t.Context(), cfg.Bucket); ok || err != nil {
			t.Fatalf("bucket %s exists (%v, %v) after its test ended", cfg.Bucket, ok, err)
		}
	}
}
