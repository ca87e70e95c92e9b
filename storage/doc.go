// Package storage groups Earshot's storage adapters: storage/memory
// (in-memory, for tests and embedding), storage/sqlite (the embedded
// default, a SQLite database), storage/localfs (blobs as files), and for
// several processes sharing work storage/postgres (a PostgreSQL schema)
// and storage/s3 (blobs in any S3-compatible object store). A
// database adapter implements the three contracts split by aggregate —
// driver.Store (transcripts and jobs), driver.UploadStore (upload
// ownership) and webhook.Queue (webhook deliveries) — on one type; a blob
// adapter implements driver.BlobStore. Each adapter's TestConformance
// runs the suites of transcribe/driver/drivertest and webhook/webhooktest.
package storage
