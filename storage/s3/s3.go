package s3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/s3utils"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// Sentinel errors. Every error the Store returns is an *Error; these are
// reachable from it with errors.Is.
var (
	// ErrInvalidConfig is wrapped by New's errors for a bad Config field.
	ErrInvalidConfig = errors.New("s3: invalid config")
	// ErrInvalidKey is wrapped for keys that are empty, absolute, contain
	// empty, "." or ".." segments, control characters or invalid UTF-8, or
	// are longer than S3's 1024 bytes once Prefix is added.
	ErrInvalidKey = errors.New("s3: invalid key")
	// ErrNoBucket: the bucket does not exist (and Config.CreateBucket is
	// false, or it vanished after New).
	ErrNoBucket = errors.New("s3: bucket does not exist")
	// ErrAccessDenied: the server refused the credentials (unknown access
	// key, wrong secret, expired token) or their permissions.
	ErrAccessDenied = errors.New("s3: access denied")
	// ErrUnreachable: no HTTP response came back from the endpoint
	// (connection refused, DNS failure, TLS failure, timeout).
	ErrUnreachable = errors.New("s3: endpoint unreachable")
	// ErrTooLarge: a Put needed more than 10,000 parts of Config.PartSize.
	ErrTooLarge = errors.New("s3: object too large for the part size")
)

// S3's limits on multipart uploads (the same for every major server).
const (
	minPartSize = 5 << 20
	maxPartSize = 5 << 30
	maxKeyLen   = 1024

	// DefaultPartSize is Config.PartSize's default: 16 MiB, which allows
	// objects up to 156 GiB (10,000 parts).
	DefaultPartSize = 16 << 20
	// DefaultConcurrency is Config.Concurrency's default.
	DefaultConcurrency = 2
	// DefaultRegion is Config.Region's default.
	DefaultRegion = "us-east-1"
	// DefaultMaxAttempts is Config.MaxAttempts's default (minio-go's).
	DefaultMaxAttempts = 10

	abortTimeout = time.Minute
	// smallSize is the first read of a Put: a body that ends within it
	// never takes a PartSize buffer.
	smallSize = 1 << 20
)

// maxParts is S3's limit on the parts of one upload (a variable so that a
// test can lower it).
var maxParts = 10000

// Config configures New. The zero value of every optional field means its
// default.
type Config struct {
	// Endpoint is the server: "host:port" or a URL "http://host:port" /
	// "https://host" without path, query or user information. Required.
	Endpoint string
	// Insecure uses plain HTTP for an Endpoint given without scheme.
	// Default false: HTTPS. An "http://" Endpoint is plain HTTP whatever
	// this says; Insecure with an "https://" Endpoint is a config error.
	Insecure bool
	// Region is the bucket's region, used for signing and CreateBucket.
	// Default "us-east-1" (what S3-compatible servers usually expect).
	Region string
	// Bucket holds the blobs. Required; must be a valid S3 bucket name.
	Bucket string
	// Prefix is prepended to every key ("region-a/" keeps the blobs of one
	// deployment apart from another's in a shared bucket). A missing
	// trailing "/" is added. Default "": keys are object names.
	Prefix string
	// AccessKey and SecretKey are static credentials, SessionToken an
	// optional session token with them. When both keys are empty the
	// environment's AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
	// AWS_SESSION_TOKEN are used; New fails when those are empty too.
	AccessKey, SecretKey, SessionToken string
	// PathStyle forces path-style requests (http://host/bucket/key).
	// Default false: virtual-host style for Amazon and Google endpoints,
	// path style for everything else (minio-go's automatic choice).
	PathStyle bool
	// CreateBucket creates Bucket in Region when it does not exist. Default
	// false: New fails with ErrNoBucket.
	CreateBucket bool
	// PartSize is the size of each part of a multipart upload and of the
	// buffer a Put reads into; bodies shorter than it go up in one PUT.
	// Between 5 MiB and 5 GiB. Default 16 MiB (DefaultPartSize). The
	// largest object is 10,000 × PartSize.
	PartSize int64
	// Concurrency is how many part buffers one Put holds: parts upload
	// while the next is read, and a Put holds at most Concurrency ×
	// PartSize bytes of memory whatever the object's size. Default 2.
	Concurrency int
	// MaxAttempts is how many times one request is tried before its error
	// is returned (with backoff between tries). Default 10.
	MaxAttempts int
	// Transport is the HTTP transport (custom TLS roots, proxies). Default
	// minio-go's DefaultTransport.
	Transport http.RoundTripper
	// Now is the clock AbortIncomplete compares upload times with.
	// Default time.Now.
	Now func() time.Time
}

