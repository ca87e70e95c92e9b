package transcribe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/url"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Config configures a Service. Zero values mean the documented default;
// Store, Blobs, Recognizer, Decoder and Key are required.
type Config struct {
	Store      Store
	Blobs      BlobStore
	Recognizer Recognizer
	Decoder    Decoder
	// Key is the 32-byte AES-256-GCM key that seals transcript content.
	Key []byte
	// Notifier receives completion events. Default: none.
	Notifier Notifier
	// Fetcher downloads audio_url media. Default: &HTTPFetcher{}.
	Fetcher Fetcher
	// Stages run in order after recognition. Default: none (raw words).
	Stages []Stage
	// PublicURL is the origin clients reach the API at, used in upload_url,
	// resource_url and page_details (e.g. "http://127.0.0.1:8080"). Required.
	PublicURL string
	// Workers is how many jobs run at once. Default (0) runtime.NumCPU();
	// negative runs no workers: the process only accepts and serves
	// requests while other processes sharing the Store do the work.
	Workers int
	// Lease is how long a claimed job stays with its worker without a
	// heartbeat; a job whose worker died is picked up again after it.
	// Default 30s. Heartbeats happen every Lease/3.
	Lease time.Duration
	// PollInterval is how often idle workers look for jobs submitted by
	// other processes. Default 500ms.
	PollInterval time.Duration
	// Retention drops transcripts older than this from List. Default 90 days.
	Retention time.Duration
	// UploadTTL: uploads not used by a transcript within this time are
	// deleted (blob and record). An upload submitted for transcription is
	// kept until its transcript finishes or is deleted. Default 24h.
	UploadTTL time.Duration
	// UploadSweepInterval is how often expired uploads are looked for; the
	// first sweep runs when Start is called. Default min(UploadTTL/4, 10m).
	UploadSweepInterval time.Duration
	// MaxUploadBytes caps uploads. Default DefaultMaxMediaBytes.
	MaxUploadBytes int64
	// MaxMediaDuration caps decoded media length. Default 10 hours.
	MaxMediaDuration time.Duration
	// TempDir holds downloaded media while it is processed. Default os.TempDir().
	TempDir string
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// Logger receives progress and errors. Default slog.Default().
	Logger *slog.Logger
	// WorkerID names this process in job leases. Default a random UUID.
	WorkerID string
	// CheckURL vets audio_url and webhook_url at submit time (for example
	// refusing literal private addresses). A non-nil error becomes a 400
	// naming the field. Default: no check.
	CheckURL func(raw string) error
}

func (c *Config) validate() error {
	switch {
	case c.Store == nil:
		return errors.New("transcribe: Config.Store is required")
	case c.Blobs == nil:
		return errors.New("transcribe: Config.Blobs is required")
	case c.Recognizer == nil:
		return errors.New("transcribe: Config.Recognizer is required")
	case c.Decoder == nil:
		return errors.New("transcribe: Config.Decoder is required")
	case c.PublicURL == "":
		return errors.New("transcribe: Config.PublicURL is required")
	}
	if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("transcribe: Config.PublicURL %q must be an absolute http(s) URL", c.PublicURL)
	}
	return nil
}

// Service is the transcription service: it validates requests, enforces
// project ownership and state transitions, seals content, and runs the
// worker pool. All methods are safe for concurrent use.
type Service struct {
	cfg    Config
	cipher *Cipher
	log    *slog.Logger
	now    func() time.Time
	public *url.URL

	wake     chan struct{}
	stop     chan struct{}
	wg       sync.WaitGroup
	startMu  sync.Mutex
	started  bool
	stopOnce sync.Once
}

// NewService checks cfg and returns a Service. Call Start to run workers.
func NewService(cfg Config) (*Service, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	c, err := NewCipher(cfg.Key)
	if err != nil {
		return nil, err
	}
	switch {
	case cfg.Workers == 0:
		cfg.Workers = runtime.NumCPU()
	case cfg.Workers < 0:
		cfg.Workers = 0
	}
	if cfg.Lease <= 0 {
		cfg.Lease = 30 * time.Second
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 500 * time.Millisecond
	}
	if cfg.Retention <= 0 {
		cfg.Retention = 90 * 24 * time.Hour
	}
	if cfg.UploadTTL <= 0 {
		cfg.UploadTTL = 24 * time.Hour
	}
	if cfg.UploadSweepInterval <= 0 {
		cfg.UploadSweepInterval = max(min(cfg.UploadTTL/4, 10*time.Minute), time.Millisecond)
	}
	if cfg.MaxUploadBytes <= 0 {
		cfg.MaxUploadBytes = DefaultMaxMediaBytes
	}
	if cfg.MaxMediaDuration <= 0 {
		cfg.MaxMediaDuration = 10 * time.Hour
	}
	if cfg.Fetcher == nil {
		cfg.Fetcher = &HTTPFetcher{MaxBytes: cfg.MaxUploadBytes}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.WorkerID == "" {
		cfg.WorkerID = uuid.NewString()
	}
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	pub, _ := url.Parse(cfg.PublicURL)
	return &Service{
		cfg: cfg, cipher: c, log: cfg.Logger, now: cfg.Now, public: pub,
		wake: make(chan struct{}, 1), stop: make(chan struct{}),
	}, nil
}

// Config returns the effective configuration (defaults filled in).
func (s *Service) Config() Config { return s.cfg }

// PublicURL returns the configured public origin without a trailing slash.
func (s *Service) PublicURL() string { return s.cfg.PublicURL }

// Cipher returns the content cipher, for adapters that seal their own data
// (for example webhook deliveries).
func (s *Service) Cipher() *Cipher { return s.cipher }

// sealed is the plaintext form of Record.Data.
type sealed struct {
	T        *Transcript `json:"t"`
	UploadID string      `json:"u,omitempty"`
	Redacted string      `json:"r,omitempty"`
	RedTime  time.Time   `json:"rt,omitempty"`
	Attempts int         `json:"a,omitempty"`
}

func (s *Service) seal(t *Transcript, attempts int) ([]byte, error) {
	b, err := json.Marshal(sealed{T: t, UploadID: t.UploadID, Redacted: t.RedactedKey, RedTime: t.RedactedTime, Attempts: attempts})
	if err != nil {
		return nil, err
	}
	return s.cipher.Seal(t.ID, b), nil
}

func (s *Service) unseal(r *Record) (*Transcript, int, error) {
	b, err := s.cipher.Open(r.ID, r.Data)
	if err != nil {
		return nil, 0, err
	}
	var v sealed
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, 0, fmt.Errorf("transcribe: corrupt record %s: %w", r.ID, err)
	}
	t := v.T
	t.ID, t.Status, t.ProjectID, t.IsDeleted = r.ID, r.Status, r.ProjectID, r.Deleted
	t.Created, t.Completed = r.Created, r.Completed
	t.UploadID, t.RedactedKey, t.RedactedTime = v.UploadID, v.Redacted, v.RedTime
	return t, v.Attempts, nil
}

