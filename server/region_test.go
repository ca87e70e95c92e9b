package server

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/testservices"
	"github.com/earshot-dev/earshot/storage/localfs"
	"github.com/earshot-dev/earshot/storage/postgres"
	"github.com/earshot-dev/earshot/storage/sqlite"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// Without a database or S3, each region keeps SQLite and files in its own
// directory: the main region in the data directory, the EU region (with
// EARSHOT_EU_ADDR) in its eu subdirectory.
func TestOpenStoresEmbedded(t *testing.T) {
	dir := t.TempDir()
	st, err := openStores(t.Context(), &Config{Data: dir}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.all()) != 1 || st.eu != nil {
		t.Fatalf("regions without EARSHOT_EU_ADDR: %d", len(st.all()))
	}
	checkEmbedded(t, st.main, dir)
	st.close()

	st, err = openStores(t.Context(), &Config{Data: dir, EUAddr: "127.0.0.1:0"}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	if all := st.all(); len(all) != 2 || all[0] != st.main || all[1] != st.eu || st.eu.name != "eu" || st.eu.label() != "eu" || st.main.label() != "main" {
		t.Fatalf("regions with EARSHOT_EU_ADDR: %+v", all)
	}
	checkEmbedded(t, st.main, dir)
	checkEmbedded(t, st.eu, filepath.Join(dir, "eu"))
}

func checkEmbedded(t *testing.T, r *region, dir string) {
	t.Helper()
	if _, ok := r.store.(*sqlite.Store); !ok {
		t.Errorf("%s store: %T, want SQLite", r.label(), r.store)
	}
	if _, ok := r.blobs.(*localfs.Store); !ok {
		t.Errorf("%s blobs: %T, want files", r.label(), r.blobs)
	}
	if r.rtState != nil || r.s3 != nil {
		t.Errorf("%s: realtime state %v, S3 %v: want neither", r.label(), r.rtState, r.s3)
	}
	if _, err := os.Stat(filepath.Join(dir, "earshot.db")); err != nil {
		t.Errorf("%s database: %v", r.label(), err)
	}
	if where := r.where(&Config{}); len(where) != 4 || where[1] != "sqlite" || where[3] != "files" {
		t.Errorf("%s where: %v", r.label(), where)
	}
}

// A database or S3 endpoint that cannot be reached fails the step with the
// settings named; when the EU region fails, the main region's storage is
// closed again.
func TestOpenStoresErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		cfg  Config
		want []string
	}{
		{Config{DatabaseURL: "postgres://earshot:secret@127.0.0.1:1/earshot?connect_timeout=5", DatabaseSchema: "earshot"},
			[]string{"EARSHOT_DATABASE_URL (EARSHOT_DATABASE_SCHEMA earshot)"}},
		{Config{DatabaseURL: "mysql://earshot@127.0.0.1/earshot", DatabaseSchema: "earshot"},
			[]string{"EARSHOT_DATABASE_URL"}},
		{Config{S3Endpoint: "ftp://s3.example.com", S3Bucket: "media", S3Prefix: "p/", S3AccessKey: "AKIDEXAMPLE", S3SecretKey: "secret"},
			[]string{"EARSHOT_S3_* (EARSHOT_S3_BUCKET media, prefix \"p/\")", "scheme must be http or https"}},
	} {
		tc.cfg.Data = dir
		_, err := openStores(t.Context(), &tc.cfg, quiet)
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: %v, want an error naming %s", tc.cfg, err, w)
			}
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("the error shows the password: %v", err)
		}
	}

	// The EU region's directory cannot be made (a file is in the way):
	// the step fails (and closes the main region's storage).
	if err := os.WriteFile(filepath.Join(dir, "eu"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if st, err := openStores(t.Context(), &Config{Data: dir, EUAddr: "127.0.0.1:0"}, quiet); err == nil {
		st.close()
		t.Fatal("an EU directory that is a file: no error")
	}
}

// With EARSHOT_DATABASE_URL and EARSHOT_S3_*, each region keeps its
// records in its own schema (with the realtime state its processes share)
// and its blobs under its own prefix.
func TestOpenStoresShared(t *testing.T) {
	db, s3c := testservices.Postgres(t), testservices.S3(t)
	cfg := &Config{Data: t.TempDir(), DatabaseURL: db, DatabaseSchema: "earshot", EUDatabaseSchema: "earshot_eu",
		S3Endpoint: s3c.Endpoint, S3Bucket: s3c.Bucket, S3Prefix: "prod", S3Region: s3c.Region,
		S3AccessKey: s3c.AccessKey, S3SecretKey: s3c.SecretKey, EUAddr: "127.0.0.1:0",
		EncryptionKey: testKey, APIKeys: testAPI, UploadTTL: time.Hour}
	if err := cfg.checkStorage(); err != nil { // the EU defaults, as setUp does
		t.Fatal(err)
	}
	st, err := openStores(t.Context(), cfg, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	for _, tc := range []struct {
		r              *region
		schema, prefix string
	}{{st.main, "earshot", "prod/"}, {st.eu, "earshot_eu", "prod/eu/"}} {
		pg, ok := tc.r.store.(*postgres.Store)
		if !ok || pg.Schema() != tc.schema || tc.r.rtState == nil {
			t.Errorf("%s store %T (realtime state %v), want PostgreSQL in schema %s", tc.r.label(), tc.r.store, tc.r.rtState, tc.schema)
		}
		if tc.r.s3 == nil || tc.r.blobs != driver.BlobStore(tc.r.s3) || tc.r.s3.Bucket() != s3c.Bucket || tc.r.s3.Prefix() != tc.prefix {
			t.Errorf("%s blobs %T, want S3 bucket %s prefix %s", tc.r.label(), tc.r.blobs, s3c.Bucket, tc.prefix)
		}
		want := []any{"database_schema", tc.schema, "s3_bucket", s3c.Bucket, "s3_prefix", tc.prefix}
		if got := tc.r.where(cfg); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s where: %v, want %v", tc.r.label(), got, want)
		}
	}
}
