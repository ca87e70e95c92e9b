package testservices

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/minio/minio-go/v7"
)

// A test's own servers survive a crash of PostgreSQL and a kill of
// versitygw: what the crash-safe cluster acknowledged and what the S3
// server stored are there after each restart, on the same address.
func TestOwnRestarts(t *testing.T) {
	t.Parallel()
	o := StartOwn(t, true)
	db := o.Postgres(t)
	conn, err := pgx.Connect(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(t.Context(), "CREATE TABLE t (v text); INSERT INTO t VALUES ('kept')"); err != nil {
		t.Fatal(err)
	}
	var fsync string
	if err := conn.QueryRow(t.Context(), "SHOW fsync").Scan(&fsync); err != nil || fsync != "on" {
		t.Fatalf("fsync %q (%v), want on", fsync, err)
	}
	o.CrashPostgres(t)
	if err := conn.Ping(t.Context()); err == nil {
		t.Fatal("the connection still answers after the crash")
	}
	o.StartPostgres(t)
	conn, err = pgx.Connect(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	var v string
	if err := conn.QueryRow(t.Context(), "SELECT v FROM t").Scan(&v); err != nil || v != "kept" {
		t.Fatalf("after the crash: %q, %v", v, err)
	}

	cfg := o.S3(t)
	c, err := cfg.Client()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutObject(t.Context(), cfg.Bucket, "k", strings.NewReader("stored"), 6, minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	o.KillS3(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second) // minio-go retries for longer
	defer cancel()
	if _, err := c.BucketExists(ctx, cfg.Bucket); err == nil {
		t.Fatal("the S3 server still answers after the kill")
	}
	o.StartS3(t)
	obj, err := c.GetObject(t.Context(), cfg.Bucket, "k", minio.GetObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(obj)
	if err != nil || string(b) != "stored" {
		t.Fatalf("after the restart: %q, %v", b, err)
	}
}

func TestParseExports(t *testing.T) {
	got := parseExports("export A='x'\nexport B='postgres://u:p@h:1/d?sslmode=disable'\nnoise\n")
	if got["A"] != "x" || got["B"] != "postgres://u:p@h:1/d?sslmode=disable" || len(got) != 2 {
		t.Fatalf("%v", got)
	}
}
