package server

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/earshot-dev/earshot/realtime"
	"github.com/earshot-dev/earshot/storage/localfs"
	"github.com/earshot-dev/earshot/storage/postgres"
	"github.com/earshot-dev/earshot/storage/s3"
	"github.com/earshot-dev/earshot/storage/sqlite"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/webhook"
)

// regionStore is what a region keeps its records in: transcripts, jobs,
// uploads (the bundled stores implement driver.UploadStore too) and
// webhook deliveries.
type regionStore interface {
	driver.Store
	webhook.Queue
	SetWebhookStatus(ctx context.Context, id string, code int) error
}

// region is the storage of one region: its store and blobs, and with a
// database the realtime state its processes share.
type region struct {
	name    string // "" for the main region, "eu"
	store   regionStore
	blobs   driver.BlobStore
	rtState realtime.StateStore // nil: the realtime Handler's own memory
	s3      *s3.Store           // set when blobs are in S3
	closers []func() error
}

func (r *region) close() {
	for i := len(r.closers) - 1; i >= 0; i-- {
		_ = r.closers[i]()
	}
}

// where describes the region's storage for the start-up log.
func (r *region) where(cfg *Config) []any {
	var out []any
	if pg, ok := r.store.(*postgres.Store); ok {
		out = append(out, "database_schema", pg.Schema())
	} else {
		out = append(out, "database", "sqlite")
	}
	if r.s3 != nil {
		out = append(out, "s3_bucket", r.s3.Bucket(), "s3_prefix", r.s3.Prefix())
	} else {
		out = append(out, "blobs", "files")
	}
	return out
}

// stores are the regions' storage: the main region's always, the EU
// region's (nil without it) with EARSHOT_EU_ADDR.
type stores struct {
	main, eu *region
}

// openStores opens the main region's storage in the data directory
// (EARSHOT_DATABASE_SCHEMA, EARSHOT_S3_BUCKET and EARSHOT_S3_PREFIX with a
// database and S3), and with EARSHOT_EU_ADDR the EU region's in its eu
// subdirectory (EARSHOT_EU_DATABASE_SCHEMA, EARSHOT_EU_S3_BUCKET,
// EARSHOT_EU_S3_PREFIX). See openRegion.
func openStores(ctx context.Context, cfg *Config, log *slog.Logger) (*stores, error) {
	main, err := openRegion(ctx, cfg, "", cfg.Data, cfg.DatabaseSchema, cfg.S3Bucket, cfg.S3Prefix, log)
	if err != nil {
		return nil, err
	}
	s := &stores{main: main}
	if cfg.EUAddr != "" {
		s.eu, err = openRegion(ctx, cfg, "eu", filepath.Join(cfg.Data, "eu"), cfg.EUDatabaseSchema, cfg.EUS3Bucket, cfg.EUS3Prefix, log)
		if err != nil {
			main.close()
			return nil, err
		}
	}
	return s, nil
}

// all is the open regions, the main one first.
func (s *stores) all() []*region {
	if s.eu == nil {
		return []*region{s.main}
	}
	return []*region{s.main, s.eu}
}

// close closes the regions' storage, the EU region's first.
func (s *stores) close() {
	if s.eu != nil {
		s.eu.close()
	}
	s.main.close()
}

// openRegion opens the store and blob store of a region: PostgreSQL
// (schema) or SQLite (dir/earshot.db); S3 (bucket, prefix) or files
// (dir/blobs). dir is inside the data directory, which this process holds
// locked.
func openRegion(ctx context.Context, cfg *Config, name, dir, schema, bucket, prefix string, log *slog.Logger) (*region, error) {
	r := &region{name: name}
	label := "EARSHOT_"
	if name == "eu" {
		label = "EARSHOT_EU_"
	}
	ok := false
	defer func() {
		if !ok {
			r.close()
		}
	}()
	if cfg.DatabaseURL != "" {
		octx, cancel := context.WithTimeout(ctx, time.Minute)
		pg, err := postgres.Open(octx, postgres.Config{URL: cfg.DatabaseURL, Schema: schema, ApplicationName: "earshot"})
		cancel()
		if err != nil {
			return nil, fmt.Errorf("EARSHOT_DATABASE_URL (%sDATABASE_SCHEMA %s): %w", label, schema, err)
		}
		r.closers = append(r.closers, pg.Close)
		r.store, r.rtState = pg, pg.Realtime()
	} else {
		sq, err := sqlite.Open(sqlite.Config{Path: filepath.Join(dir, "earshot.db")})
		if err != nil {
			return nil, err
		}
		r.closers = append(r.closers, sq.Close)
		r.store = sq
	}
	if cfg.S3Endpoint != "" {
		st, err := s3.New(ctx, s3.Config{
			Endpoint: cfg.S3Endpoint, Bucket: bucket, Prefix: prefix, Region: cfg.S3Region,
			AccessKey: cfg.S3AccessKey, SecretKey: cfg.S3SecretKey, CreateBucket: cfg.S3CreateBucket,
		})
		if err != nil {
			return nil, fmt.Errorf("EARSHOT_S3_* (%sS3_BUCKET %s, prefix %q): %w", label, bucket, prefix, err)
		}
		r.closers = append(r.closers, st.Close)
		r.blobs, r.s3 = st, st
		// Multipart uploads older than the upload lifetime belong to
		// processes that died mid-upload (a live one finishes or aborts
		// its own): abort them now and then.
		r.abortIncomplete(ctx, cfg.UploadTTL, log)
	} else {
		if cfg.DatabaseURL != "" {
			log.Warn("uploads and redacted audio are files in this process's data directory: other processes sharing the database cannot read them; set EARSHOT_S3_ENDPOINT and EARSHOT_S3_BUCKET to run several processes", "region", r.label())
		}
		fsb, err := localfs.New(filepath.Join(dir, "blobs"))
		if err != nil {
			return nil, err
		}
		// This process owns the data directory (its lock): a fragment of
		// an upload is always a leftover of a crashed run.
		if n, err := fsb.RemoveStale(ctx, 0); err != nil {
			log.Warn("removing upload fragments of an earlier run", "region", r.label(), "err", err)
		} else if n > 0 {
			log.Info("removed upload fragments of an earlier run", "region", r.label(), "count", n)
		}
		r.blobs = fsb
	}
	ok = true
	return r, nil
}

func (r *region) label() string {
	if r.name == "" {
		return "main"
	}
	return r.name
}

// abortIncomplete aborts the region's S3 multipart uploads older than
// age, logging what it did.
func (r *region) abortIncomplete(ctx context.Context, age time.Duration, log *slog.Logger) {
	actx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	n, err := r.s3.AbortIncomplete(actx, age)
	switch {
	case err != nil:
		log.Warn("aborting incomplete S3 uploads of dead processes", "region", r.label(), "err", err)
	case n > 0:
		log.Info("aborted incomplete S3 uploads of dead processes", "region", r.label(), "count", n, "older_than", age)
	}
}

// janitor aborts stale S3 multipart uploads every interval until ctx
// ends; without S3 it returns at once.
func (r *region) janitor(ctx context.Context, age time.Duration, log *slog.Logger) {
	if r.s3 == nil {
		return
	}
	t := time.NewTicker(min(age/4, 10*time.Minute))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			r.abortIncomplete(ctx, age, log)
		}
	}
}

// processID names this process in job, delivery and session leases:
// host, pid and a random part (a pid is reused after a restart).
func processID() string {
	host, _ := os.Hostname()
	if host == "" {
		host = "earshot"
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s-%d-%x", host, os.Getpid(), b)
}
