// Package server assembles Earshot's reference server from the library:
// the AssemblyAI v2 REST and realtime API on embedded defaults (SQLite and
// files in the data directory, Debian's pocketsphinx as the recognizer),
// configured by EARSHOT_* environment variables or flags of the same
// meaning. server/cmd/earshot-server and the earshot command's serve run it.
//
// With EARSHOT_DATABASE_URL (PostgreSQL) and EARSHOT_S3_* (an S3 bucket)
// any number of processes, each with its own data directory, share the
// work: jobs, uploads, webhooks (each delivered by one process), realtime
// tokens and sessions (a session resumes on any process) live in the
// database and the bucket; every process needs the same
// EARSHOT_ENCRYPTION_KEY (it also signs redacted-audio URLs) and
// EARSHOT_API_KEYS. EARSHOT_EU_ADDR adds the EU region: a second
// listener serving the spec's EU endpoint set over a store and blobs of
// its own (region.go).
//
// Every front end (/v2 on both listeners, /v1, the realtime token
// endpoint and WebSocket) shares one httpapi.Guard: EARSHOT_RATE_LIMIT and
// EARSHOT_RATE_BURST per project, EARSHOT_AUTH_FAILURE_RATE per client
// address, with the client address taken from X-Forwarded-For only when
// the peer is in EARSHOT_TRUSTED_PROXIES. Streaming sessions of one
// project hold at most EARSHOT_REALTIME_PROJECT_SHARE of the capacity the
// admission measures (default half when the keys name several projects).
//
// # Assembly
//
// Run builds the server in these steps, in this order; each is a function
// of its own, named here, that takes what the steps before it made:
//
//  1. setUp (server.go): the logger, and the storage settings checked as
//     ParseConfig checks them.
//  2. openDataDir (datadir.go): the data directory, locked against a
//     second process; the content key and the API keys (configured, or
//     generated and kept there); the temporary directories.
//  3. openStores (region.go): each region's store and blobs: PostgreSQL
//     or SQLite, S3 or files; the EU region's with EARSHOT_EU_ADDR.
//  4. openLocalEngines (engines.go): pocketsphinx for batch jobs and for
//     streaming, one decoder loaded to prove the model, and the media
//     decoder.
//  5. openListeners (listen.go): the API listeners bound (with TLS) and
//     the public URLs clients reach them at.
//  6. newOps (metrics.go): the operations listener (EARSHOT_METRICS_ADDR)
//     and the metrics whose hooks the later steps take.
//  7. openEngines (engines.go): the speech engines the Service chooses
//     from (pocketsphinx, whisper.cpp, OpenAI-compatible), the default
//     first, with the local pools counted by the metrics.
//  8. stageOptions and buildServices (service.go): the pipeline's options
//     (a language model for summaries), then each region's webhook
//     notifier and transcribe.Service.
//  9. newAccess (http.go): the API keys as an authenticator and the one
//     Guard every front end shares.
//  10. buildRealtime (streaming.go): realtime v2 and Universal-Streaming
//     v3 on one streaming pool, admission and state.
//  11. buildHTTP (http.go): the main listener's handler (the web console,
//     OpenAI's audio API under /v1/, the AssemblyAI API with LeMUR and
//     realtime) and the EU listener's, each in an http.Server.
//  12. serve (operate.go): the janitors, job workers, webhook notifiers,
//     operations listener and API listeners started; then, when ctx ends
//     or a listener fails, the graceful shutdown.
//
// Start-up order matters for data safety: everything that can fail (the
// data-directory lock, keys, store, engines, the listener and its TLS
// files) is set up before any worker claims a job, so a start that fails
// leaves queued work untouched: no job worker or webhook delivery starts
// before serve. When a step fails, what the steps before it opened is
// closed, last first. SIGINT
// and SIGTERM shut the server down gracefully; jobs cut off resume after
// the next start.
package server
