// Package enginepool spreads the requests of one speech engine over
// several servers running it (adapters/openai and adapters/whispercpp take
// several URLs and build a Pool of them).
//
// One whisper.cpp server transcribes one request at a time (a global mutex
// in its server), so the pieces of a long recording sent "in parallel" to
// one server only queue there. A Pool holds the requests in Earshot
// instead, and gives each to a server as soon as one has room:
//
//   - least in flight: a request goes to the up server with the fewest
//     requests in flight; ties are taken in turn, so equal servers share
//     the work evenly;
//   - per-server concurrency: no server is given more than
//     Config.Concurrency requests at once (whisper.cpp's adapter: 1); a
//     request beyond the pool's Capacity waits in Acquire for the first
//     slot to free, wherever it is, rather than in one server's queue;
//   - health: a request that finds its server down (Outcome Unavailable:
//     no connection, 429, 502, 503, 504) marks the server down; the caller
//     sends it again at once on another server (adapters/openai does), and
//     the pool skips the server until its health check (Config.Check:
//     whisper.cpp's GET /health, an OpenAI-compatible server's endpoint)
//     passes, checked every Config.RecheckInterval (2 s) while another
//     server is up, and at each Health call (readiness, metrics);
//   - all down: requests still go out, to the server that failed longest
//     ago, so that their failures surface to the caller as the outage
//     they are (the adapters' errors wrap transcribe.ErrEngineUnavailable,
//     which the Service waits out, transcribe/outage.go), and a server that
//     answers again is back at once. A pool of one server behaves as a
//     plain client of it: nothing is rechecked behind the requests.
//
// Entry points: New(Config) returns a *Pool; Acquire returns a *Slot on a
// server and Slot.Release ends it with the request's Outcome; Health
// checks every server; Capacity is servers × Concurrency (the Service
// recognizes that many pieces of a long job at once); Stats reads each
// server's state. Config.OnEvent is the metrics hook (server/metrics
// turns it into earshot_engine_server_requests_in_flight,
// _requests_total{outcome} and _up, labelled with the engine and server).
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: the defaults
// Config documents (DefaultCheckTimeout, DefaultRecheckInterval), EventKind
// (what each Event its observer receives reports), Slot (what Acquire
// returns) and ErrClosed.
package enginepool
