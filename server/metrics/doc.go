// Package metrics is the reference server's operational side: Prometheus
// collectors fed by the libraries' observer hooks, and the /healthz and
// /readyz handlers. The libraries themselves know nothing of Prometheus:
// each offers small optional hooks in its Config (transcribe.Config.OnJob,
// realtime.Config.OnSession and OnTranscript, webhook.Config.OnAttempt,
// httpapi.Config.OnRequest), and this package is one implementation of
// them, on github.com/prometheus/client_golang (v1.25.0, pinned).
//
// Entry points:
//
//   - New(Config) returns *Metrics: its methods Job, Session, Transcript,
//     Attempt and Request are the hooks; WatchJobs adds the queue depth
//     read from the shared store at each scrape
//     (transcribe.Service.JobCounts); InstrumentPool counts a pooled
//     recognizer's decoders in use; WatchWorkers reads an isolated
//     engine's worker processes; EngineServers is the per-server hook of
//     a remote engine's pool (openai.Config.OnServer,
//     whispercpp.Config.OnServer); Handler serves /metrics.
//   - NewHealth(HealthConfig) returns *Health: Live serves /healthz (the
//     process answers), Ready serves /readyz (every Check passes, else 503
//     with each failing check's reason). StoreCheck, BlobCheck and
//     EngineCheck are the checks the server uses; EngineCheck calls a
//     remote engine's own health check (Health(ctx) error: whisper.cpp's
//     GET /health, an OpenAI-compatible engine's endpoint), its answer
//     reused for EngineHealthTTL (5 s). WatchEngine adds the engine-up
//     gauge from the same check.
//
// Metrics (all names start with earshot_):
//
//	jobs_submitted_total{engine}               jobs queued by this process
//	jobs_total{outcome,engine}                 claims that ended: completed, error, retried, interrupted, lost
//	job_queue_wait_seconds{engine}             creation to each claim (histogram)
//	job_processing_seconds{engine}             claim to outcome of claims that ended a job (histogram)
//	job_turnaround_seconds{engine}             creation to completion (histogram)
//	audio_seconds_total{engine}                media seconds of completed jobs
//	realtime_factor{engine}                    processing time / media length of completed jobs (histogram)
//	jobs{status}                               queued and processing jobs in the shared store (gauge, read per scrape)
//	decoders_in_use{pool}, decoders{pool}      pooled decoders busy, and the pool's size
//	engine_up{engine}                          1 while the engine passes its health check, else 0 (read per scrape)
//	engine_server_requests_in_flight{engine,server}, engine_server_requests_total{engine,server,outcome},
//	engine_server_up{engine,server}            each server of a remote engine's pool (adapters/enginepool):
//	                                           requests given to it now, requests ended (ok, refused, error,
//	                                           unavailable, canceled), 1 while in use / 0 while skipped as down
//	engine_processes{pool}, engine_processes_idle{pool}, engine_process_crashes_total{pool},
//	engine_process_restarts_total{pool}        worker processes of isolated engines (adapters/isolate)
//	realtime_sessions_active                   streaming sessions holding a recognizer stream
//	realtime_sessions_total{state}             sessions ended: terminated, expired
//	realtime_audio_seconds_total               audio received by ended sessions
//	realtime_partial_latency_seconds           audio ending a word -> first partial showing it (histogram)
//	realtime_final_latency_seconds             audio ending speech -> final, pause included (histogram)
//	webhook_deliveries_total{outcome}          attempts: delivered, retry, failed
//	webhook_delivery_attempts                  attempts per finished delivery (histogram)
//	webhook_attempt_seconds                    one webhook request (histogram)
//	http_requests_total{route,method,status}   API requests by mux pattern, never by raw path
//	                                           (/v2 and, through httpapi.Instrument, /v1 routes)
//	http_request_duration_seconds{route,method} (histogram; WebSocket upgrades excluded)
//
// plus the Go runtime (go_*) and process (process_*) collectors.
//
// Choices:
//   - Counters of this process's work (jobs_total, audio seconds) are
//     summed across instances; the queue depth (jobs) comes from the store
//     every process shares, so it is the whole deployment's in every
//     instance: aggregate it with max, not sum. A count kept from one
//     process's own submits and claims would drift as soon as another
//     process submitted or claimed.
//   - Labels are bounded: routes are the API's ServeMux patterns, methods
//     outside the standard ones are "other", engines are the configured
//     names. Per-transcript or per-session ids never become labels.
//   - processing and turnaround count claims that ended a job (completed
//     or error); a claim cut off by a shutdown would skew them. The real-
//     time factor is end to end (fetch, decode, recognition, stages).
//   - /healthz runs no checks (a dependency that is down does not make a
//     restart useful); /readyz reasons name paths and errors, so serve it
//     on the separate operations listener, not the public API.
//   - Readiness of a localfs blob store also checks its directory: its
//     Open reports a missing directory as a missing blob, which would
//     pass the ErrNotFound probe.
//   - Engine readiness warms the engine in the background (one Warm at a
//     time, outliving the probe), so a model slower to load than a probe
//     waits still loads; busy decoders count as loaded once one loaded.
//   - Why client_golang: it is the reference Prometheus client (the
//     exposition formats, content negotiation, Go runtime and process
//     collectors); only the hooks that feed it are written here.
package metrics
