package localfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// ErrInvalidKey is wrapped by the errors returned for keys that are empty,
// absolute, or contain empty, "." or ".." segments, backslashes or NUL
// bytes.
var ErrInvalidKey = errors.New("localfs: invalid key")

// tempPrefix starts the names of in-progress Put files. Keys whose last
// segment starts with it are rejected so that they can never collide.
const tempPrefix = ".earshot-put-"

// Store keeps blobs as files under a root directory. Safe for concurrent
// use.
type Store struct {
	root string
}

var (
	_ driver.BlobStore     = (*Store)(nil)
	_ driver.FileBlobStore = (*Store)(nil)
)

// New returns a Store rooted at dir, creating dir (mode 0700) when it does
// not exist. dir may be relative; it is made absolute once, here.
func New(dir string) (*Store, error) {
	if dir == "" {
		return nil, errors.New("localfs: New: empty directory")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("localfs: New: %w", err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("localfs: New: %w", err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("localfs: New: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("localfs: New: %s is not a directory", abs)
	}
	return &Store{root: abs}, nil
}

// Dir returns the absolute root directory.
func (s *Store) Dir() string { return s.root }

// validKey reports whether key is acceptable to the Store, with the reason
// when it is not.
func validKey(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("%w: empty key", ErrInvalidKey)
	case strings.HasPrefix(key, "/"):
		return fmt.Errorf("%w %q: absolute", ErrInvalidKey, key)
	case strings.ContainsAny(key, "\\\x00"):
		return fmt.Errorf("%w %q: contains a backslash or NUL byte", ErrInvalidKey, key)
	}
	segs := strings.Split(key, "/")
	for _, seg := range segs {
		switch seg {
		case "":
			return fmt.Errorf("%w %q: empty path segment", ErrInvalidKey, key)
		case ".", "..":
			return fmt.Errorf("%w %q: %q segment", ErrInvalidKey, key, seg)
		}
	}
	if strings.HasPrefix(segs[len(segs)-1], tempPrefix) {
		return fmt.Errorf("%w %q: names starting with %q are reserved", ErrInvalidKey, key, tempPrefix)
	}
	return nil
}

// file returns the file path of key after validating it.
func (s *Store) file(op, key string) (string, error) {
	if err := validKey(key); err != nil {
		return "", err
	}
	return filepath.Join(s.root, filepath.FromSlash(key)), nil
}

// Put stores all of r under key, replacing any previous blob, and returns
// the number of bytes stored. It streams r into a temporary file beside the
// destination and renames it into place, so a failed or cancelled Put
// leaves the previous blob (or none) and no partial file.
func (s *Store) Put(ctx context.Context, key string, r io.Reader) (int64, error) {
	p, err := s.file("Put", key)
	if err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, fmt.Errorf("localfs: Put %q: %w", key, err)
	}
	f, err := os.CreateTemp(dir, tempPrefix+"*")
	if err != nil {
		return 0, fmt.Errorf("localfs: Put %q: %w", key, err)
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	n, err := io.Copy(f, ctxReader{ctx, r})
	if err != nil {
		return n, fmt.Errorf("localfs: Put %q: %w", key, err)
	}
	if err := f.Sync(); err != nil {
		return n, fmt.Errorf("localfs: Put %q: %w", key, err)
	}
	if err := f.Close(); err != nil {
		return n, fmt.Errorf("localfs: Put %q: %w", key, err)
	}
	if err := ctx.Err(); err != nil {
		return n, err
	}
	if err := os.Rename(tmp, p); err != nil {
		return n, fmt.Errorf("localfs: Put %q: %w", key, err)
	}
	ok = true
	return n, nil
}

// Open returns the blob under key. The error wraps transcribe.ErrNotFound
// when there is none (including when key names a directory of blobs).
func (s *Store) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	p, err := s.file("Open", key)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, s.notFound("Open", key, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("localfs: Open %q: %w", key, err)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("localfs: Open %q: %w", key, transcribe.ErrNotFound)
	}
	return f, nil
}

// Delete removes the blob under key. Deleting a missing key returns nil.
// Directories are never removed.
func (s *Store) Delete(ctx context.Context, key string) error {
	p, err := s.file("Delete", key)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	st, err := os.Lstat(p)
	if err != nil {
		if isNotExist(err) {
			return nil
		}
		return fmt.Errorf("localfs: Delete %q: %w", key, err)
	}
	if st.IsDir() {
		return nil
	}
	if err := os.Remove(p); err != nil && !isNotExist(err) {
		return fmt.Errorf("localfs: Delete %q: %w", key, err)
	}
	return nil
}

// Path returns the absolute path of the file holding key, for reading in
// place. The error wraps transcribe.ErrNotFound when there is no such blob.
// The file may be replaced or deleted by a later Put or Delete; readers that
// opened it keep reading the old content.
func (s *Store) Path(key string) (string, error) {
	p, err := s.file("Path", key)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(p)
	if err != nil {
		return "", s.notFound("Path", key, err)
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("localfs: Path %q: %w", key, transcribe.ErrNotFound)
	}
	return p, nil
}

func (s *Store) notFound(op, key string, err error) error {
	if isNotExist(err) {
		return fmt.Errorf("localfs: %s %q: %w", op, key, transcribe.ErrNotFound)
	}
	return fmt.Errorf("localfs: %s %q: %w", op, key, err)
}

// isNotExist is true for a missing file and for a path through a regular
// file ("a/b" where "a" is a blob).
func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// RemoveStale deletes the temporary files of Puts that a crash interrupted
// (a Put in progress renames or removes its own file) whose last change is
// older than age, and returns how many it removed. It walks the whole tree,
// so call it at start-up or from a periodic janitor, not per request.
func (s *Store) RemoveStale(ctx context.Context, age time.Duration) (int, error) {
	cutoff := time.Now().Add(-age)
	n := 0
	err := filepath.WalkDir(s.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if isNotExist(err) {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() || !strings.HasPrefix(d.Name(), tempPrefix) {
			return nil
		}
		info, err := d.Info()
		if err != nil || !info.ModTime().Before(cutoff) {
			return nil
		}
		if err := os.Remove(p); err == nil {
			n++
		}
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("localfs: RemoveStale: %w", err)
	}
	return n, nil
}

// ctxReader stops a copy when its context is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
