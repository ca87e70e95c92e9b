package transcribe

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/transcribe/netguard"
	"github.com/earshot-dev/earshot/transcribe/queue"
)

// Config configures a Service. Zero values mean the documented default;
// Store, Blobs, Recognizer, Decoder and Key are required.
type Config struct {
	// Store keeps the transcript records and hands out jobs. Required.
	Store driver.Store
	// Uploads keeps upload ownership. Default: Store, when it implements
	// UploadStore (the bundled stores do).
	Uploads driver.UploadStore
	// Blobs keeps uploaded media and the artifacts stages write. Required.
	Blobs driver.BlobStore
	// Engines are the speech engines, chosen per request by speech_model
	// (then speech_models); the first is the default. The API's model
	// names (best, nano, slam-1, universal, conformer-2) that no engine
	// claims as a name or alias select the default. Required, unless
	// Recognizer is set.
	Engines []Engine
	// Recognizer is shorthand for one engine named "best" (the API's
	// default model name). Ignored when Engines is set.
	Recognizer Recognizer
	Decoder    Decoder
	// Key is the 32-byte AES-256-GCM key that seals transcript content.
	Key []byte
	// Notifier receives completion events. Default: none.
	Notifier Notifier
	// Fetcher downloads audio_url media. Default: an HTTPFetcher whose
	// client refuses loopback, private and link-local addresses at dial
	// time (netguard), unless AllowPrivateURLs.
	Fetcher Fetcher
	// AllowPrivateURLs lets audio_url and webhook_url name loopback,
	// private and link-local hosts. Default false.
	AllowPrivateURLs bool
	// CheckURL vets audio_url and webhook_url at submit time; a non-nil
	// error becomes a 400 naming the field. Default: netguard.CheckLiteral
	// (refusing literal private addresses) unless AllowPrivateURLs.
	CheckURL func(raw string) error
	// Stages run in order after recognition. Default: none (raw words).
	Stages []Stage
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
	// UploadSweepInterval is how often the janitor looks for expired and
	// orphaned uploads; the first sweep runs when Start is called. Default
	// min(UploadTTL/4, 10m).
	UploadSweepInterval time.Duration
	// RedactedAudioTTL is how long redacted audio stays available after it
	// is ready. Default 24h (the spec's).
	RedactedAudioTTL time.Duration
	// MaxUploadBytes caps uploads. Default DefaultMaxMediaBytes.
	MaxUploadBytes int64
	// MaxMediaDuration caps the audio a job transcribes: the media's length
	// times the channels transcribed separately (dual_channel,
	// multichannel). Media beyond it is refused from its header when the
	// format declares its length, before any decoding. Default 10 hours.
	MaxMediaDuration time.Duration
	// PieceParallelism is how many pieces of one long job are recognized
	// at once (audio over 90 s is cut at pauses into pieces of at most
	// 60 s; the engine's own pool bounds the work in flight across jobs).
	// Default runtime.NumCPU(). An engine that reports its capacity
	// (Capacity() int above 0: a pool of engine servers,
	// adapters/openai and adapters/whispercpp) gets that many instead.
	PieceParallelism int
	// OutageWindow is how long a job waits for a speech engine or blob
	// store that is unavailable (ErrEngineUnavailable,
	// ErrStorageUnavailable) before it ends in error naming it; meanwhile
	// it keeps its claim and retries with a backoff, and the outage is not
	// counted as an attempt. It is also how long a worker tries to store a
	// job's final result while the database fails, before it leaves the
	// job to be resumed. Default DefaultOutageWindow (10 minutes).
	OutageWindow time.Duration
	// TempDir holds downloaded media while it is processed. When set, the
	// Service owns the directory: Start deletes the media files an earlier,
	// crashed run left in it (so give each process its own). Default
	// os.TempDir(), which is never swept.
	TempDir string
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// Logger receives progress and errors. Default slog.Default().
	Logger *slog.Logger
	// WorkerID names this process in job leases. Default a random UUID.
	WorkerID string
	// OnJob, when set, receives an event when Submit queues a job, when a
	// worker of this process claims one and when that claim ends (see
	// JobEvent). It is called
	// synchronously from the worker, so it must be quick and must not
	// call back into the Service; metrics collectors are its intended
	// use. Default: none.
	OnJob func(JobEvent)
}

func (c *Config) validate() error {
	switch {
	case c.Store == nil:
		return errors.New("transcribe: Config.Store is required")
	case c.Blobs == nil:
		return errors.New("transcribe: Config.Blobs is required")
	case c.Decoder == nil:
		return errors.New("transcribe: Config.Decoder is required")
	case c.Uploads == nil:
		return errors.New("transcribe: Config.Uploads is required (Store does not implement UploadStore)")
	}
	return nil
}