// UploadURL returns the upload_url for an upload id.
func (s *Service) UploadURL(id string) string { return s.cfg.PublicURL + "/v2/upload/" + id }

// uploadID returns the upload id if raw is one of this service's upload URLs.
func (s *Service) uploadID(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || !strings.EqualFold(u.Host, s.public.Host) {
		return "", false
	}
	id, ok := strings.CutPrefix(u.Path, "/v2/upload/")
	if !ok || uuid.Validate(id) != nil {
		return "", false
	}
	return id, true
}

func uploadKey(id string) string { return "uploads/" + id }

// Upload streams r into the BlobStore for project and returns the upload.
// ErrEmptyUpload for an empty body, ErrTooLarge past MaxUploadBytes.
func (s *Service) Upload(ctx context.Context, projectID string, r io.Reader) (*Upload, error) {
	id := uuid.NewString()
	key := uploadKey(id)
	lr := &limitedReader{r: r, n: s.cfg.MaxUploadBytes}
	n, err := s.cfg.Blobs.Put(ctx, key, lr)
	if err != nil || lr.over || n == 0 {
		_ = s.cfg.Blobs.Delete(context.WithoutCancel(ctx), key)
		switch {
		case lr.over:
			return nil, fmt.Errorf("upload exceeds the limit of %d bytes: %w", s.cfg.MaxUploadBytes, ErrTooLarge)
		case err != nil:
			return nil, fmt.Errorf("transcribe: storing upload: %w", err)
		default:
			return nil, ErrEmptyUpload
		}
	}
	u := &Upload{ID: id, ProjectID: projectID, Size: n, Created: s.now().UTC()}
	if err := s.cfg.Store.CreateUpload(ctx, u); err != nil {
		_ = s.cfg.Blobs.Delete(context.WithoutCancel(ctx), key)
		return nil, fmt.Errorf("transcribe: recording upload: %w", err)
	}
	s.log.Info("upload stored", "upload_id", id, "project", projectID, "bytes", n)
	return u, nil
}

