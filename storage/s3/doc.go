// Package s3 is a driver.BlobStore that keeps each blob as an object
// in a bucket of Amazon S3 or any S3-compatible server (MinIO, Ceph RGW,
// Garage, versitygw, Cloudflare R2, Backblaze B2...).
//
// Entry points: New(ctx, Config) checks the configuration, the endpoint,
// the credentials and the bucket, and returns a *Store implementing
// driver.BlobStore. AbortIncomplete cleans up after processes that
// died mid-upload.
//
// Behaviour:
//
//   - Put streams. It reads the body into a PartSize buffer (16 MiB by
//     default); a body that ends within it goes up in one PUT, a longer
//     one as a multipart upload whose parts are uploaded while the next
//     is read. A Put holds at most Concurrency × PartSize bytes (32 MiB by
//     default) whatever the object's size, and never needs the size in
//     advance. The largest object is 10,000 × PartSize (156 GiB by
//     default).
//   - Atomic replacement. The object appears only when its PUT or its
//     multipart completion succeeds; until then readers see the previous
//     blob. A failed or cancelled Put aborts its multipart upload (with a
//     fresh one-minute deadline, so a cancelled context still cleans up)
//     and leaves the previous blob, or nothing.
//   - Integrity. Every PUT and part carries the SHA-256 of its bytes in
//     the signed request, so the server rejects a body changed in transit.
//   - Open issues one GET whose body streams as the reader is read;
//     ErrNotFound (transcribe's) for a missing key. Delete of a missing key
//     is nil.
//   - Prefix keeps several stores apart in one bucket: "region-a/" and
//     "region-b/" never see each other's blobs.
//   - Keys are checked as storage/localfs checks them (no empty, "." or
//     ".." segments, no leading "/"), and for control characters, invalid
//     UTF-8 and S3's 1024-byte limit: ErrInvalidKey.
//   - Errors are *Error values naming the operation, key, bucket and
//     endpoint, with sentinels for errors.Is: transcribe.ErrNotFound,
//     ErrNoBucket, ErrAccessDenied, ErrUnreachable, ErrInvalidKey,
//     ErrInvalidConfig, ErrTooLarge. Credentials never appear in them: the
//     Store signs requests in headers and redacts its keys from error text.
//     An unreachable endpoint, a 5xx answer and a connection cut while a
//     blob is read are also transcribe.ErrStorageUnavailable: an outage
//     the Service waits out instead of failing the job.
//
// The S3 protocol comes from github.com/minio/minio-go/v7: request
// signing, retries with backoff, error parsing and each single request
// (PutObject, NewMultipartUpload, PutObjectPart, CompleteMultipartUpload,
// AbortMultipartUpload, GetObject through minio.Core). The multipart loop
// itself is written here rather than left to minio-go's PutObject because
// for a body of unknown size that allocates a fresh PartSize buffer on
// every call (16 MiB for a 5-byte blob), and it signs bodies sent over
// plain HTTP as aws-chunked streams, which versitygw 1.8.0 mishandles for
// empty bodies (it leaves the chunk trailer on the connection and answers
// the next request with 400). Here buffers are pooled and reused across
// Puts, small bodies take one PUT, and each request signs its payload's
// SHA-256.
//
// Tests run against a real S3 server, versitygw, that scripts/test.sh
// builds and starts (see internal/testservices); without it they are
// skipped outside CI, saying how to run them.
//
// A *Store is safe for concurrent use by several goroutines and by several
// processes sharing the bucket.
package s3