// Store is a driver.BlobStore keeping each blob as one object in an
// S3 bucket, under Config.Prefix. Safe for concurrent use by several
// goroutines and processes.
type Store struct {
	client      *minio.Client
	core        minio.Core
	bucket      string
	prefix      string
	endpoint    string // URL without credentials, for errors
	partSize    int64
	concurrency int
	now         func() time.Time
	secrets     []string        // redacted from error text
	bufs        sync.Pool       // *[]byte of partSize
	small       sync.Pool       // *[]byte of smallSize
	transport   *http.Transport // ours to close, nil when the caller's
}

var _ driver.BlobStore = (*Store)(nil)

// New checks cfg, connects to the endpoint and checks that the bucket
// exists (creating it when cfg.CreateBucket is set), so that bad
// credentials, an unreachable endpoint or a missing bucket fail here with
// a clear error rather than at the first upload.
func New(ctx context.Context, cfg Config) (*Store, error) {
	host, secure, err := cfg.endpoint()
	if err != nil {
		return nil, err
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	access, secret, token := cfg.AccessKey, cfg.SecretKey, cfg.SessionToken
	if access == "" && secret == "" {
		access, secret, token = os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY"), os.Getenv("AWS_SESSION_TOKEN")
		if access == "" || secret == "" {
			return nil, fmt.Errorf("%w: no credentials: set AccessKey and SecretKey, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY", ErrInvalidConfig)
		}
	}
	s := &Store{
		bucket:      cfg.Bucket,
		prefix:      normPrefix(cfg.Prefix),
		partSize:    orDefault(cfg.PartSize, DefaultPartSize),
		concurrency: int(orDefault(int64(cfg.Concurrency), DefaultConcurrency)),
		now:         cfg.Now,
		secrets:     nonEmpty(access, secret, token),
	}
	if s.now == nil {
		s.now = time.Now
	}
	scheme := "https"
	if !secure {
		scheme = "http"
	}
	s.endpoint = scheme + "://" + host
	size := s.partSize
	s.bufs.New = func() any { b := make([]byte, size); return &b }
	s.small.New = func() any { b := make([]byte, smallSize); return &b }
	transport := cfg.Transport
	if transport == nil {
		tr, err := minio.DefaultTransport(secure)
		if err != nil {
			return nil, s.fail("new", "", err)
		}
		s.transport = tr
		transport = tr
	}
	lookup := minio.BucketLookupAuto
	if cfg.PathStyle {
		lookup = minio.BucketLookupPath
	}
	region := cfg.Region
	if region == "" {
		region = DefaultRegion
	}
	s.client, err = minio.New(host, &minio.Options{
		Creds:        credentials.NewStaticV4(access, secret, token),
		Secure:       secure,
		Region:       region,
		BucketLookup: lookup,
		Transport:    transport,
		MaxRetries:   int(orDefault(int64(cfg.MaxAttempts), DefaultMaxAttempts)),
	})
	if err != nil {
		return nil, s.fail("new", "", err)
	}
	s.core = minio.Core{Client: s.client}
	err = s.checkBucket(ctx)
	if errors.Is(err, ErrNoBucket) && cfg.CreateBucket {
		err = s.client.MakeBucket(ctx, s.bucket, minio.MakeBucketOptions{Region: region})
		if code := minio.ToErrorResponse(err).Code; code == "BucketAlreadyOwnedByYou" || code == "BucketAlreadyExists" {
			err = nil // created meanwhile by another process
		}
		if err != nil {
			err = s.fail("create bucket", "", err)
		} else {
			err = s.checkBucket(ctx)
		}
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// checkBucket lists at most one object under the prefix: it proves the
// endpoint answers, the credentials are accepted and the bucket exists.
// (A HEAD request would answer without a body, so a server's error code,
// such as versitygw's 404 XAdminUserNotFound for an unknown access key,
// would be lost.)
func (s *Store) checkBucket(ctx context.Context) error {
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for o := range s.client.ListObjects(lctx, s.bucket, minio.ListObjectsOptions{Prefix: s.prefix, MaxKeys: 1}) {
		if o.Err != nil {
			err := s.fail("new", "", o.Err)
			var e *Error
			if errors.Is(err, ErrNoBucket) && errors.As(err, &e) {
				e.Err = errors.New("set CreateBucket to create it")
			}
			return err
		}
		break
	}
	return nil
}

func (cfg *Config) endpoint() (host string, secure bool, err error) {
	e := cfg.Endpoint
	if e == "" {
		return "", false, fmt.Errorf("%w: Endpoint is empty", ErrInvalidConfig)
	}
	// An Endpoint holding an @ may hold a password (user:pass@host, or a
	// password with a / or ? in it that the URL parser reads as a path):
	// errors then describe it without repeating it.
	shown := fmt.Sprintf("%q", e)
	if strings.Contains(e, "@") {
		shown = "(not repeated: it holds an @, so perhaps credentials)"
	}
	if !strings.Contains(e, "://") {
		if strings.ContainsAny(e, "/?#@") {
			return "", false, fmt.Errorf("%w: Endpoint %s: want host:port or http(s)://host:port", ErrInvalidConfig, shown)
		}
		return e, !cfg.Insecure, nil
	}
	u, err := url.Parse(e)
	if err != nil {
		// url.Error repeats the whole URL, and its inner error parts of
		// it (the port after the first colon: a password's start).
		if strings.Contains(e, "@") {
			return "", false, fmt.Errorf("%w: Endpoint %s is not a valid URL", ErrInvalidConfig, shown)
		}
		return "", false, fmt.Errorf("%w: Endpoint: %v", ErrInvalidConfig, err)
	}
	switch {
	case u.User != nil:
		// Never echo the URL: it holds credentials.
		return "", false, fmt.Errorf("%w: Endpoint holds user information; pass credentials in AccessKey and SecretKey", ErrInvalidConfig)
	case u.Scheme != "http" && u.Scheme != "https":
		return "", false, fmt.Errorf("%w: Endpoint %s: scheme must be http or https", ErrInvalidConfig, shown)
	case u.Host == "":
		return "", false, fmt.Errorf("%w: Endpoint %s: no host", ErrInvalidConfig, shown)
	case (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "":
		return "", false, fmt.Errorf("%w: Endpoint %s: a path, query or fragment is not allowed", ErrInvalidConfig, shown)
	case u.Scheme == "https" && cfg.Insecure:
		return "", false, fmt.Errorf("%w: Insecure is set but Endpoint %s is https", ErrInvalidConfig, shown)
	}
	return u.Host, u.Scheme == "https", nil
}

func (cfg *Config) validate() error {
	if cfg.Bucket == "" {
		return fmt.Errorf("%w: Bucket is empty", ErrInvalidConfig)
	}
	if err := s3utils.CheckValidBucketNameStrict(cfg.Bucket); err != nil {
		return fmt.Errorf("%w: Bucket %q: %v", ErrInvalidConfig, cfg.Bucket, err)
	}
	if cfg.Prefix != "" {
		if err := checkName(strings.TrimSuffix(cfg.Prefix, "/")); err != nil {
			return fmt.Errorf("%w: Prefix %q: %v", ErrInvalidConfig, cfg.Prefix, err)
		}
		if len(normPrefix(cfg.Prefix)) >= maxKeyLen/2 {
			return fmt.Errorf("%w: Prefix is %d bytes, want under %d", ErrInvalidConfig, len(cfg.Prefix), maxKeyLen/2)
		}
	}
	if (cfg.AccessKey == "") != (cfg.SecretKey == "") {
		return fmt.Errorf("%w: set both AccessKey and SecretKey, or neither", ErrInvalidConfig)
	}
	if cfg.SessionToken != "" && cfg.AccessKey == "" {
		return fmt.Errorf("%w: SessionToken without AccessKey and SecretKey", ErrInvalidConfig)
	}
	if cfg.PartSize != 0 && (cfg.PartSize < minPartSize || cfg.PartSize > maxPartSize) {
		return fmt.Errorf("%w: PartSize %d: want between 5 MiB and 5 GiB", ErrInvalidConfig, cfg.PartSize)
	}
	if cfg.Concurrency < 0 {
		return fmt.Errorf("%w: Concurrency %d is negative", ErrInvalidConfig, cfg.Concurrency)
	}
	if cfg.MaxAttempts < 0 {
		return fmt.Errorf("%w: MaxAttempts %d is negative", ErrInvalidConfig, cfg.MaxAttempts)
	}
	return nil
}

func normPrefix(p string) string {
	if p != "" && !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return p
}

func orDefault(v, def int64) int64 {
	if v == 0 {
		return def
	}
	return v
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// checkName applies the key rules to a slash-separated name.
func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("empty")
	case !utf8.ValidString(name):
		return errors.New("not valid UTF-8")
	case strings.HasPrefix(name, "/"):
		return errors.New("absolute")
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("control character %U", r)
		}
	}
	for _, seg := range strings.Split(name, "/") {
		switch seg {
		case "":
			return errors.New("empty path segment")
		case ".", "..":
			return fmt.Errorf("%q segment", seg)
		}
	}
	return nil
}

// object returns the object name of key, or an error wrapping
// ErrInvalidKey.
func (s *Store) object(op, key string) (string, error) {
	if err := checkName(key); err != nil {
		return "", &Error{Op: op, Endpoint: s.endpoint, Bucket: s.bucket, Key: key, kind: ErrInvalidKey, Err: err}
	}
	name := s.prefix + key
	if len(name) > maxKeyLen {
		return "", &Error{Op: op, Endpoint: s.endpoint, Bucket: s.bucket, Key: key, kind: ErrInvalidKey,
			Err: fmt.Errorf("object name is %d bytes with the prefix, S3 allows %d", len(name), maxKeyLen)}
	}
	return name, nil
}

// Bucket returns the bucket's name and Prefix the normalized prefix.
func (s *Store) Bucket() string { return s.bucket }

// Prefix returns the normalized key prefix ("" or ending in "/").
func (s *Store) Prefix() string { return s.prefix }

// Open returns a reader of the blob under key, or an error wrapping
// transcribe.ErrNotFound when there is none. The object is fetched with one
// GET whose body streams as the reader is read: a Put replacing the blob
// meanwhile does not mix versions into what the reader returns.
func (s *Store) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	name, err := s.object("open", key)
	if err != nil {
		return nil, err
	}
	rc, _, _, err := s.core.GetObject(ctx, s.bucket, name, minio.GetObjectOptions{})
	if err != nil {
		return nil, s.fail("open", key, err)
	}
	return &object{ReadCloser: rc, s: s, key: key}, nil
}

// object is an opened blob whose read errors are classified like the
// Store's (a connection cut mid-body is ErrUnreachable, an outage).
type object struct {
	io.ReadCloser
	s   *Store
	key string
}

func (o *object) Read(p []byte) (int, error) {
	n, err := o.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		err = o.s.fail("read", o.key, err)
	}
	return n, err
}

