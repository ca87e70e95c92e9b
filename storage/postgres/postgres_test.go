package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/earshot-dev/earshot/internal/testservices"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/webhook"
)

// t0 is the tests' reference time, microsecond precision.
var t0 = time.Date(2026, 5, 1, 12, 0, 0, 123456000, time.UTC)

// admin connects to url directly, for inspecting what the Store wrote.
func admin(t testing.TB, url string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connecting to the test database: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func queued(id, project string, i int) *driver.Record {
	return &driver.Record{
		ID: id, ProjectID: project, Status: transcribe.StatusQueued,
		Created: t0.Add(time.Duration(i) * time.Second), Data: []byte("sealed:" + id),
	}
}

func mustCreate(t testing.TB, s *Store, rs ...*driver.Record) {
	t.Helper()
	for _, r := range rs {
		if err := s.Create(context.Background(), r); err != nil {
			t.Fatalf("Create(%s): %v", r.ID, err)
		}
	}
}

// The SQL repeats the status names as literals (in queries and in the
// partial index of migration 1); they must be the core's.
func TestStatusLiterals(t *testing.T) {
	if transcribe.StatusQueued != "queued" || transcribe.StatusProcessing != "processing" {
		t.Fatalf("status names changed (%q, %q): update the jobs table's claim and add a migration rebuilding transcripts_claimable",
			transcribe.StatusQueued, transcribe.StatusProcessing)
	}
}

// Several processes starting together on a new database: every Open
// succeeds and the migration is applied exactly once, in one transaction.
func TestOpenConcurrently(t *testing.T) {
	t.Parallel()
	url := testservices.Postgres(t)
	const openers = 8
	var (
		wg    sync.WaitGroup
		start = make(chan struct{})
		errs  = make(chan error, openers)
	)
	for i := range openers {
		wg.Go(func() {
			<-start
			s, err := Open(context.Background(), Config{URL: url, MaxConns: 2})
			if err != nil {
				errs <- fmt.Errorf("opener %d: %w", i, err)
				return
			}
			// Each can use the tables at once.
			if err := s.Create(context.Background(), queued(fmt.Sprint("t", i), "p", i)); err != nil {
				errs <- fmt.Errorf("opener %d: Create: %w", i, err)
			}
			s.Close()
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	conn := admin(t, url)
	var rows, txs, maxVersion int
	err := conn.QueryRow(context.Background(),
		`SELECT count(*), count(DISTINCT xmin::text), max(version) FROM earshot.schema_migrations`).Scan(&rows, &txs, &maxVersion)
	if err != nil {
		t.Fatal(err)
	}
	if rows != SchemaVersion || maxVersion != SchemaVersion || txs != 1 {
		t.Errorf("schema_migrations: %d rows written by %d transactions, max version %d; want %d rows by 1 transaction",
			rows, txs, maxVersion, SchemaVersion)
	}
	var n int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM earshot.transcripts`).Scan(&n); err != nil || n != openers {
		t.Errorf("transcripts after the openers: %d, %v; want %d", n, err, openers)
	}
}

// Opening a migrated schema again changes nothing; a newer schema is
// refused; a migration that fails leaves nothing behind.
func TestMigrations(t *testing.T) {
	t.Parallel()
	url := testservices.Postgres(t)
	ctx := context.Background()
	conn := admin(t, url)
	applied := func(schema string) (n int, at time.Time) {
		t.Helper()
		err := conn.QueryRow(ctx, `SELECT count(*), coalesce(max(applied_at), 'epoch') FROM `+
			pgx.Identifier{schema, "schema_migrations"}.Sanitize()).Scan(&n, &at)
		if err != nil {
			t.Fatalf("reading %s.schema_migrations: %v", schema, err)
		}
		return n, at
	}

	t.Run("idempotent", func(t *testing.T) {
		s := openTest(t, url, "again")
		mustCreate(t, s, queued("kept", "p", 0))
		s.Close()
		n1, at1 := applied("again")
		s2 := openTest(t, url, "again")
		n2, at2 := applied("again")
		if n1 != SchemaVersion || n2 != n1 || !at2.Equal(at1) {
			t.Errorf("second Open changed schema_migrations: %d rows at %v, then %d at %v", n1, at1, n2, at2)
		}
		if _, err := s2.Get(ctx, "kept"); err != nil {
			t.Errorf("record lost across Opens: %v", err)
		}
	})

	t.Run("newer refused", func(t *testing.T) {
		s := openTest(t, url, "newer")
		s.Close()
		if _, err := conn.Exec(ctx, `INSERT INTO newer.schema_migrations (version) VALUES ($1)`, SchemaVersion+1); err != nil {
			t.Fatal(err)
		}
		_, err := Open(ctx, Config{URL: url, Schema: "newer"})
		if !errors.Is(err, ErrSchemaTooNew) {
			t.Fatalf("Open of a schema at version %d: %v; want ErrSchemaTooNew", SchemaVersion+1, err)
		}
		if want := fmt.Sprintf("schema version %d, this build knows up to %d", SchemaVersion+1, SchemaVersion); !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	})

	t.Run("failure rolls back", func(t *testing.T) {
		// A schema holding someone else's table named transcripts.
		if _, err := conn.Exec(ctx, `CREATE SCHEMA clash; CREATE TABLE clash.transcripts (x int)`); err != nil {
			t.Fatal(err)
		}
		_, err := Open(ctx, Config{URL: url, Schema: "clash"})
		if err == nil || !strings.Contains(err.Error(), "migrating schema clash to version 1") ||
			!strings.Contains(err.Error(), `"transcripts" already exists`) {
			t.Fatalf("Open over a clashing table: %v; want an error naming the migration and the table", err)
		}
		var tables []string
		rows, _ := conn.Query(ctx, `SELECT table_name FROM information_schema.tables WHERE table_schema = 'clash' ORDER BY 1`)
		tables, err = pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(tables, ",") != "transcripts" {
			t.Errorf("tables left in schema clash after the failed migration: %v; want only the user's", tables)
		}
	})

	t.Run("roles without CREATE", func(t *testing.T) {
		// A role that may use a schema made for it, but not create schemas.
		role := fmt.Sprintf("earshot_limited_%d", time.Now().UnixNano()%1e9) // roles are cluster-wide
		var db string
		if err := conn.QueryRow(ctx, `SELECT current_database()`).Scan(&db); err != nil {
			t.Fatal(err)
		}
		pw := "Lim1tedPw"
		if _, err := conn.Exec(ctx, fmt.Sprintf(`CREATE ROLE %s LOGIN PASSWORD '%s'; CREATE SCHEMA limited AUTHORIZATION %s;
			REVOKE CREATE ON DATABASE %s FROM PUBLIC`, role, pw, role, pgx.Identifier{db}.Sanitize())); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			conn.Exec(context.Background(), `DROP SCHEMA limited CASCADE`)
			conn.Exec(context.Background(), `DROP ROLE `+role)
		})
		cfg, err := pgx.ParseConfig(url)
		if err != nil {
			t.Fatal(err)
		}
		limitedURL := fmt.Sprintf("postgres://%s:%s@%s:%d/%s?sslmode=disable", role, pw, cfg.Host, cfg.Port, db)
		s := openTest(t, limitedURL, "limited")
		mustCreate(t, s, queued("x", "p", 0))
		if _, err := Open(ctx, Config{URL: limitedURL, Schema: "elsewhere"}); err == nil ||
			!strings.Contains(err.Error(), "creating schema elsewhere") || !strings.Contains(err.Error(), "permission denied") {
			t.Errorf("Open of a new schema without CREATE: %v; want permission denied creating it", err)
		}

		// A role with row privileges only (no CREATE anywhere) opens a
		// schema an administrator migrated, and works in it.
		openTest(t, url, "managed").Close()
		dml := role + "_dml"
		if _, err := conn.Exec(ctx, fmt.Sprintf(`CREATE ROLE %[1]s LOGIN PASSWORD '%[2]s'; GRANT USAGE ON SCHEMA managed TO %[1]s;
			GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA managed TO %[1]s;
			GRANT USAGE ON ALL SEQUENCES IN SCHEMA managed TO %[1]s`, dml, pw)); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			conn.Exec(context.Background(), `DROP SCHEMA managed CASCADE`)
			conn.Exec(context.Background(), `DROP ROLE `+dml)
		})
		dmlURL := fmt.Sprintf("postgres://%s:%s@%s:%d/%s?sslmode=disable", dml, pw, cfg.Host, cfg.Port, db)
		m := openTest(t, dmlURL, "managed")
		mustCreate(t, m, queued("y", "p", 0))
		if r, err := m.ClaimJob(ctx, driver.Claim{Owner: "w", Now: t0, Lease: time.Minute}); err != nil || r.ID != "y" {
			t.Errorf("ClaimJob as the row-privileged role: %+v, %v", r, err)
		}
	})
}

// Stores in different schemas of one database never see each other's data.
func TestSchemaIsolation(t *testing.T) {
	t.Parallel()
	url := testservices.Postgres(t)
	ctx := context.Background()
	eu, us, def := openTest(t, url, "region_eu"), openTest(t, url, "region_us"), openTest(t, url, "")
	if def.Schema() != DefaultSchema || eu.Schema() != "region_eu" {
		t.Fatalf("Schema() = %q, %q", def.Schema(), eu.Schema())
	}
	for i, s := range []*Store{eu, us, def} {
		name := []string{"eu", "us", "def"}[i]
		r := queued("same-id", "project-"+name, 0)
		mustCreate(t, s, r)
		if r.Seq != 1 {
			t.Errorf("%s: first record's Seq = %d; each schema counts on its own", name, r.Seq)
		}
		if err := s.CreateUpload(ctx, &driver.Upload{ID: "up", ProjectID: "project-" + name, Size: int64(i), Created: t0}); err != nil {
			t.Fatalf("%s: CreateUpload: %v", name, err)
		}
		if err := s.AddDelivery(ctx, &webhook.Delivery{ID: "d", TranscriptID: "same-id", NextAttempt: t0, Data: []byte(name)}); err != nil {
			t.Fatalf("%s: AddDelivery: %v", name, err)
		}
	}
	for i, s := range []*Store{eu, us, def} {
		name := []string{"eu", "us", "def"}[i]
		if r, err := s.Get(ctx, "same-id"); err != nil || r.ProjectID != "project-"+name {
			t.Errorf("%s: Get = %+v, %v", name, r, err)
		}
		if u, err := s.GetUpload(ctx, "up"); err != nil || u.Size != int64(i) {
			t.Errorf("%s: GetUpload = %+v, %v", name, u, err)
		}
		if recs, err := s.List(ctx, driver.ListQuery{ProjectID: "project-eu"}); err != nil || (name == "eu") != (len(recs) == 1) {
			t.Errorf("%s: List(project-eu) = %d records, %v", name, len(recs), err)
		}
	}
	// Claims stay in their schema: eu's job and delivery go once, the
	// others' remain.
	if _, err := eu.ClaimJob(ctx, driver.Claim{Owner: "w", Now: t0, Lease: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if _, err := eu.ClaimJob(ctx, driver.Claim{Owner: "w", Now: t0, Lease: time.Hour}); !errors.Is(err, transcribe.ErrNoJob) {
		t.Errorf("second claim in eu: %v, want ErrNoJob", err)
	}
	if d, err := eu.ClaimDelivery(ctx, webhook.Claim{Owner: "w", Now: t0, Lease: time.Hour}); err != nil || string(d.Data) != "eu" {
		t.Errorf("eu ClaimDelivery = %+v, %v", d, err)
	}
	for _, s := range []*Store{us, def} {
		if r, err := s.ClaimJob(ctx, driver.Claim{Owner: "w", Now: t0, Lease: time.Hour}); err != nil || r.Claims != 1 {
			t.Errorf("%s: ClaimJob = %+v, %v", s.Schema(), r, err)
		}
		if d, err := s.ClaimDelivery(ctx, webhook.Claim{Owner: "w", Now: t0, Lease: time.Hour}); err != nil || d.ID != "d" {
			t.Errorf("%s: ClaimDelivery = %+v, %v", s.Schema(), d, err)
		}
	}
	// The tables are where the schemas say.
	var n int
	err := admin(t, url).QueryRow(ctx, `SELECT count(*) FROM information_schema.tables
		WHERE table_schema IN ('region_eu', 'region_us', 'earshot') AND table_name IN ('transcripts', 'uploads', 'deliveries', 'schema_migrations')`).Scan(&n)
	if err != nil || n != 12 {
		t.Errorf("tables in the three schemas: %d, %v; want 12", n, err)
	}
}

// claimEverything runs claimers goroutines on each store until none gets a
// job, and returns who claimed what.
func TestAfterClose(t *testing.T) {
	t.Parallel()
	s := openTest(t, testservices.Postgres(t), "")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	ctx := context.Background()
	calls := map[string]error{}
	calls["Create"] = s.Create(ctx, queued("x", "p", 0))
	_, calls["Get"] = s.Get(ctx, "x")
	calls["Update"] = s.Update(ctx, queued("x", "p", 0))
	_, calls["List"] = s.List(ctx, driver.ListQuery{ProjectID: "p"})
	_, calls["ClaimJob"] = s.ClaimJob(ctx, driver.Claim{Owner: "w", Now: t0})
	calls["ExtendLease"] = s.ExtendLease(ctx, driver.Lease{ID: "x", Owner: "w", Until: t0})
	calls["SetWebhookStatus"] = s.SetWebhookStatus(ctx, "x", 200)
	calls["CreateUpload"] = s.CreateUpload(ctx, &driver.Upload{ID: "u", Created: t0})
	_, calls["GetUpload"] = s.GetUpload(ctx, "u")
	calls["AttachUpload"] = s.AttachUpload(ctx, "u", "x")
	calls["DeleteUpload"] = s.DeleteUpload(ctx, "u")
	_, calls["ListUploads"] = s.ListUploads(ctx, driver.UploadQuery{})
	calls["AddDelivery"] = s.AddDelivery(ctx, &webhook.Delivery{ID: "d", NextAttempt: t0})
	_, calls["ClaimDelivery"] = s.ClaimDelivery(ctx, webhook.Claim{Owner: "w", Now: t0})
	calls["ExtendDelivery"] = s.ExtendDelivery(ctx, driver.Lease{ID: "d", Owner: "w", Until: t0})
	calls["UpdateDelivery"] = s.UpdateDelivery(ctx, &webhook.Delivery{ID: "d"})
	_, calls["PurgeDeliveries"] = s.PurgeDeliveries(ctx, t0, 0)
	for name, err := range calls {
		if !errors.Is(err, transcribe.ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", name, err)
		}
	}
}

// Inputs PostgreSQL cannot hold get errors naming the field; lookups of
// such keys find nothing; query bounds beyond its range are clamped.
func TestUnstorableInput(t *testing.T) {
	t.Parallel()
	s := openTest(t, testservices.Postgres(t), "")
	ctx := context.Background()
	far := time.Date(300000, 1, 1, 0, 0, 0, 0, time.UTC)
	ancient := time.Date(-5000, 1, 1, 0, 0, 0, 0, time.UTC)

	for name, tc := range map[string]struct {
		err  error
		want string
	}{
		"Created far":     {s.Create(ctx, &driver.Record{ID: "a", ProjectID: "p", Created: far}), "Created"},
		"Completed old":   {s.Create(ctx, &driver.Record{ID: "a", ProjectID: "p", Created: t0, Completed: ancient}), "Completed"},
		"NUL id":          {s.Create(ctx, &driver.Record{ID: "a\x00b", ProjectID: "p", Created: t0}), "ID"},
		"bad UTF-8 owner": {s.Create(ctx, &driver.Record{ID: "a", ProjectID: "p", Created: t0, LeaseOwner: "\xff"}), "LeaseOwner"},
		"empty id":        {s.Create(ctx, &driver.Record{ProjectID: "p", Created: t0}), "id is empty"},
		"nil record":      {s.Create(ctx, nil), "nil record"},
		"upload NUL":      {s.CreateUpload(ctx, &driver.Upload{ID: "u", ProjectID: "p\x00", Created: t0}), "ProjectID"},
		"delivery far":    {s.AddDelivery(ctx, &webhook.Delivery{ID: "d", NextAttempt: far}), "NextAttempt"},
		"lease end far":   {s.ExtendLease(ctx, driver.Lease{ID: "a", Owner: "w", Until: far}), "Lease.Until"},
		"claim no owner":  {func() error { _, err := s.ClaimJob(ctx, driver.Claim{Now: t0}); return err }(), "owner is empty"},
		"negative lease": {func() error {
			_, err := s.ClaimDelivery(ctx, webhook.Claim{Owner: "w", Now: t0, Lease: -1})
			return err
		}(), "negative"},
		"List no project":  {func() error { _, err := s.List(ctx, driver.ListQuery{}); return err }(), "ProjectID is required"},
		"attach NUL":       {s.AttachUpload(ctx, "u", "t\x00"), "transcript id"},
		"status too large": {s.SetWebhookStatus(ctx, "a", 1<<40), "int4"},
	} {
		if tc.err == nil {
			if tc.want != "" {
				t.Errorf("%s: no error", name)
			}
			continue
		}
		if !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: %v; want it to name %q", name, tc.err, tc.want)
		}
	}
	// Lookups of keys no row can have.
	for _, id := range []string{"a\x00", "\xff\xfe"} {
		if _, err := s.Get(ctx, id); !errors.Is(err, transcribe.ErrNotFound) {
			t.Errorf("Get(%q): %v", id, err)
		}
		if _, err := s.GetUpload(ctx, id); !errors.Is(err, transcribe.ErrNotFound) {
			t.Errorf("GetUpload(%q): %v", id, err)
		}
		if err := s.DeleteUpload(ctx, id); err != nil {
			t.Errorf("DeleteUpload(%q): %v", id, err)
		}
		if err := s.SetWebhookStatus(ctx, id, 200); !errors.Is(err, transcribe.ErrNotFound) {
			t.Errorf("SetWebhookStatus(%q): %v", id, err)
		}
		if _, err := s.List(ctx, driver.ListQuery{ProjectID: "p", BeforeID: id}); !errors.Is(err, transcribe.ErrNotFound) {
			t.Errorf("List(BeforeID %q): %v", id, err)
		}
		if err := s.UpdateDelivery(ctx, &webhook.Delivery{ID: id}); !errors.Is(err, transcribe.ErrNotFound) {
			t.Errorf("UpdateDelivery(%q): %v", id, err)
		}
	}
	// Bounds beyond the range select everything or nothing.
	mustCreate(t, s, queued("r1", "p", 0), &driver.Record{ID: "r0", ProjectID: "p", Status: transcribe.StatusQueued}) // zero Created
	for _, tc := range []struct {
		q    driver.ListQuery
		want int
	}{
		{driver.ListQuery{ProjectID: "p", CreatedBefore: far}, 2},
		{driver.ListQuery{ProjectID: "p", CreatedFrom: far}, 0},
		{driver.ListQuery{ProjectID: "p", CreatedFrom: ancient}, 2},
		{driver.ListQuery{ProjectID: "p", CreatedBefore: t0}, 1}, // the zero-Created record sorts first
	} {
		if recs, err := s.List(ctx, tc.q); err != nil || len(recs) != tc.want {
			t.Errorf("List(%+v) = %d records, %v; want %d", tc.q, len(recs), err, tc.want)
		}
	}
	if r, err := s.Get(ctx, "r0"); err != nil || !r.Created.IsZero() {
		t.Errorf("zero Created came back as %v, %v", r.Created, err)
	}
	if us, err := s.ListUploads(ctx, driver.UploadQuery{CreatedBefore: far}); err != nil || len(us) != 0 {
		t.Errorf("ListUploads(far) = %v, %v", us, err)
	}
}

// The claim and list statements use the indexes made for them, so their
// cost does not grow with the number of finished records.
func TestPlans(t *testing.T) {
	t.Parallel()
	url := testservices.Postgres(t)
	s := openTest(t, url, "")
	ctx := context.Background()
	conn := admin(t, url)
	// Many finished records of other projects and done deliveries, a few
	// pending ones.
	if _, err := conn.Exec(ctx, `
		INSERT INTO earshot.transcripts (id, project_id, status, created)
			SELECT 'done' || i, 'other' || (i % 50), 'completed', now() FROM generate_series(1, 20000) i;
		INSERT INTO earshot.deliveries (id, transcript_id, next_attempt, done)
			SELECT 'd' || i, 't', now(), true FROM generate_series(1, 20000) i;
		ANALYZE earshot.transcripts; ANALYZE earshot.deliveries`); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, queued("new", "p1", 0))
	listSQL, listArgs := listQuery(driver.ListQuery{ProjectID: "p1", Limit: 10})
	for _, tc := range []struct {
		name, sql, index string
		args             []any
	}{
		{"ClaimJob", jobs.Claim, "transcripts_claimable", []any{"w", bound(t0), bound(t0)}},
		{"ClaimDelivery", deliveries.Claim, "deliveries_pending", []any{"w", bound(t0), bound(t0)}},
		{"List", listSQL, "transcripts_by_project", listArgs},
		{"CountJobs", countJobsSQL, "transcripts_claimable", []any{"queued"}},
	} {
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, `SET LOCAL search_path TO earshot`); err != nil {
			t.Fatal(err)
		}
		rows, err := tx.Query(ctx, `EXPLAIN `+tc.sql, tc.args...)
		if err != nil {
			t.Fatalf("%s: EXPLAIN: %v", tc.name, err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		tx.Rollback(ctx)
		if err != nil {
			t.Fatal(err)
		}
		plan := strings.Join(lines, "\n")
		if !strings.Contains(plan, tc.index) || strings.Contains(plan, "Seq Scan") {
			t.Errorf("%s does not use %s:\n%s", tc.name, tc.index, plan)
		}
	}
}
