// Package postgres is Earshot's PostgreSQL store: a *Store that implements
// driver.Store (transcript records, job claiming and leases),
// driver.UploadStore (upload ownership) and webhook.Queue (durable
// webhook deliveries) on one schema of a PostgreSQL database, through
// github.com/jackc/pgx/v5 and its pool, pgxpool. It is the store for
// several Earshot processes sharing work: any number of Stores, in any
// number of processes, may use the same schema.
//
// # Entry points
//
//   - Open(ctx, Config{URL: "postgres://..."}) connects, creates the
//     schema when missing, migrates it, and returns a *Store. Config
//     documents its defaults: Schema "earshot", MaxConns 10 (or the URL's
//     pool_max_conns), ConnectTimeout 10s (or the URL's connect_timeout),
//     ApplicationName "earshot".
//   - (*Store).Close closes the pool; later calls return an error wrapping
//     transcribe.ErrClosed.
//   - (*Store).Realtime returns a *RealtimeState, the realtime.StateStore
//     that lets a streaming session resume in another process (its
//     tables realtime_tokens and realtime_sessions live in the same
//     schema).
//   - (*Store) is also a driver.IdempotencyStore: the Idempotency-Key
//     records of every process on the schema, in table idempotency_keys,
//     created on first use (CREATE TABLE IF NOT EXISTS, outside the
//     numbered migrations).
//   - SchemaVersion is the schema version this build writes;
//     ErrSchemaTooNew is wrapped when the database was migrated by a newer
//     build.
//
// # Schemas and regions
//
// Config.Schema names the PostgreSQL schema holding the tables, and every
// connection of the Store gets it alone as its search_path (a startup
// parameter, so it costs no round trip). Stores with different schemas on
// one database never see each other's records, uploads or deliveries, and
// migrate independently: give each region its own schema. A connection
// pooler that does not pass startup parameters through (PgBouncer refuses
// search_path, or drops it when told to ignore it) loses the schema:
// behind one, give each schema its own role or pooler database with the
// search_path set server-side (ALTER ROLE ... SET search_path), and add
// default_query_exec_mode=exec to the URL, as pgx needs behind
// transaction-mode poolers.
//
// # Migrations
//
// The schema's version is recorded in its table schema_migrations, one row
// per applied version with the time it was applied. Open runs the missing
// migrations, the schema's creation and the version rows in one
// transaction that first takes a transaction-scoped advisory lock
// (pg_advisory_xact_lock) keyed by the schema's name, so processes starting
// together migrate once: the others wait for the lock and find the work
// done. A failed migration rolls back whole; nothing is left half-applied
// (no "dirty" state to repair by hand). A schema whose version is newer
// than SchemaVersion is refused, so an old build never writes a layout it
// does not know.
//
// Privileges: the first Open of a schema needs the CREATE privilege on
// the database (or an existing, empty schema the role owns). Later Opens
// of an up-to-date schema need only USAGE on the schema, SELECT, INSERT,
// UPDATE and DELETE on its tables and USAGE on its sequence, so servers can
// run as a role that cannot change the layout while an administrator's
// role migrates. (Open looks the schema and schema_migrations up before
// creating them, because CREATE ... IF NOT EXISTS checks the CREATE
// privilege even when the object exists.)
//
// # Storage
//
// Tables transcripts (seq, an identity column, gives the creation order;
// indexes on (project_id, seq) for listing and a partial index on seq over
// queued and processing records for claiming; the sealed list entry,
// summary, apart from the sealed transcript, data, which List never
// reads; the outbox flag notify_pending, written in the result's UPDATE,
// with a partial index on (completed, seq) over pending results, schema
// version 3), uploads (indexed by (created, id), and again over unattached
// ones for expiry) and deliveries (partial indexes on (next_attempt, id)
// over pending and over done deliveries, for claiming and purging).
// Deliveries do not reference transcripts: the contract lets a delivery
// outlive or precede its transcript record. Ids compare in the "C"
// collation (byte order), so orderings do not depend on the server's
// locale.
//
// Times are timestamptz, kept to the microsecond (pgx truncates finer
// parts) and returned in UTC; the zero time is stored as -infinity, which
// sorts before every time, so an unset lease counts as expired and an unset
// NextAttempt as due. Times PostgreSQL cannot hold (before 4713 BC or after
// 294276 AD) are refused with an error naming the field; query bounds
// beyond them are clamped. Text columns cannot hold NUL bytes or invalid
// UTF-8: writing such an id or owner is an error naming the field, and
// looking one up finds nothing (ErrNotFound).
//
// Record.Data, Record.Summary and Delivery.Data are written as given,
// into bytea columns stored without compression (STORAGE EXTERNAL: they
// are sealed by the caller, and ciphertext does not compress).
// transcribe.Service seals transcript content with AES-GCM before it
// reaches any Store, so text, words, parameters and URLs reach PostgreSQL
// only as ciphertext; ids, project ids, statuses, times and lease owners
// are plain metadata. PostgreSQL keeps the old version of an updated row
// until VACUUM reclaims it, so a deleted transcript's earlier (sealed)
// content stays in the table files until then.
//
// # Concurrency and claims
//
// ClaimJob and ClaimDelivery are each one statement (storage/internal/sqlqueue
// describes both queues for the SQL stores; queue.go runs them): a CTE selects the
// next row with SELECT ... ORDER BY ... LIMIT 1 FOR UPDATE SKIP LOCKED and
// the UPDATE around it writes the lease and returns the row. Claimers never
// wait for each other: one that meets a row another claimer has locked
// skips to the next, and a row that changed between the snapshot and the
// lock is re-checked by PostgreSQL (READ COMMITTED) before it is taken,
// so no job or delivery is handed out twice while its lease holds. A claim
// may report ErrNoJob (ErrNoDelivery) while the only candidate is locked by
// a statement in progress; workers poll, so that costs one poll interval.
//
// Leases live in the rows (lease_owner, lease_until), measured on the
// callers' clocks (Claim.Now), so processes sharing a database need clocks
// kept in step (NTP); a skew lengthens or shortens leases by that much. A
// process that dies loses nothing but time: PostgreSQL ends its
// connections and aborts any statement in progress, releasing its row
// locks, and once its lease has run out the next ClaimJob takes the job
// over (Claims counts the takeover) while Update and ExtendLease from the
// old owner fail with ErrLeaseLost.
//
// Update, ExtendLease, ExtendDelivery, UpdateDelivery and AttachUpload check the lease
// owner (or the upload's user) in the WHERE clause of their UPDATE, and the
// same statement reads the row's current owner, so a refusal tells
// ErrNotFound from ErrLeaseLost (or ErrExists) in one round trip. List is
// one SELECT with the cursors resolved inside it; only an empty page with a
// cursor costs a second query, to tell an unknown cursor (ErrNotFound) from
// the end of the list. Seq values are handed out in the order inserts
// start, not the order they commit, so a record whose insert commits late
// can appear behind a cursor a concurrent reader already passed.
//
// Reads (read.go, page.go): GetUnlessSummary leaves the data column
// unread and unsent when the caller holds the record's summary. ListPage
// reads the six columns of a list entry and keeps the pages it read
// under the server's current snapshot (pg_current_snapshot, read before
// the page): the same snapshot later means no transaction has started
// writing or ended since, in any process, so the page is still current;
// servers before PostgreSQL 13 are queried every time. Under load these
// reads share statements (readbatch.go): a confirmation (a read with a
// summary) or a snapshot read that comes while one runs joins the next
// statement, one for all of them, which starts after each was asked for,
// so no read sees less than a statement of its own would.
//
// # Choices
//
// pgx directly rather than database/sql: pgxpool, the binary protocol,
// timestamptz infinities (pgtype.Timestamptz) and per-connection startup
// parameters without adapters. The migration runner is a few lines here
// rather than a library (golang-migrate, goose): the schema is one ordered
// list, and those tools take a session lock and apply each migration in a
// transaction of its own, with a "dirty" flag to clear by hand after a
// crash, where one transaction under an advisory lock gives all or
// nothing. Open's errors never contain the URL's password: pgx redacts
// what it quotes only on a best-effort basis, so messages are scrubbed of
// every candidate password as well.
//
// The choices where the contracts leave room are those of storage/memory
// and storage/sqlite: List with Limit <= 0 returns every match; ClaimJob
// takes the lowest Seq, ClaimDelivery the earliest NextAttempt with ties
// broken by id; ExtendLease and ExtendDelivery of an absent id are ErrNotFound.
//
// # Tests
//
// TestConformance runs drivertest.RunStoreTests,
// drivertest.RunUploadStoreTests, webhooktest.RunQueueTests and
// queuetest.Run (the lease rules of the job and delivery queues) against
// a real PostgreSQL from internal/testservices (scripts/services.sh starts
// one; without it the tests that need the server skip, except in CI), and
// TestRealtimeConformance runs realtimetest's suite against RealtimeState.
// TestDifferential drives this store and storage/memory with the same
// random calls and requires the same outcomes. Other tests cover
// concurrent Opens (one migration), refused and failed migrations, roles
// without CREATE, schema isolation, claims across several Stores, a
// process killed with SIGKILL while it holds leases, the whole Service
// leaving no plaintext in the database, the plans of the claim and list
// statements, and Open's errors (bad URLs, refused and silent servers,
// wrong passwords) never quoting the password. BenchmarkClaimContention
// reports claim latency (p50, p99) with 1, 2, 4 and 8 claimers.
package postgres