// Delete removes the blob under key; deleting a missing key returns nil.
func (s *Store) Delete(ctx context.Context, key string) error {
	name, err := s.object("delete", key)
	if err != nil {
		return err
	}
	if err := s.client.RemoveObject(ctx, s.bucket, name, minio.RemoveObjectOptions{}); err != nil {
		e := s.fail("delete", key, err)
		if errors.Is(e, transcribe.ErrNotFound) {
			return nil
		}
		return e
	}
	return nil
}

// AbortIncomplete aborts the multipart uploads under Prefix that started
// more than olderThan ago (by Config.Now) and returns how many it aborted.
// A Put aborts its own upload when it fails; uploads are left behind only
// when a process dies mid-Put. Run it now and then, with olderThan well
// above the longest upload, or give the bucket a lifecycle rule instead.
func (s *Store) AbortIncomplete(ctx context.Context, olderThan time.Duration) (int, error) {
	cutoff := s.now().Add(-olderThan)
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	aborted := 0
	for u := range s.client.ListIncompleteUploads(lctx, s.bucket, s.prefix, true) {
		if u.Err != nil {
			return aborted, s.fail("abort incomplete", "", u.Err)
		}
		if !u.Initiated.Before(cutoff) && olderThan > 0 {
			continue
		}
		if err := s.core.AbortMultipartUpload(ctx, s.bucket, u.Key, u.UploadID); err != nil {
			if minio.ToErrorResponse(err).Code == "NoSuchUpload" {
				continue // completed or aborted meanwhile
			}
			return aborted, s.fail("abort incomplete", strings.TrimPrefix(u.Key, s.prefix), err)
		}
		aborted++
	}
	return aborted, nil
}

// Close releases the idle connections of the Store's own transport (not of
// a Config.Transport). The Store must not be used afterwards.
func (s *Store) Close() error {
	if s.transport != nil {
		s.transport.CloseIdleConnections()
	}
	return nil
}