// Service is the transcription service: it validates requests, enforces
// project ownership and state transitions, seals content, and runs the
// worker pool and the janitor. It knows nothing of HTTP: httpapi renders
// its results as the AssemblyAI wire form. All methods are safe for
// concurrent use.
type Service struct {
	cfg     Config
	cipher  *Cipher
	reads   *readCache // opened records of recent GETs (readcache.go)
	lists   listCache  // list results of recent pages (readlist.go)
	engines *engines
	// ownTemp: TempDir was given, so Start may sweep it.
	ownTemp bool
	log     *slog.Logger
	now     func() time.Time

	// jobs is the Store's job queue; run works it (and runs the janitor).
	jobs    queue.Queue[*driver.Record]
	run     *queue.Runner[*driver.Record]
	startMu sync.Mutex
	started bool
}

// NewService checks cfg and returns a Service. Call Start to run workers.
func NewService(cfg Config) (*Service, error) {
	if cfg.Uploads == nil {
		if u, ok := cfg.Store.(driver.UploadStore); ok {
			cfg.Uploads = u
		}
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	c, err := NewCipher(cfg.Key)
	if err != nil {
		return nil, err
	}
	if len(cfg.Engines) == 0 && cfg.Recognizer != nil {
		cfg.Engines = []Engine{{Name: "best", Recognizer: cfg.Recognizer}}
	}
	engs, err := newEngines(cfg.Engines)
	if err != nil {
		return nil, err
	}
	switch {
	case cfg.Workers == 0:
		cfg.Workers = runtime.NumCPU()
	case cfg.Workers < 0:
		cfg.Workers = 0
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&cfg.Lease, 30*time.Second)
	def(&cfg.PollInterval, 500*time.Millisecond)
	def(&cfg.Retention, 90*24*time.Hour)
	def(&cfg.UploadTTL, 24*time.Hour)
	def(&cfg.UploadSweepInterval, max(min(cfg.UploadTTL/4, 10*time.Minute), time.Millisecond))
	def(&cfg.RedactedAudioTTL, 24*time.Hour)
	def(&cfg.MaxMediaDuration, 10*time.Hour)
	def(&cfg.OutageWindow, DefaultOutageWindow)
	if cfg.PieceParallelism <= 0 {
		cfg.PieceParallelism = runtime.NumCPU()
	}
	if cfg.MaxUploadBytes <= 0 {
		cfg.MaxUploadBytes = DefaultMaxMediaBytes
	}
	if cfg.Fetcher == nil {
		cfg.Fetcher = &HTTPFetcher{
			Client:   netguard.Client(netguard.Options{AllowPrivate: cfg.AllowPrivateURLs, Timeout: defaultFetchTimeout}),
			MaxBytes: cfg.MaxUploadBytes,
		}
	}
	if cfg.CheckURL == nil && !cfg.AllowPrivateURLs {
		cfg.CheckURL = netguard.CheckLiteral
	}
	ownTemp := cfg.TempDir != ""
	if !ownTemp {
		cfg.TempDir = os.TempDir()
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
	s := &Service{
		cfg: cfg, cipher: c, reads: newReadCache(DefaultReadCacheBytes), engines: engs, ownTemp: ownTemp, log: cfg.Logger, now: cfg.Now,
		jobs: JobQueue(cfg.Store),
	}
	s.run = s.newRunner()
	return s, nil
}

// Workers returns how many jobs this Service runs at once (0 for an
// API-only process).
func (s *Service) Workers() int { return s.cfg.Workers }

// Start removes the temporary files that jobs of an earlier run left in
// Config.TempDir (a crash leaves downloaded media there), then launches the worker
// pool and the janitor. It returns at once; Close stops them. Calling it
// twice does nothing.
func (s *Service) Start() {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	if s.started {
		return
	}
	s.started = true
	if s.ownTemp {
		s.removeStaleTemp()
	}
	s.run.Start()
}

// Close stops the workers, waiting for running jobs to finish or for ctx to
// end. Jobs cut off by ctx are picked up again after their lease expires.
func (s *Service) Close(ctx context.Context) error {
	s.startMu.Lock()
	s.started = true // no Start after Close
	s.startMu.Unlock()
	s.run.Stop()
	return s.run.Wait(ctx)
}

// signal wakes an idle worker of this process.
func (s *Service) signal() { s.run.Wake() }

// JobEventKind says which moment of a claim a JobEvent reports.
type JobEventKind string

// Job event kinds.
const (
	// JobSubmitted: Submit stored a new queued transcript (in this
	// process; a worker of any process sharing the Store may claim it).
	JobSubmitted JobEventKind = "submitted"
	// JobClaimed: a worker of this process claimed the job (its record
	// was read, so Engine is known unless the record is unreadable).
	JobClaimed JobEventKind = "claimed"
	// JobFinished: the claim ended; Outcome says how.
	JobFinished JobEventKind = "finished"
)

// JobOutcome is how one claim of a job ended.
type JobOutcome string

// Job outcomes, one per claim (a job claimed three times reports three).
const (
	// JobCompleted: the transcript was stored completed.
	JobCompleted JobOutcome = "completed"
	// JobFailed: the transcript was stored in status error (bad media,
	// an engine error, a second engine crash, an unreadable record).
	JobFailed JobOutcome = "error"
	// JobRetried: the speech engine crashed on the job; it was given
	// back for its one retry.
	JobRetried JobOutcome = "retried"
	// JobInterrupted: a shutdown, an engine closed under the job, or a
	// failure to store its outcome cut it off; it will be resumed.
	JobInterrupted JobOutcome = "interrupted"
	// JobLost: the job's lease was lost while it ran (the transcript was
	// deleted, or another worker took it over); its result was dropped.
	JobLost JobOutcome = "lost"
)

// JobOutcomes lists every JobOutcome.
func JobOutcomes() []JobOutcome {
	return []JobOutcome{JobCompleted, JobFailed, JobRetried, JobInterrupted, JobLost}
}

// JobEvent is what Config.OnJob receives. Durations are measured with
// Config.Now.
type JobEvent struct {
	Kind JobEventKind
	// ID is the transcript id.
	ID string
	// Engine is the name of the speech engine chosen for the job; "" when
	// its record could not be read.
	Engine string
	// Claim counts the claims of the job, this one included (1 for the
	// first).
	Claim int
	// Waited (JobClaimed): from the transcript's creation to this claim.
	Waited time.Duration
	// Outcome (JobFinished): how the claim ended.
	Outcome JobOutcome
	// Processing (JobFinished): from the claim to its outcome.
	Processing time.Duration
	// Turnaround (JobFinished, JobCompleted or JobFailed): from the
	// transcript's creation to its completion, queueing and earlier
	// claims included.
	Turnaround time.Duration
	// Audio (JobFinished): the length of the decoded media; zero when the
	// job did not get as far as decoding it.
	Audio time.Duration
}

// jobWatch reports one claim to Config.OnJob (a nil *jobWatch does
// nothing): claimed once the record is read, finish when the claim ends
// with the outcome set along the way.
type jobWatch struct {
	s       *Service
	rec     *driver.Record
	at      time.Time
	engine  string
	outcome JobOutcome
	t       *Transcript
}

func (s *Service) watchJob(rec *driver.Record) *jobWatch {
	if s.cfg.OnJob == nil {
		return nil
	}
	return &jobWatch{s: s, rec: rec, at: s.now(), outcome: JobInterrupted}
}

func (w *jobWatch) claimed(j *job) {
	if w == nil {
		return
	}
	if j != nil {
		w.engine, w.t = j.st.Engine, j.st.T
	}
	w.s.cfg.OnJob(JobEvent{Kind: JobClaimed, ID: w.rec.ID, Engine: w.engine, Claim: w.rec.Claims, Waited: w.at.Sub(w.rec.Created)})
}

func (w *jobWatch) set(o JobOutcome) {
	if w != nil {
		w.outcome = o
	}
}

func (w *jobWatch) finish() {
	if w == nil {
		return
	}
	now := w.s.now()
	e := JobEvent{Kind: JobFinished, ID: w.rec.ID, Engine: w.engine, Claim: w.rec.Claims, Outcome: w.outcome, Processing: now.Sub(w.at)}
	if w.outcome == JobCompleted || w.outcome == JobFailed {
		e.Turnaround = now.Sub(w.rec.Created)
	}
	if w.t != nil && w.t.AudioDuration != nil && *w.t.AudioDuration > 0 {
		e.Audio = time.Duration(*w.t.AudioDuration * float64(time.Second))
	}
	w.s.cfg.OnJob(e)
}

// JobCounts returns how many transcripts are queued and processing in the
// Store, across all projects and all processes sharing it: the queue
// depth of the whole deployment, not of this process. (A count kept
// from this process's own submits and claims would be wrong as soon as
// another process submits or claims.) It needs a Store implementing
// JobCounter; otherwise the error wraps errors.ErrUnsupported.
func (s *Service) JobCounts(ctx context.Context) (queued, processing int, err error) {
	jc, ok := s.cfg.Store.(driver.JobCounter)
	if !ok {
		return 0, 0, fmt.Errorf("transcribe: the Store (%T) does not count jobs: %w", s.cfg.Store, errors.ErrUnsupported)
	}
	if queued, err = jc.CountJobs(ctx, StatusQueued); err != nil {
		return 0, 0, fmt.Errorf("transcribe: counting queued jobs: %w", err)
	}
	if processing, err = jc.CountJobs(ctx, StatusProcessing); err != nil {
		return 0, 0, fmt.Errorf("transcribe: counting processing jobs: %w", err)
	}
	return queued, processing, nil
}
