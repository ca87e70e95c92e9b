// Package transcribe is the core of Earshot: the transcript resource, its
// parameters and their validation, the status machine, the engine and
// stage contracts, and the Service that ties them together; the storage
// contracts are transcribe/driver's. It knows
// nothing of HTTP: no URL of the AssemblyAI API appears here (httpapi
// renders them), so a gRPC front end, a CLI or a queue consumer embeds it
// as it is.
//
// # Who reads what
//
// This one package serves four kinds of reader; each needs only its part:
//   - Embedders (a server or worker of their own): NewService, Config,
//     Engine, NewKey; Service's Upload, Submit, Get, GetJSON, ReadJSON,
//     List, Delete, RedactedAudio, Start and Close; SubmitRequest; the
//     errors ParamError, LimitError, NotReadyError, MediaError, ErrNotFound.
//     examples/embed is a whole program.
//   - Wire schema (what the API takes and returns): Transcript,
//     TranscriptParams and the result types they hold (Word, Utterance,
//     Chapter, Entity, SentimentResult, AutoHighlightsResult,
//     ContentSafetyLabelsResult, TopicDetectionResult, ...), and the enums
//     with their list functions (Status and Statuses, PIIPolicies,
//     LanguageCodes, SummaryTypes, ...). httpapi renders them.
//   - Adapter authors: the storage contracts (Store, UploadStore,
//     BlobStore, the optional ReadStore, PageStore and JobCounter,
//     IdempotencyStore, LeMURStore) and the records they keep are package
//     transcribe/driver's, with their suites in driver/drivertest;
//     examples/customstore is one. Here: the engine contracts Recognizer,
//     FileRecognizer, StreamRecognizer, Stream and Decoder with PCM,
//     Recognition, RecognizeOptions and RecognizerFeatures; Fetcher;
//     Notifier; their suites and fakes are transcribe/transcribetest's.
//   - Stage authors: Stage, StageFunc, FallibleStage, PendingStage, Job
//     (Transcript, LoadAudio, StoreArtifact) and Written;
//     transcribe/pipeline is the default order; examples/customstage adds
//     one.
//
// # Entry points
//
//   - NewService(Config) returns a *Service: Upload (returns an upload id),
//     Submit (a SubmitRequest: the parameters and an upload id or an
//     audio_url), Get, GetCompleted, List (entries plus the cursors of the
//     pages around them), Delete, RedactedAudio, and the worker pool and
//     janitor (Start, Close).
//   - TranscriptParams.Validate checks every rule of the spec's parameter
//     tables and returns a *ParamError naming the field.
//   - Transcript is the wire form of the transcript resource.
//
// # Contracts
//
// Each method's edge cases are documented on the interface.
// The storage contracts live in package driver, split by aggregate so that
// an adapter implements only what it stores: driver.Store (transcript
// records, job claiming, leases), driver.UploadStore (upload ownership),
// driver.BlobStore (media bytes), driver.IdempotencyStore (the
// Idempotency-Key records httpapi keeps; optional). Here: Recognizer with
// the optional StreamRecognizer and FileRecognizer (speech engines),
// Decoder (media to PCM), Fetcher (audio_url downloads), Notifier
// (webhooks; the durable queue behind it is webhook.Queue) and Stage with
// the optional PendingStage and FallibleStage (one step of the feature
// pipeline). Status and the storage errors (ErrNotFound, ErrExists,
// ErrNoJob, ErrLeaseLost, ErrStorageUnavailable, ErrClosed) are driver's,
// re-exported here under the same names.
//
// Jobs are a leased queue (JobQueue over a Store), the same primitive
// (transcribe/queue: claim with a lease, extend, complete, retry at a
// time; its Runner is the poll/wake loop and lifecycle) that webhook
// deliveries use; transcribe/queue/queuetest checks the lease rules of
// both with one suite.
//
// The Service is a facade over its runtime, in files of their own:
// upload.go and submit.go (requests), read.go and list.go (reads),
// worker.go (the worker pool, a queue.Runner over JobQueue: attempts and
// outcomes), jobqueue.go (the Store's jobs as a queue.Queue), process.go (fetch, decode, recognize, stages), janitor.go
// (expired and orphaned uploads), seal.go (what is encrypted, and how),
// status.go (the transition table every status change goes through).
//
// # Processing
//
// Submit stores a queued record; a worker claims it through
// Store.ClaimJob with a lease (the Runner extends it every Lease/3), so several processes
// can share one Store and a job whose worker died is picked up again when
// its lease runs out. The worker fetches and decodes the media, trims it to
// audio_start_from/audio_end_at, recognizes each channel, runs the enabled
// Stages in order, and stores the result. Content is sealed with AES-GCM
// (Cipher) before it reaches the Store: text, words, results, parameters
// and URLs are never written in clear; the list fields (audio_url, error)
// are sealed apart, so a list page never opens whole transcripts.
//
// # Reads
//
// ReadJSON (GET /v2/transcript/{id}) serves the transcript's
// wire form, rendered and sealed when it last changed, with the status
// and webhook status the Store holds now spliced in. With a ReadStore the
// wire form comes from a bounded in-memory cache of opened records
// (readcache.go: decrypted, never written anywhere) once the Store has
// confirmed, in the same read, that the record's sealed summary is still
// the one it was opened under (Data and Summary are sealed together with
// fresh nonces and written in one statement, so this holds across
// processes); otherwise it is decrypted into a reused buffer. With a
// PageStore a list page reads the six fields of its entries alone
// (ListPage), and the summaries are opened into reused buffers. Every
// read still checks the project on the Store's record of that read.
//
// # Engines
//
// Config.Engines names the speech engines; a request's
// speech_model (or, failing that, the first of speech_models the Service
// knows) picks one by name or alias, and the API's own model names that
// no engine claims ("best", "nano", ...) go to the first. The transcript
// echoes the effective speech_model; an unknown name, or a language the
// chosen engine does not speak, is a 400 naming the engines that would do.
//
// # Media
//
// The fetched or uploaded file is decoded as a stream into a spool
// file of 16-bit PCM (spool.go), so a job holds a few buffers in memory
// however long its audio; a WAV or FLAC header declaring more than
// MaxMediaDuration (duration × channels) is refused before any decoding.
// audio_duration is the media's length rounded to the nearest whole
// second, at least 1 (the real API sends an integer). An engine that can
// read the file itself (FileRecognizer) is handed it when no trimming or
// channel split is asked for. Audio longer than 90 s is cut at pauses
// (SplitAtPauses) into pieces of at most 60 s, recognized in parallel
// (Config.PieceParallelism, or the engine's Capacity when it reports one:
// a pool of engine servers) and joined with their offsets.
//
// # Attempts
//
// A job that crashes its speech engine (an error wrapping
// ErrEngineCrashed, which isolated engines return) is retried once and
// then ends in error, never to be resumed. A job interrupted from outside
// (its process stopped or was killed) is resumed without counting against
// it, up to a backstop of 10 claims without an outcome. A shutdown or an
// engine closed under a job (ErrClosed) gives the job back at once.
//
// # Outages (outage.go)
//
// A speech engine that is unreachable or answers 429,
// 502, 503 or 504 (ErrEngineUnavailable, which the HTTP adapters wrap) and
// a blob store that is unreachable or answers 5xx (ErrStorageUnavailable,
// storage/s3) interrupt a job; they are not its fault. The job waits
// inside its claim (its lease held by the Runner's heartbeats, so no other
// process takes it and Claims does not move), retrying the call with a
// backoff from 1 s doubling to 5 s and a warn log line per retry naming
// the engine or store and the reason, for Config.OutageWindow (default 10
// minutes), and only then ends in error naming what was down. It is never
// counted as an attempt. A shutdown meanwhile gives the job back. A
// database that fails the write of a job's final result (down,
// restarting) is waited out the same way, for OutageWindow with a backoff
// from 50 ms to 1 s (storeFinal, worker.go): the record is read back (a
// write whose reply was lost after it committed is stored), and written
// again while the job is still under the worker's lease, so a database
// restart costs no second claim nor the work done; only a shutdown,
// OutageWindow or five writes refused while reads work leave the job to be
// resumed after its lease.
//
// # Webhooks
//
// An outbox: the Update that stores a job's final result also
// sets Record.NotifyPending when it has webhooks to send, so the result
// and the promise of its webhooks are one write. The worker then hands the
// notifications to the Notifier (retried for 20 s) and clears the flag;
// every Lease, the Service re-sends those of results whose flag is still
// set a Lease after they were stored (a process killed between the two
// writes, a database down past the retries). Each Notification has a Key
// ("<id>/<event>") that makes Notify idempotent, so a re-send never
// doubles a delivery.
//
// # Observation
//
// Config.OnJob reports each job's submission, claim (with
// the time it waited) and outcome (completed, error, retried, interrupted,
// lost, with processing time and audio length); Service.JobCounts reads
// the queue depth from a Store that implements the optional JobCounter.
//
// # Choices where the spec is silent
//
// Made for the official SDKs:
//   - Deletion keeps the status (as the real API does) and sets is_deleted;
//     text becomes "Deleted by user." and audio_url "http://deleted_by_user".
//     Deleting an unfinished transcript ends it in error so pollers stop.
//   - When no language_code is given, language_detection is true and
//     language_code becomes the recognizer's language at completion.
//   - language_confidence_threshold above 0 is never passed unchecked: on
//     an engine that does not detect languages it is a 400 at submission;
//     on one that detected without a confidence (no language
//     probabilities in its answer) the transcript ends in error naming the
//     missing confidence (applyLanguage). 0, the default, checks nothing.
//   - code_switching on an engine that detects: the audio goes in pieces
//     (at most a minute, cut at pauses), each detected on its own;
//     language_detection_results.code_switching_languages lists the
//     languages found with the share of the words in each as confidence,
//     those below code_switching_confidence_threshold left out (the
//     highest kept when all are), and language_codes their codes unless
//     the request gave language_codes (applyCodeSwitching). Words carry
//     no language (the spec has no such field).
//   - prompt needs the pro model (speech_model "slam-1"); auto_chapters
//     needs a universal-2 model ("best", "universal" or unset).
//   - Silent or empty media ends in status error with a reason.
//   - An upload is transcribed once: a second submit of it is a 400.
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: the wire
// schema's field types and enum values (AudioQuality, Domain and
// DomainMedical, SubstitutionPolicy, BoostParam with BoostLow, BoostDefault
// and BoostHigh, CodeSwitchingLanguage, Warning, Metadata, SpeakerOptions,
// ListEntry, ...), which a Go caller sets in TranscriptParams and reads from
// Transcript; the spec's limits (MaxWordBoostTerms, MaxKeytermsPro,
// MaxPromptWords, MaxURLBytes, Min/MaxContentSafetyConf) and the defaults
// Config and the parameters document (Default*), for front ends that state
// them; the job event kinds and outcomes Config.OnJob reports (JobEventKind,
// JobOutcome, JobRetried, JobInterrupted, JobLost, ...); HTTPFetcher, the
// default Fetcher an embedder wraps, and NotifierFunc.
package transcribe