type limitedReader struct {
	r    io.Reader
	n    int64
	over bool
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n < 0 {
		l.over = true
		return 0, errors.New("upload too large")
	}
	if int64(len(p)) > l.n+1 {
		p = p[:l.n+1]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	if l.n < 0 {
		l.over = true
		return n, errors.New("upload too large")
	}
	return n, err
}

// Submit validates p, creates a queued transcript for project and wakes a
// worker. Errors: *ParamError for a broken rule, ErrForbidden when
// audio_url is another project's upload, ErrNotFound for an unknown upload.
func (s *Service) Submit(ctx context.Context, projectID string, p TranscriptParams) (*Transcript, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if s.cfg.CheckURL != nil {
		if _, isUpload := s.uploadID(p.AudioURL); !isUpload {
			if err := s.cfg.CheckURL(p.AudioURL); err != nil {
				return nil, &ParamError{Field: "audio_url", Reason: err.Error()}
			}
		}
		if p.WebhookURL != nil {
			if err := s.cfg.CheckURL(*p.WebhookURL); err != nil {
				return nil, &ParamError{Field: "webhook_url", Reason: err.Error()}
			}
		}
	}
	p.Normalize()
	t := &Transcript{
		ID:               uuid.NewString(),
		Status:           StatusQueued,
		TranscriptParams: p,
		ProjectID:        projectID,
		LanguageModel:    "assemblyai_default",
		AcousticModel:    "assemblyai_default",
		Created:          s.now().UTC(),
	}
	t.WebhookAuth = p.WebhookAuthHeaderName != nil
	if ws := p.Warnings(); len(ws) > 0 {
		t.Metadata = &Metadata{Warnings: ws}
	}
	t.ContentSafetyLabels = emptyCSL(p.ContentSafety)
	t.IABCategoriesResult = emptyIAB(p.IABCategories)
	if id, ok := s.uploadID(p.AudioURL); ok {
		u, err := s.cfg.Store.GetUpload(ctx, id)
		if err != nil {
			if errors.Is(err, ErrNotFound) {
				return nil, &ParamError{Field: "audio_url", Reason: "the uploaded file does not exist or was already used and deleted"}
			}
			return nil, err
		}
		if u.ProjectID != projectID {
			return nil, ErrForbidden
		}
		t.UploadID = id
	}
	data, err := s.seal(t, 0)
	if err != nil {
		return nil, err
	}
	if t.UploadID != "" {
		// Mark the upload as used before the transcript exists, so the
		// upload janitor never expires the media of a queued job.
		if err := s.cfg.Store.AttachUpload(ctx, t.UploadID, t.ID); err != nil {
			if errors.Is(err, ErrNotFound) {
				return nil, &ParamError{Field: "audio_url", Reason: "the uploaded file does not exist or was already used and deleted"}
			}
			return nil, fmt.Errorf("transcribe: attaching upload: %w", err)
		}
	}
	rec := &Record{ID: t.ID, ProjectID: projectID, Status: StatusQueued, Created: t.Created, Data: data}
	if err := s.cfg.Store.Create(ctx, rec); err != nil {
		if t.UploadID != "" {
			// Unused again: let it expire normally.
			if derr := s.cfg.Store.AttachUpload(context.WithoutCancel(ctx), t.UploadID, ""); derr != nil && !errors.Is(derr, ErrNotFound) {
				s.log.Error("detaching upload", "upload_id", t.UploadID, "err", derr)
			}
		}
		return nil, fmt.Errorf("transcribe: creating transcript: %w", err)
	}
	s.log.Info("transcript queued", "id", t.ID, "project", projectID)
	s.signal()
	return t.Public(), nil
}

// markUnavailable gives every requested analysis that no stage produced
// the API's "unavailable" result, instead of leaving it pending forever.
func markUnavailable(t *Transcript) {
	if isTrue(t.ContentSafety) && (t.ContentSafetyLabels == nil || t.ContentSafetyLabels.Status == "") {
		t.ContentSafetyLabels = &ContentSafetyLabelsResult{Status: "unavailable"}
	}
	if isTrue(t.IABCategories) && (t.IABCategoriesResult == nil || t.IABCategoriesResult.Status == "") {
		t.IABCategoriesResult = &TopicDetectionResult{Status: "unavailable"}
	}
	if isTrue(t.AutoHighlights) && t.AutoHighlightsResult == nil {
		t.AutoHighlightsResult = &AutoHighlightsResult{Status: "unavailable", Results: []AutoHighlight{}}
	}
}

func emptyCSL(enabled *bool) *ContentSafetyLabelsResult {
	if isTrue(enabled) {
		return &ContentSafetyLabelsResult{}
	}
	return nil
}

func emptyIAB(enabled *bool) *TopicDetectionResult {
	if isTrue(enabled) {
		return &TopicDetectionResult{}
	}
	return nil
}

func (s *Service) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Get returns the project's transcript, ErrNotFound otherwise.
func (s *Service) Get(ctx context.Context, projectID, id string) (*Transcript, error) {
	t, err := s.get(ctx, projectID, id)
	if err != nil {
		return nil, err
	}
	return t.Public(), nil
}

func (s *Service) get(ctx context.Context, projectID, id string) (*Transcript, error) {
	if uuid.Validate(id) != nil {
		return nil, fmt.Errorf("transcript %q: %w", id, ErrNotFound)
	}
	r, err := s.cfg.Store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if r.ProjectID != projectID {
		return nil, fmt.Errorf("transcript %q: %w", id, ErrNotFound)
	}
	t, _, err := s.unseal(r)
	return t, err
}

// GetCompleted returns the project's transcript if it is completed and not
// deleted: ErrNotFound or ErrNotReady otherwise. Export endpoints use it.
func (s *Service) GetCompleted(ctx context.Context, projectID, id string) (*Transcript, error) {
	t, err := s.Get(ctx, projectID, id)
	if err != nil {
		return nil, err
	}
	if t.IsDeleted {
		return nil, fmt.Errorf("transcript %s was deleted: %w", id, ErrNotReady)
	}
	if t.Status != StatusCompleted {
		return nil, fmt.Errorf("transcript %s is %s, not completed: %w", id, t.Status, ErrNotReady)
	}
	return t, nil
}

// Delete removes the transcript's content and its upload and redacted
// audio, marks it deleted, and returns the deleted form. A job still
// running finds its lease gone and discards its result.
func (s *Service) Delete(ctx context.Context, projectID, id string) (*Transcript, error) {
	if uuid.Validate(id) != nil {
		return nil, fmt.Errorf("transcript %q: %w", id, ErrNotFound)
	}
	r, err := s.cfg.Store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if r.ProjectID != projectID {
		return nil, fmt.Errorf("transcript %q: %w", id, ErrNotFound)
	}
	t, _, err := s.unseal(r)
	if err != nil {
		return nil, err
	}
	uploadID := t.UploadID
	t.ClearContent()
	if !t.Status.Final() {
		// A job deleted before it finished will never finish: end it in
		// error so pollers (the SDKs' Wait) stop.
		t.Status = StatusError
		reason := DeletedText
		t.Error = &reason
		t.Completed = s.now().UTC()
		r.Completed = t.Completed
	}
	data, err := s.seal(t, 0)
	if err != nil {
		return nil, err
	}
	r.Status = t.Status
	r.Deleted = true
	r.Data = data
	r.LeaseOwner, r.LeaseUntil = "", time.Time{}
	if err := s.cfg.Store.Update(ctx, r); err != nil {
		return nil, err
	}
	bg := context.WithoutCancel(ctx)
	if uploadID != "" {
		s.dropUpload(bg, uploadID)
	}
	s.dropRedacted(bg, id)
	s.log.Info("transcript deleted", "id", id, "project", projectID)
	return t.Public(), nil
}

// dropRedacted deletes any redacted audio of transcript id.
func (s *Service) dropRedacted(ctx context.Context, id string) {
	for _, f := range []string{"mp3", "wav"} {
		if err := s.cfg.Blobs.Delete(ctx, RedactedAudioKey(id, f)); err != nil {
			s.log.Error("deleting redacted audio", "id", id, "err", err)
		}
	}
}

func (s *Service) dropUpload(ctx context.Context, uploadID string) {
	if err := s.cfg.Blobs.Delete(ctx, uploadKey(uploadID)); err != nil {
		s.log.Error("deleting upload", "upload_id", uploadID, "err", err)
	}
	if err := s.cfg.Store.DeleteUpload(ctx, uploadID); err != nil {
		s.log.Error("deleting upload record", "upload_id", uploadID, "err", err)
	}
}

// ListOptions are the query parameters of GET /v2/transcript.
type ListOptions struct {
	Limit         int    // 1..200, 0 means 10
	Status        Status // "" for any
	CreatedOn     string // YYYY-MM-DD or ""
	BeforeID      string
	AfterID       string
	ThrottledOnly bool
}

// ListItem is one entry of a transcript list.
type ListItem struct {
	ID          string  `json:"id"`
	ResourceURL string  `json:"resource_url"`
	Status      Status  `json:"status"`
	Created     string  `json:"created"`
	Completed   *string `json:"completed"`
	AudioURL    string  `json:"audio_url"`
	Error       *string `json:"error"`
}

// PageDetails describes a list page; URLs are absolute.
type PageDetails struct {
	Limit       int     `json:"limit"`
	ResultCount int     `json:"result_count"`
	CurrentURL  string  `json:"current_url"`
	PrevURL     *string `json:"prev_url"`
	NextURL     *string `json:"next_url"`
}

// ListPage is the response of GET /v2/transcript.
type ListPage struct {
	PageDetails PageDetails `json:"page_details"`
	Transcripts []ListItem  `json:"transcripts"`
}

// Limits of the list endpoint.
const (
	DefaultListLimit = 10
	MaxListLimit     = 200
)

// TimeLayout formats list timestamps as the real API does (no zone, UTC).
const TimeLayout = "2006-01-02T15:04:05.000000"

// List returns a page of the project's transcripts, newest first.
func (s *Service) List(ctx context.Context, projectID string, o ListOptions) (*ListPage, error) {
	if o.Limit == 0 {
		o.Limit = DefaultListLimit
	}
	if o.Limit < 1 || o.Limit > MaxListLimit {
		return nil, paramErr("limit", "must be between 1 and %d", MaxListLimit)
	}
	if o.Status != "" && !o.Status.Valid() {
		return nil, paramErr("status", "must be one of queued, processing, completed, error")
	}
	now := s.now().UTC()
	q := ListQuery{ProjectID: projectID, Limit: o.Limit + 1, Status: o.Status, CreatedFrom: now.Add(-s.cfg.Retention)}
	if o.CreatedOn != "" {
		day, err := time.Parse("2006-01-02", o.CreatedOn)
		if err != nil {
			return nil, paramErr("created_on", "must be a date in the form YYYY-MM-DD")
		}
		if day.After(q.CreatedFrom) {
			q.CreatedFrom = day
		}
		q.CreatedBefore = day.Add(24 * time.Hour)
	}
	for _, c := range []struct {
		field, id string
		dst       *int64
	}{{"before_id", o.BeforeID, &q.BeforeSeq}, {"after_id", o.AfterID, &q.AfterSeq}} {
		if c.id == "" {
			continue
		}
		if uuid.Validate(c.id) != nil {
			return nil, paramErr(c.field, "must be a transcript id (uuid)")
		}
		seq, err := s.cfg.Store.SeqOf(ctx, projectID, c.id)
		if err != nil {
			if errors.Is(err, ErrNotFound) {
				return nil, paramErr(c.field, "transcript %s does not exist", c.id)
			}
			return nil, err
		}
		*c.dst = seq
	}
	var recs []*Record
	if !o.ThrottledOnly { // nothing is ever throttled here
		var err error
		recs, err = s.cfg.Store.List(ctx, q)
		if err != nil {
			return nil, err
		}
	}
	more := len(recs) > o.Limit
	if more {
		if q.AfterSeq > 0 {
			recs = recs[1:] // the newest extra one belongs to the next newer page
		} else {
			recs = recs[:o.Limit]
		}
	}
	page := &ListPage{Transcripts: make([]ListItem, 0, len(recs))}
	for _, r := range recs {
		t, _, err := s.unseal(r)
		if err != nil {
			// One unreadable record (say, sealed under a lost key) must not
			// hide the rest of the project's list.
			s.log.Error("listing: skipping unreadable transcript", "id", r.ID, "err", err)
			continue
		}
		it := ListItem{ID: r.ID, ResourceURL: s.cfg.PublicURL + "/v2/transcript/" + r.ID, Status: r.Status,
			Created: r.Created.UTC().Format(TimeLayout), AudioURL: t.AudioURL, Error: t.Error}
		if !r.Completed.IsZero() {
			c := r.Completed.UTC().Format(TimeLayout)
			it.Completed = &c
		}
		page.Transcripts = append(page.Transcripts, it)
	}
	base := s.cfg.PublicURL + "/v2/transcript"
	pageURL := func(extra url.Values) string {
		v := url.Values{}
		v.Set("limit", fmt.Sprint(o.Limit))
		if o.Status != "" {
			v.Set("status", string(o.Status))
		}
		if o.CreatedOn != "" {
			v.Set("created_on", o.CreatedOn)
		}
		if o.ThrottledOnly {
			v.Set("throttled_only", "true")
		}
		for k, vs := range extra {
			v[k] = vs
		}
		return base + "?" + v.Encode()
	}
	cur := url.Values{}
	if o.BeforeID != "" {
		cur.Set("before_id", o.BeforeID)
	}
	if o.AfterID != "" {
		cur.Set("after_id", o.AfterID)
	}
	page.PageDetails = PageDetails{Limit: o.Limit, ResultCount: len(page.Transcripts), CurrentURL: pageURL(cur)}
	if n := len(page.Transcripts); n > 0 {
		older := more && q.AfterSeq == 0
		if q.AfterSeq > 0 {
			older = true // the page right after after_id always has older transcripts
		}
		if older {
			u := pageURL(url.Values{"before_id": {page.Transcripts[n-1].ID}})
			page.PageDetails.PrevURL = &u
		}
		u := pageURL(url.Values{"after_id": {page.Transcripts[0].ID}})
		page.PageDetails.NextURL = &u
	}
	return page, nil
}

// SetWebhookStatus records the last HTTP status code a webhook delivery
// got (webhook_status_code). It is a no-op for deleted transcripts.
func (s *Service) SetWebhookStatus(ctx context.Context, id string, code int) error {
	for try := 0; try < 5; try++ {
		r, err := s.cfg.Store.Get(ctx, id)
		if err != nil {
			return err
		}
		if r.Deleted {
			return nil
		}
		t, attempts, err := s.unseal(r)
		if err != nil {
			return err
		}
		c := int64(code)
		t.WebhookStatusCode = &c
		data, err := s.seal(t, attempts)
		if err != nil {
			return err
		}
		r.Data = data
		// Keep the stored lease owner so a concurrent worker update is not lost;
		// if the record changed meanwhile, the owner check fails and we retry.
		err = s.cfg.Store.Update(ctx, r)
		if err == nil || !errors.Is(err, ErrLeaseLost) {
			return err
		}
	}
	return fmt.Errorf("transcribe: recording webhook status of %s: %w", id, ErrLeaseLost)
}

// RedactedAudio returns the blob key of a transcript's redacted audio and
// when it became ready. ErrNotReady when it was not requested or is not
// ready yet.
func (s *Service) RedactedAudio(ctx context.Context, projectID, id string) (key string, ready time.Time, err error) {
	t, err := s.Get(ctx, projectID, id)
	if err != nil {
		return "", time.Time{}, err
	}
	if !isTrue(t.RedactPIIAudio) {
		return "", time.Time{}, fmt.Errorf("transcript %s was not submitted with redact_pii_audio: %w", id, ErrNotReady)
	}
	if t.IsDeleted || t.RedactedKey == "" {
		return "", time.Time{}, fmt.Errorf("redacted audio of transcript %s is not ready: %w", id, ErrNotReady)
	}
	return t.RedactedKey, t.RedactedTime, nil
}

// Start launches the worker pool and the upload janitor, which deletes
// uploads unused for UploadTTL. It returns at once; Close stops them.
func (s *Service) Start() {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	if s.started {
		return
	}
	s.started = true
	for i := 0; i < s.cfg.Workers; i++ {
		s.wg.Add(1)
		go s.worker(i)
	}
	s.wg.Add(1)
	go s.janitor()
}

// janitor expires unused uploads every UploadSweepInterval, starting at once.
func (s *Service) janitor() {
	defer s.wg.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-s.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	tick := time.NewTicker(s.cfg.UploadSweepInterval)
	defer tick.Stop()
	for {
		s.expireUploads(ctx)
		select {
		case <-s.stop:
			return
		case <-tick.C:
		}
	}
}

// expireBatch is how many expired uploads one store query returns.
const expireBatch = 100

// expireUploads deletes the blob and record of every upload created more
// than UploadTTL ago that no transcript uses, and returns how many it
// deleted. A blob that cannot be deleted keeps its record, so the next
// sweep retries it.
func (s *Service) expireUploads(ctx context.Context) int {
	cutoff := s.now().Add(-s.cfg.UploadTTL)
	n := 0
	defer func() {
		if n > 0 {
			s.log.Info("expired unused uploads deleted", "count", n, "ttl", s.cfg.UploadTTL)
		}
	}()
	for {
		us, err := s.cfg.Store.ExpiredUploads(ctx, cutoff, expireBatch)
		if err != nil {
			if ctx.Err() == nil {
				s.log.Error("listing expired uploads", "err", err)
			}
			return n
		}
		failed := false
		for _, u := range us {
			if ctx.Err() != nil {
				return n
			}
			// A Submit may have attached it since the listing.
			if cur, err := s.cfg.Store.GetUpload(ctx, u.ID); err != nil || cur.TranscriptID != "" {
				if err != nil && !errors.Is(err, ErrNotFound) {
					s.log.Error("reading expired upload", "upload_id", u.ID, "err", err)
					failed = true
				}
				continue
			}
			if err := s.cfg.Blobs.Delete(ctx, uploadKey(u.ID)); err != nil {
				s.log.Error("deleting expired upload", "upload_id", u.ID, "err", err)
				failed = true
				continue
			}
			if err := s.cfg.Store.DeleteUpload(ctx, u.ID); err != nil {
				s.log.Error("deleting expired upload record", "upload_id", u.ID, "err", err)
				failed = true
				continue
			}
			n++
		}
		// A failure would return the same uploads again: retry next sweep.
		if failed || len(us) < expireBatch {
			return n
		}
	}
}

// Close stops the workers, waiting for running jobs to finish or for ctx to
// end. Jobs cut off by ctx are picked up again after their lease expires.
func (s *Service) Close(ctx context.Context) error {
	s.stopOnce.Do(func() { close(s.stop) })
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Service) worker(n int) {
	defer s.wg.Done()
	owner := fmt.Sprintf("%s/%d", s.cfg.WorkerID, n)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { <-s.stop; cancel() }()
	for {
		rec, err := s.cfg.Store.ClaimJob(ctx, owner, s.now(), s.cfg.Lease)
		switch {
		case err == nil:
			s.runJob(ctx, owner, rec)
			continue
		case errors.Is(err, ErrNoJob):
		case ctx.Err() != nil:
			return
		default:
			s.log.Error("claiming job", "err", err)
		}
		select {
		case <-s.stop:
			return
		case <-s.wake:
		case <-time.After(s.cfg.PollInterval):
		}
	}
}

// maxAttempts bounds how often a job that keeps killing its worker is retried.
const maxAttempts = 3

func (s *Service) runJob(ctx context.Context, owner string, rec *Record) {
	t, attempts, err := s.unseal(rec)
	if err != nil {
		s.log.Error("unsealing job", "id", rec.ID, "err", err)
		s.finish(ctx, owner, rec, nil, 0, err)
		return
	}
	attempts++
	log := s.log.With("id", t.ID)
	if attempts > maxAttempts {
		s.finish(ctx, owner, rec, t, attempts, &MediaError{Reason: fmt.Sprintf("processing was interrupted %d times; giving up", maxAttempts)})
		return
	}
	// Record the attempt before the work, so a crash counts.
	if data, err := s.seal(t, attempts); err == nil {
		rec.Data = data
		if err := s.cfg.Store.Update(ctx, rec); err != nil {
			log.Warn("recording attempt", "err", err)
			return
		}
	}
	jobCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go s.heartbeat(jobCtx, cancel, rec.ID, owner)
	start := s.now()
	log.Info("processing", "attempt", attempts)
	perr := s.processSafely(jobCtx, t)
	if cause := context.Cause(jobCtx); errors.Is(cause, ErrLeaseLost) {
		log.Warn("job lost its lease (deleted or taken over); result discarded")
		s.dropRedacted(context.WithoutCancel(ctx), t.ID)
		return
	}
	if ctx.Err() != nil {
		log.Info("shutting down; job will be resumed after restart")
		return
	}
	s.finish(ctx, owner, rec, t, attempts, perr)
	log.Info("finished", "status", t.Status, "elapsed", s.now().Sub(start).Round(time.Millisecond))
}

func (s *Service) heartbeat(ctx context.Context, cancel context.CancelCauseFunc, id, owner string) {
	tick := time.NewTicker(s.cfg.Lease / 3)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if err := s.cfg.Store.ExtendLease(ctx, id, owner, s.now().Add(s.cfg.Lease)); err != nil {
				if errors.Is(err, ErrLeaseLost) || errors.Is(err, ErrNotFound) {
					cancel(ErrLeaseLost)
					return
				}
				s.log.Warn("extending lease", "id", id, "err", err)
			}
		}
	}
}

