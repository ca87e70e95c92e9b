// Package storage groups Earshot's Store and BlobStore adapters:
// storage/memory (in-memory, for tests and embedding), storage/sqlite (the
// embedded default, a SQLite database) and storage/localfs (blobs as files).
// Each adapter's TestConformance runs transcribe/transcribetest.
package storage
