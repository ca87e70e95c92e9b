// Package sqlite is Earshot's embedded default store: one SQLite database
// file, through the pure-Go driver modernc.org/sqlite (no cgo), whose
// *Store implements driver.Store, driver.UploadStore,
// driver.IdempotencyStore (table idempotency_keys, created on first
// use) and webhook.Queue.
//
// Entry point: Open(Config{Path: "earshot.db"}) returns a *Store. Config
// documents its defaults (BusyTimeout 5s, MaxOpenConns 4, Synchronous
// FULL). Open creates the file with mode 0600 (parent directories 0700),
// switches it to WAL mode with foreign keys on, and creates or migrates the
// schema inside one immediate transaction, recording the version in the
// schema_version table; a database written by a newer schema is refused.
//
// Concurrency: a *Store is safe for concurrent use by several goroutines,
// and several Stores, in one process or in several, may share one file.
// ClaimJob and ClaimDelivery are each a single UPDATE ... WHERE key =
// (SELECT ... LIMIT 1) RETURNING statement (storage/internal/sqlqueue
// describes both queues for the SQL stores; queue.go runs them), which
// SQLite runs under the database's write lock, so no job is handed to two
// workers while its lease holds. Update, ExtendLease, ExtendDelivery and
// UpdateDelivery check the lease owner in the same statement as the write.
//
// Files by aggregate: store.go (Open, Config), schema.go (migrations),
// encode.go (times and values), queue.go (claims and leases),
// transcripts.go, uploads.go, deliveries.go, read.go and page.go (the
// read path: driver.ReadStore, driver.PageStore), pagecache.go.
// Writers wait up to BusyTimeout for the lock.
//
// Reads: GetUnlessSummary leaves the data column unread when the caller
// holds the record's summary. ListPage runs List's query with its rows
// folded by SQLite into one value (one row and one column through the
// driver, where List scans 14 columns per entry) and keeps the pages it
// read while PRAGMA data_version, read on a connection of its own before
// each page, is unchanged: that value changes with every commit of any
// other connection, of this process or another, so a kept page is never
// older than the database.
//
// Storage: tables transcripts (seq INTEGER PRIMARY KEY AUTOINCREMENT gives
// the creation order; indexes for listing by project and for claiming; the
// sealed list entry in its own column, which List reads instead of the
// sealed transcript; the outbox flag notify_pending, written in the
// result's UPDATE and placed before the blobs, with a partial index over
// pending results: schema version 5 rebuilds the table once to add it),
// uploads (indexed by age) and deliveries (indexed on
// due time, and on age once done, for purging). Times are stored as UTC
// unix nanoseconds, the zero time as the smallest integer, so they keep
// full precision and times outside the years 1678 to 2262 are refused with
// an error. Record.Data and Delivery.Data are stored as given (they are
// sealed by the caller). Deliveries do not reference transcripts by
// foreign key: the contract lets a delivery outlive or precede its
// transcript record.
//
// Choices where the contract leaves room (the same as storage/memory):
// List with Limit <= 0 returns every match; ClaimJob picks the lowest Seq
// and ClaimDelivery the earliest NextAttempt, ties broken by id; ExtendLease
// and ExtendDelivery of an absent id return ErrNotFound. AttachUpload is one conditional
// UPDATE, so two transcripts never take one upload.
package sqlite