// finish stores the final state and sends notifications. It runs to the
// end even when the worker is being stopped, so a stored result always gets
// its upload removed and its webhook queued.
func (s *Service) finish(ctx context.Context, owner string, rec *Record, t *Transcript, attempts int, perr error) {
	ctx = context.WithoutCancel(ctx)
	if t == nil {
		rec.Status = StatusError
		rec.Completed = s.now().UTC()
		rec.LeaseOwner = owner
		if err := s.cfg.Store.Update(ctx, rec); err != nil {
			s.log.Error("storing failed job", "id", rec.ID, "err", err)
		}
		return
	}
	if perr != nil {
		var me *MediaError
		var pe *ParamError
		reason := "internal error while processing the media"
		if errors.As(perr, &me) {
			reason = me.Reason
		} else if errors.As(perr, &pe) {
			reason = pe.Error()
		} else {
			s.log.Error("processing failed", "id", t.ID, "err", perr)
		}
		t.Status = StatusError
		t.Error = &reason
		t.Text, t.Words, t.Utterances, t.Confidence = nil, nil, nil, nil
	} else {
		t.Status = StatusCompleted
		markUnavailable(t)
	}
	t.Completed = s.now().UTC()
	if t.RedactedKey != "" && t.RedactedTime.IsZero() {
		t.RedactedTime = t.Completed
	}
	data, err := s.seal(t, attempts)
	if err != nil {
		s.log.Error("sealing result", "id", t.ID, "err", err)
		return
	}
	rec.Status, rec.Completed, rec.Data, rec.LeaseOwner = t.Status, t.Completed, data, owner
	rec.LeaseUntil = time.Time{}
	if err := s.cfg.Store.Update(ctx, rec); err != nil {
		if errors.Is(err, ErrLeaseLost) {
			s.log.Warn("job lost its lease before storing; result discarded", "id", t.ID)
			s.dropRedacted(ctx, t.ID)
		} else {
			s.log.Error("storing result", "id", t.ID, "err", err)
		}
		return
	}
	if t.UploadID != "" {
		s.dropUpload(ctx, t.UploadID)
	}
	if t.WebhookURL != nil && s.cfg.Notifier != nil {
		n := Notification{Event: EventTranscript, TranscriptID: t.ID, ProjectID: t.ProjectID, Status: t.Status, URL: *t.WebhookURL}
		if t.WebhookAuthHeaderName != nil && t.WebhookAuthHeaderValue != nil {
			n.HeaderName, n.HeaderValue = *t.WebhookAuthHeaderName, *t.WebhookAuthHeaderValue
		}
		if err := s.cfg.Notifier.Notify(ctx, n); err != nil {
			s.log.Error("queueing webhook", "id", t.ID, "err", err)
		}
		if t.RedactedKey != "" && t.Status == StatusCompleted {
			n.Event, n.Status, n.RedactedAudioURL = EventRedactedAudio, "", s.RedactedAudioURL(t.ID)
			if err := s.cfg.Notifier.Notify(ctx, n); err != nil {
				s.log.Error("queueing redacted-audio webhook", "id", t.ID, "err", err)
			}
		}
	}
}

