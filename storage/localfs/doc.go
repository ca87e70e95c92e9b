// Package localfs is a driver.BlobStore that keeps each blob as a file
// under one directory on local disk.
//
// Entry points: New opens (creating if needed) a store rooted at a
// directory; the *Store implements driver.BlobStore and
// driver.FileBlobStore, so a decoder can read uploads in place through
// Path.
//
// Layout and guarantees:
//
//   - A key is a slash-separated relative name ("uploads/<id>"). Each
//     segment must be non-empty and must not be "." or ".."; absolute keys,
//     backslashes and NUL bytes are rejected with an error wrapping
//     ErrInvalidKey, so no key can name a file outside the root.
//   - Put streams into a temporary file in the destination directory, syncs
//     it and renames it over the key: readers see the old blob or the new
//     one, never a partial file, and a failed or cancelled Put leaves
//     nothing behind.
//   - Files are created with mode 0600 and directories with 0700.
//   - A Put interrupted by a crash leaves a hidden ".earshot-put-*" file;
//     RemoveStale deletes old ones.
//   - Open, Delete and Path of a missing key behave as the BlobStore
//     contract says (ErrNotFound, nil, ErrNotFound).
//
// A *Store is safe for concurrent use by several goroutines and by several
// processes sharing the directory.
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: Store (the type
// New returns) and ErrInvalidKey, which callers match with errors.Is.
package localfs
