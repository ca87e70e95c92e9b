package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/transcribe/driver/drivertest"
	"github.com/earshot-dev/earshot/transcribe/queue/queuetest"
	"github.com/earshot-dev/earshot/webhook"
	"github.com/earshot-dev/earshot/webhook/webhooktest"
)

func openTemp(t testing.TB, cfg Config) *Store {
	t.Helper()
	if cfg.Path == "" {
		cfg.Path = filepath.Join(t.TempDir(), "earshot.db")
	}
	s, err := Open(cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

func TestConformance(t *testing.T) {
	// NORMAL keeps the suites fast; FULL is exercised by the other tests.
	t.Run("Store", func(t *testing.T) {
		drivertest.RunStoreTests(t, func(t *testing.T) driver.Store {
			return openTemp(t, Config{Synchronous: "NORMAL"})
		})
	})
	t.Run("UploadStore", func(t *testing.T) {
		drivertest.RunUploadStoreTests(t, func(t *testing.T) driver.UploadStore {
			s := openTemp(t, Config{Synchronous: "NORMAL"})
			t.Cleanup(func() { s.Close() })
			return s
		})
	})
	t.Run("Queue", func(t *testing.T) {
		webhooktest.RunQueueTests(t, func(t *testing.T) webhook.Queue {
			s := openTemp(t, Config{Synchronous: "NORMAL"})
			t.Cleanup(func() { s.Close() })
			return s
		})
	})
	t.Run("LeasedQueue", func(t *testing.T) {
		queuetest.Run(t,
			drivertest.JobQueue(func(t *testing.T) driver.Store {
				return openTemp(t, Config{Synchronous: "NORMAL"})
			}),
			webhooktest.DeliveryQueue(func(t *testing.T) webhook.Queue {
				s := openTemp(t, Config{Synchronous: "NORMAL"})
				t.Cleanup(func() { s.Close() })
				return s
			}))
	})
}

var base = time.Date(2026, 5, 1, 12, 0, 0, 123456789, time.UTC)

func queued(id string) *driver.Record {
	return &driver.Record{ID: id, ProjectID: "p", Status: transcribe.StatusQueued, Created: base, Data: []byte("data " + id)}
}

func TestConfig(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "Path is required"},
		{Config{Path: ":memory:"}, "in-memory"},
		{Config{Path: "file:x.db?mode=memory"}, "in-memory"},
		{Config{Path: filepath.Join(dir, "a?b.db")}, "must not contain"},
		{Config{Path: filepath.Join(dir, "a.db"), BusyTimeout: -time.Second}, "BusyTimeout"},
		{Config{Path: filepath.Join(dir, "a.db"), MaxOpenConns: -1}, "MaxOpenConns"},
		{Config{Path: filepath.Join(dir, "a.db"), Synchronous: "OFF"}, "Synchronous"},
	} {
		s, err := Open(c.cfg)
		if err == nil {
			s.Close()
			t.Errorf("Open(%+v) succeeded, want an error about %s", c.cfg, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("Open(%+v) = %v, want an error about %s", c.cfg, err, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "a.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a rejected Config created the file: %v", err)
	}
	s := openTemp(t, Config{Path: filepath.Join(dir, "ok.db"), Synchronous: "normal"})
	defer s.Close()
	var sync int
	if err := s.db.QueryRow(`PRAGMA synchronous`).Scan(&sync); err != nil || sync != 1 {
		t.Errorf("PRAGMA synchronous = %d, %v; want 1 (NORMAL)", sync, err)
	}
}

func TestPragmasAndFileModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "data")
	path := filepath.Join(dir, "earshot.db")
	s := openTemp(t, Config{Path: path})
	defer s.Close()
	ctx := t.Context()
	if err := s.Create(ctx, queued("a")); err != nil {
		t.Fatal(err)
	}
	var mode string
	var fk, busy, sync int
	for _, p := range []struct {
		q   string
		dst any
	}{{"PRAGMA journal_mode", &mode}, {"PRAGMA foreign_keys", &fk}, {"PRAGMA busy_timeout", &busy}, {"PRAGMA synchronous", &sync}} {
		if err := s.db.QueryRowContext(ctx, p.q).Scan(p.dst); err != nil {
			t.Fatalf("%s: %v", p.q, err)
		}
	}
	if mode != "wal" || fk != 1 || busy != 5000 || sync != 2 {
		t.Errorf("journal_mode=%s foreign_keys=%d busy_timeout=%d synchronous=%d; want wal 1 5000 2", mode, fk, busy, sync)
	}
	for _, name := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(name)
		if err != nil {
			t.Fatalf("stat: %v", err)
		}
		if perm := fi.Mode().Perm(); perm != 0o600 {
			t.Errorf("%s has mode %o, want 600", filepath.Base(name), perm)
		}
	}
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("created directory mode: %v %v, want 700", fi.Mode().Perm(), err)
	}
	var version int
	if err := s.db.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&version); err != nil || version != SchemaVersion {
		t.Errorf("schema_version = %d, %v; want %d", version, err, SchemaVersion)
	}
	// The claim and list statements use their indexes and never sort.
	listQ, listArgs, err := listSQL(driver.ListQuery{ProjectID: "p", Limit: 11, CreatedFrom: base, BeforeID: "x"})
	if err != nil {
		t.Fatal(err)
	}
	afterQ, afterArgs, err := listSQL(driver.ListQuery{ProjectID: "p", Limit: 11, AfterID: "y", Status: transcribe.StatusCompleted})
	if err != nil {
		t.Fatal(err)
	}
	expQ, expArgs, err := listUploadsSQL(driver.UploadQuery{CreatedBefore: base, Unattached: true, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	allQ, allArgs, err := listUploadsSQL(driver.UploadQuery{CreatedBefore: base, AfterCreated: base, AfterID: "u", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, query, index string
		args               []any
	}{
		{"ClaimJob", jobs.Claim, "transcripts_active", []any{"w", 1, 2}},
		{"ClaimDelivery", deliveries.Claim, "deliveries_due", []any{"w", 1, 2}},
		{"List", listQ, "transcripts_project", listArgs},
		{"List after", afterQ, "transcripts_project", afterArgs},
		{"ListUploads unattached", expQ, "uploads_unattached", expArgs},
		{"ListUploads", allQ, "uploads_created", allArgs},
	} {
		plan := explain(t, s, c.query, c.args...)
		t.Logf("%s plan:\n%s", c.name, plan)
		if !strings.Contains(plan, "INDEX "+c.index) || strings.Contains(plan, "TEMP B-TREE") {
			t.Errorf("query plan of %s does not use %s alone:\n%s", c.name, c.index, plan)
		}
	}
}

func explain(t *testing.T, s *Store, q string, args ...any) string {
	t.Helper()
	rows, err := s.db.Query(`EXPLAIN QUERY PLAN `+q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		b.WriteString(detail + "\n")
	}
	return b.String()
}

func TestDurability(t *testing.T) {
	path := filepath.Join(t.TempDir(), "earshot.db")
	ctx := t.Context()
	s := openTemp(t, Config{Path: path})
	var seqs []int64
	for i := range 5 {
		r := queued(fmt.Sprintf("t%d", i))
		r.Created = base.Add(time.Duration(i) * time.Second)
		if err := s.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, r.Seq)
	}
	claimed, err := s.ClaimJob(ctx, driver.Claim{Owner: "w1", Now: base, Lease: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	claimed.Status, claimed.Completed, claimed.Data = transcribe.StatusCompleted, base.Add(time.Minute), []byte("result")
	if err := s.Update(ctx, claimed); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateUpload(ctx, &driver.Upload{ID: "u", ProjectID: "p", Size: 42, Created: base}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddDelivery(ctx, &webhook.Delivery{ID: "d", TranscriptID: "t0", Attempts: 1, NextAttempt: base, Data: []byte("hook")}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := s.Get(ctx, "t0"); err == nil {
		t.Error("Get after Close succeeded")
	}

	s2 := openTemp(t, Config{Path: path})
	defer s2.Close()
	got, err := s2.Get(ctx, "t0")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != transcribe.StatusCompleted || !got.Completed.Equal(base.Add(time.Minute)) || string(got.Data) != "result" ||
		got.LeaseOwner != "w1" || got.Seq != seqs[0] || !got.Created.Equal(base) {
		t.Errorf("after reopen: %+v", got)
	}
	recs, err := s2.List(ctx, driver.ListQuery{ProjectID: "p"})
	if err != nil || len(recs) != 5 || recs[0].ID != "t4" {
		t.Fatalf("List after reopen: %d records, %v", len(recs), err)
	}
	if u, err := s2.GetUpload(ctx, "u"); err != nil || u.Size != 42 {
		t.Errorf("upload after reopen: %+v %v", u, err)
	}
	if d, err := s2.ClaimDelivery(ctx, webhook.Claim{Owner: "w", Now: base, Lease: time.Minute}); err != nil || d.ID != "d" || string(d.Data) != "hook" || d.Attempts != 1 {
		t.Errorf("delivery after reopen: %+v %v", d, err)
	}
	// Seq keeps increasing across reopen, even past deleted high values.
	r := queued("new")
	if err := s2.Create(ctx, r); err != nil || r.Seq <= seqs[4] {
		t.Errorf("Seq after reopen = %d, %v; want > %d", r.Seq, err, seqs[4])
	}
	// Next claim is t1 (t0 completed).
	if j, err := s2.ClaimJob(ctx, driver.Claim{Owner: "w2", Now: base, Lease: time.Minute}); err != nil || j.ID != "t1" {
		t.Errorf("ClaimJob after reopen: %v %v", j, err)
	}
}

func TestSchemaNewerRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "earshot.db")
	s := openTemp(t, Config{Path: path})
	if _, err := s.db.Exec(`UPDATE schema_version SET version = ?`, SchemaVersion+1); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err := Open(Config{Path: path}); err == nil {
		s.Close()
		t.Fatal("Open of a database with a newer schema succeeded")
	} else if !strings.Contains(err.Error(), "newer") {
		t.Errorf("error = %v", err)
	}
}

// TestMigrateFromV1: a database written by schema version 1 (uploads
// without transcript_id) opens, keeps its uploads as unattached, and they
// expire and attach like new ones.
func TestMigrateFromV1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "earshot.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE schema_version (version INTEGER NOT NULL)`,
		`INSERT INTO schema_version (version) VALUES (1)`,
		migrations[0],
		`INSERT INTO uploads (id, project_id, size, created) VALUES ('old', 'p', 7, ?)`,
	} {
		args := []any{}
		if strings.Contains(q, "?") {
			args = append(args, base.UnixNano())
		}
		if _, err := db.Exec(q, args...); err != nil {
			db.Close()
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	s := openTemp(t, Config{Path: path})
	ctx := t.Context()
	var version int
	if err := s.db.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&version); err != nil || version != SchemaVersion {
		t.Errorf("schema_version after migration = %d, %v; want %d", version, err, SchemaVersion)
	}
	u, err := s.GetUpload(ctx, "old")
	if err != nil || u.Size != 7 || u.TranscriptID != "" || !u.Created.Equal(base) {
		t.Fatalf("GetUpload after migration = %+v, %v", u, err)
	}
	if us, err := s.ListUploads(ctx, driver.UploadQuery{CreatedBefore: base.Add(time.Second), Unattached: true}); err != nil || len(us) != 1 || us[0].ID != "old" {
		t.Errorf("ListUploads after migration = %v, %v; want [old]", us, err)
	}
	if err := s.AttachUpload(ctx, "old", "t1"); err != nil {
		t.Fatal(err)
	}
	if us, err := s.ListUploads(ctx, driver.UploadQuery{CreatedBefore: base.Add(time.Second), Unattached: true}); err != nil || len(us) != 0 {
		t.Errorf("ListUploads after AttachUpload = %v, %v; want none", us, err)
	}
}

// TestMigrateFromV3: a version 3 database (data before the columns added
// later) keeps its transcripts and their sequence, and data becomes the
// last column.
func TestMigrateFromV3(t *testing.T) {
	path := filepath.Join(t.TempDir(), "earshot.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE schema_version (version INTEGER NOT NULL)`,
		`INSERT INTO schema_version (version) VALUES (3)`,
		migrations[0], migrations[1], migrations[2],
		`INSERT INTO transcripts (id, project_id, status, created, completed, lease_until, data, claims, summary)
			VALUES ('a', 'p', 'completed', 1, 2, 3, x'0102', 1, x'05')`,
		`INSERT INTO transcripts (id, project_id, status, created, completed, lease_until, data)
			VALUES ('b', 'p', 'queued', 4, 5, 6, x'03')`,
		`DELETE FROM transcripts WHERE id = 'b'`,
	} {
		if _, err := db.Exec(q); err != nil {
			db.Close()
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	s := openTemp(t, Config{Path: path})
	ctx := t.Context()
	r, err := s.Get(ctx, "a")
	if err != nil || r.Seq != 1 || r.Claims != 1 || string(r.Data) != "\x01\x02" || string(r.Summary) != "\x05" || r.Status != transcribe.StatusCompleted {
		t.Fatalf("Get after migration = %+v, %v", r, err)
	}
	c := queued("c")
	if err := s.Create(ctx, c); err != nil {
		t.Fatal(err)
	}
	if c.Seq != 3 {
		t.Errorf("a record created after the migration has seq %d, want 3 (the sequence continues past deleted rows)", c.Seq)
	}
	var last string
	if err := s.db.QueryRowContext(ctx, `SELECT name FROM pragma_table_info('transcripts') ORDER BY cid DESC LIMIT 1`).Scan(&last); err != nil || last != "data" {
		t.Errorf("last column of transcripts = %q, %v; want data", last, err)
	}
	for _, ix := range []string{"transcripts_project", "transcripts_active"} {
		var n int
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = ?`, ix).Scan(&n); err != nil || n != 1 {
			t.Errorf("index %s after migration: %d, %v", ix, n, err)
		}
	}
}

// TestOpenConcurrently: several handles create and migrate one new file
// at the same time (SQLite answers SQLITE_BUSY without waiting while a new
// file turns into a WAL database; Open must retry).
func TestOpenConcurrently(t *testing.T) {
	for round := range 4 {
		path := filepath.Join(t.TempDir(), "earshot.db")
		var wg sync.WaitGroup
		stores := make([]*Store, 8)
		errs := make([]error, len(stores))
		for i := range stores {
			wg.Go(func() { stores[i], errs[i] = Open(Config{Path: path}) })
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("round %d, opener %d: %v", round, i, err)
				continue
			}
			defer stores[i].Close()
		}
		if t.Failed() {
			return
		}
		if err := stores[0].Create(t.Context(), queued("x")); err != nil {
			t.Fatal(err)
		}
		if _, err := stores[7].Get(t.Context(), "x"); err != nil {
			t.Errorf("another handle cannot see the record: %v", err)
		}
	}
}

func TestTimeRange(t *testing.T) {
	s := openTemp(t, Config{Synchronous: "NORMAL"})
	defer s.Close()
	ctx := t.Context()
	r := queued("old")
	r.Created = time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := s.Create(ctx, r); err == nil || !strings.Contains(err.Error(), "outside the storable range") {
		t.Errorf("Create with a year-1500 time: %v", err)
	}
	if _, err := s.Get(ctx, "old"); !errors.Is(err, transcribe.ErrNotFound) {
		t.Errorf("a refused Create stored the record: %v", err)
	}
	if err := s.Create(ctx, queued("ok")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ClaimJob(ctx, driver.Claim{Owner: "w", Now: base, Lease: time.Duration(math.MaxInt64)}); err == nil {
		t.Error("ClaimJob with a lease ending after 2262 succeeded")
	}
	if got, err := s.Get(ctx, "ok"); err != nil || got.Status != transcribe.StatusQueued {
		t.Errorf("a refused ClaimJob changed the record: %+v %v", got, err)
	}
	// The extremes that fit round-trip.
	for i, tm := range []time.Time{time.Unix(0, -1<<62).UTC(), time.Unix(0, 1<<62).UTC(), time.Unix(0, 0).UTC(), time.Unix(0, 1).UTC()} {
		r := queued(fmt.Sprintf("t%d", i))
		r.Created, r.Completed = tm, tm
		if err := s.Create(ctx, r); err != nil {
			t.Fatalf("Create with %v: %v", tm, err)
		}
		got, err := s.Get(ctx, r.ID)
		if err != nil || !got.Created.Equal(tm) || !got.Completed.Equal(tm) {
			t.Errorf("time %v came back as %v / %v (%v)", tm, got.Created, got.Completed, err)
		}
	}
}

func TestContextCancelled(t *testing.T) {
	s := openTemp(t, Config{Synchronous: "NORMAL"})
	defer s.Close()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := s.Create(ctx, queued("x")); !errors.Is(err, context.Canceled) {
		t.Errorf("Create with a cancelled context: %v", err)
	}
	if _, err := s.ClaimJob(ctx, driver.Claim{Owner: "w", Now: base, Lease: time.Minute}); !errors.Is(err, context.Canceled) {
		t.Errorf("ClaimJob with a cancelled context: %v", err)
	}
}

// claimAll claims jobs from s until ErrNoJob and sends their ids to out.
func BenchmarkGet(b *testing.B) {
	s := openTemp(b, Config{})
	defer s.Close()
	ctx := context.Background()
	const n = 1000
	for i := range n {
		r := queued(fmt.Sprintf("t%04d", i))
		r.Data = make([]byte, 4096)
		if err := s.Create(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if _, err := s.Get(ctx, fmt.Sprintf("t%04d", i%n)); err != nil {
				b.Error(err)
				return
			}
			i++
		}
	})
}

func benchmarkClaim(b *testing.B, sync string) {
	s := openTemp(b, Config{Synchronous: sync})
	defer s.Close()
	ctx := context.Background()
	for i := range b.N {
		r := queued(fmt.Sprintf("t%08d", i))
		r.Data = make([]byte, 1024)
		if err := s.Create(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		r, err := s.ClaimJob(ctx, driver.Claim{Owner: "w", Now: base, Lease: time.Hour})
		if err != nil {
			b.Fatal(err)
		}
		// Finish the job as a worker would, outside the measurement, so
		// that processing records do not pile up as they never do in use.
		b.StopTimer()
		r.Status = transcribe.StatusCompleted
		if err := s.Update(ctx, r); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

func BenchmarkClaimJob(b *testing.B)       { benchmarkClaim(b, "FULL") }
func BenchmarkClaimJobNormal(b *testing.B) { benchmarkClaim(b, "NORMAL") }

func BenchmarkCreate(b *testing.B) {
	s := openTemp(b, Config{})
	defer s.Close()
	ctx := context.Background()
	data := make([]byte, 4096)
	b.ResetTimer()
	for i := range b.N {
		r := queued(fmt.Sprintf("t%08d", i))
		r.Data = data
		if err := s.Create(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
}

const crashEnv = "EARSHOT_SQLITE_CRASH_CHILD"

// TestCrashChild is run by TestCrashRecovery: it writes records, reports
// them and then waits to be killed, never closing the database.
func TestGetDataIsOwned(t *testing.T) {
	s := openTemp(t, Config{Synchronous: "NORMAL"})
	ctx := t.Context()
	ids := []string{"a", "b", "c"}
	want := map[string][]byte{}
	for i, id := range ids {
		data := bytes.Repeat([]byte{byte('A' + i)}, 100_000+i)
		want[id] = data
		r := &driver.Record{ID: id, ProjectID: "p", Status: transcribe.StatusCompleted, Created: time.Unix(int64(i), 0), Data: data, Summary: []byte("s")}
		if err := s.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	var held []*driver.Record
	for range 20 {
		for _, id := range ids {
			r, err := s.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			held = append(held, r)
		}
	}
	for _, r := range held {
		if !bytes.Equal(r.Data, want[r.ID]) {
			t.Fatalf("record %s: the Data of an earlier Get changed under later reads", r.ID)
		}
	}
}