// processSafely runs process and turns a panic in any stage or adapter
// into an error, so one bad job cannot take the process down.
func (s *Service) processSafely(ctx context.Context, t *Transcript) (err error) {
	defer func() {
		if v := recover(); v != nil {
			s.log.Error("panic while processing", "id", t.ID, "panic", v, "stack", string(debug.Stack()))
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	return s.process(ctx, t)
}

// process does the work of one job: fetch, decode, recognize, stages.
func (s *Service) process(ctx context.Context, t *Transcript) error {
	path, cleanup, err := s.localMedia(ctx, t)
	if err != nil {
		return err
	}
	defer cleanup()
	feat := s.cfg.Recognizer.Features()
	multi := isTrue(t.DualChannel) || isTrue(t.Multichannel)
	pcm, err := s.cfg.Decoder.Decode(ctx, path, feat.SampleRate, multi)
	if err != nil {
		return err
	}
	full := pcm.Duration()
	if full == 0 {
		return &MediaError{Reason: "the media contains no audio"}
	}
	if full > s.cfg.MaxMediaDuration {
		return &MediaError{Reason: fmt.Sprintf("the media is %s long; the limit is %s", full.Round(time.Second), s.cfg.MaxMediaDuration)}
	}
	dur := math.Round(full.Seconds()*1000) / 1000
	t.AudioDuration = &dur
	if multi {
		if len(pcm.Channels) < 2 {
			return &MediaError{Reason: "dual_channel and multichannel need audio with at least two channels; this media is mono"}
		}
		if isTrue(t.DualChannel) && len(pcm.Channels) != 2 {
			return &MediaError{Reason: fmt.Sprintf("dual_channel needs exactly two channels; this media has %d (use multichannel)", len(pcm.Channels))}
		}
		nc := int64(len(pcm.Channels))
		t.AudioChannels = &nc
	}
	offset, err := trim(pcm, t.AudioStartFrom, t.AudioEndAt)
	if err != nil {
		return err
	}
	if silent(pcm) {
		return &MediaError{Reason: "no speech detected: the audio is silent"}
	}
	opts := RecognizeOptions{WordBoost: append(append([]string(nil), t.WordBoost...), t.KeytermsPrompt...), Disfluencies: isTrue(t.Disfluencies)}
	if t.BoostParam != nil {
		opts.BoostParam = *t.BoostParam
	}
	if t.LanguageCode != nil {
		opts.LanguageCode = *t.LanguageCode
	}
	var words []Word
	var model string
	for ci, ch := range pcm.Channels {
		rec, err := s.cfg.Recognizer.Recognize(ctx, ch, opts)
		if err != nil {
			return err
		}
		model = rec.Model
		for _, w := range rec.Words {
			w.Start += offset
			w.End += offset
			if multi {
				c := fmt.Sprint(ci + 1)
				w.Channel = &c
			}
			words = append(words, w)
		}
	}
	if multi {
		sortWords(words)
	}
	if words == nil {
		words = []Word{}
	}
	t.Words = words
	if model != "" {
		t.SpeechModelUsed = &model
	}
	if err := s.applyLanguage(t); err != nil {
		return err
	}
	job := &Job{Transcript: t, Audio: pcm, OffsetMS: offset, Recognizer: s.cfg.Recognizer, Blobs: s.cfg.Blobs, Logger: s.log.With("id", t.ID)}
	for _, st := range s.cfg.Stages {
		if !st.Enabled(&t.TranscriptParams) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := st.Apply(ctx, job); err != nil {
			return fmt.Errorf("stage %s: %w", st.Name(), err)
		}
	}
	t.Fill()
	return nil
}

// applyLanguage sets the language result. The recognizer's language stands
// in for detection until a detection stage replaces it; no-speech follows
// language_detection_options.on_no_speech_detected.
func (s *Service) applyLanguage(t *Transcript) error {
	langs := s.cfg.Recognizer.Features().Languages
	if t.LanguageCode == nil {
		code := "en"
		if len(langs) > 0 {
			code = langs[0]
		}
		if isTrue(t.LanguageDetection) {
			t.LanguageCode = &code
		}
	}
	if len(t.Words) == 0 && isTrue(t.LanguageDetection) {
		o := t.LanguageDetectionOptions
		if o != nil && o.OnNoSpeechDetected != nil && *o.OnNoSpeechDetected == "fallback" {
			fb := *o.FallbackLanguage
			t.LanguageCode = &fb
			if t.Metadata == nil {
				t.Metadata = &Metadata{}
			}
			t.Metadata.Warnings = append(t.Metadata.Warnings, Warning{Message: "no speech detected; language_code set to the fallback language"})
			return nil
		}
		return &MediaError{Reason: "no spoken audio was detected, so the language could not be detected"}
	}
	return nil
}

func sortWords(ws []Word) {
	sort.SliceStable(ws, func(i, j int) bool { return ws[i].Start < ws[j].Start })
}

// trim cuts pcm to [start, end) milliseconds and returns the offset in ms.
func trim(pcm *PCM, start, end *int64) (int64, error) {
	n := int64(len(pcm.Channels[0]))
	rate := int64(pcm.SampleRate)
	lo, hi := int64(0), n
	// Milliseconds to samples without overflow: anything past the media's
	// length saturates at n.
	toSample := func(ms int64) int64 {
		if ms >= n*1000/rate+1 {
			return n + 1
		}
		return ms * rate / 1000
	}
	if start != nil {
		lo = toSample(*start)
	}
	if end != nil {
		hi = min(toSample(*end), n)
	}
	if lo >= n {
		return 0, &MediaError{Reason: fmt.Sprintf("audio_start_from %d ms is past the end of the media (%d ms)", *start, n*1000/rate)}
	}
	if hi <= lo {
		return 0, &MediaError{Reason: "audio_start_from..audio_end_at selects no audio"}
	}
	for i := range pcm.Channels {
		pcm.Channels[i] = pcm.Channels[i][lo:hi]
	}
	return lo * 1000 / rate, nil
}

// silent reports whether every channel's peak is below -60 dBFS.
func silent(pcm *PCM) bool {
	for _, c := range pcm.Channels {
		for _, v := range c {
			if v > 32 || v < -32 {
				return false
			}
		}
	}
	return true
}

// localMedia makes the job's media available as a local file.
func (s *Service) localMedia(ctx context.Context, t *Transcript) (string, func(), error) {
	noop := func() {}
	if t.UploadID != "" {
		key := uploadKey(t.UploadID)
		if fb, ok := s.cfg.Blobs.(FileBlobStore); ok {
			p, err := fb.Path(key)
			if err == nil {
				return p, noop, nil
			}
			if errors.Is(err, ErrNotFound) {
				return "", noop, &MediaError{Reason: "the uploaded file no longer exists"}
			}
			return "", noop, err
		}
		rc, err := s.cfg.Blobs.Open(ctx, key)
		if err != nil {
			if errors.Is(err, ErrNotFound) {
				return "", noop, &MediaError{Reason: "the uploaded file no longer exists"}
			}
			return "", noop, err
		}
		defer rc.Close()
		return s.toTemp(ctx, func(w io.Writer) (int64, error) { return io.Copy(w, rc) })
	}
	return s.toTemp(ctx, func(w io.Writer) (int64, error) { return s.cfg.Fetcher.Fetch(ctx, t.AudioURL, w) })
}

func (s *Service) toTemp(ctx context.Context, fill func(io.Writer) (int64, error)) (string, func(), error) {
	f, err := os.CreateTemp(s.cfg.TempDir, "earshot-media-*")
	if err != nil {
		return "", func() {}, err
	}
	cleanup := func() { f.Close(); os.Remove(f.Name()) }
	n, err := fill(f)
	if err == nil && n == 0 {
		err = &MediaError{Reason: "the media file is empty"}
	}
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		cleanup()
		return "", func() {}, err
	}
	return f.Name(), cleanup, nil
}

// Notify sends a notification through the configured Notifier, if any; for
// stages that produce later events (redacted audio).
func (s *Service) Notify(ctx context.Context, n Notification) error {
	if s.cfg.Notifier == nil {
		return nil
	}
	return s.cfg.Notifier.Notify(ctx, n)
}
