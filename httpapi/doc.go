// Package httpapi mounts Earshot's AssemblyAI-compatible v2 REST API (and,
// when configured, the realtime WebSocket endpoints) as an http.Handler.
//
// Entry points: NewURLs(publicURL, signingKey) returns the *URLs that
// render every URL the API hands out (upload_url, resource_url,
// page_details, redacted_audio_url) and parse upload URLs that come back;
// New(Config) returns an *API; mount it at the root of any mux (the
// official Go SDK drops path prefixes from its base URL):
//
//	urls, err := httpapi.NewURLs("https://speech.example.com", signingKey)
//	api, err := httpapi.New(httpapi.Config{Service: svc, URLs: urls, Auth: httpapi.Keys{"key": "project"}})
//	http.ListenAndServe(addr, api)
//
// Regions: the EU region is a second API (Config.Endpoints EndpointsEU:
// upload, transcript create/list/get/delete, word search, redacted audio;
// every other path 404) over a second Service with its own Store and
// BlobStore, on a listener of its own; Config.OtherRegions makes each
// region refuse the other's upload URLs (see Example_regions).
//
// Authenticate(auth, r) is the one function every entry point
// authenticates with; AuthFunc binds it for realtime.Config.Authenticate.
// The transcribe Service is transport-neutral: this package turns upload
// URLs into upload ids for Service.Submit, renders Service.List's entries
// and cursors as the list page, and signs redacted-audio URLs.
//
// Wire behaviour chosen for the official SDKs (see wire-format.md):
//   - every success is 200 with Content-Type application/json (DELETE
//     included); every error is {"error": "..."} with application/json,
//     except the two the spec makes plain text: an empty upload is 422
//     text/plain, and an unknown subtitle format is 404 "404: Not Found";
//   - the authorization header carries the raw API key ("Bearer <key>" is
//     accepted too); a missing or unknown key is 401;
//   - GET /v2/transcript ignores request bodies and treats empty query
//     values (after_id=) as absent; page_details URLs are absolute;
//   - an unknown transcript is 404, except on the subtitles endpoints where
//     the spec asks for 400; exports of a transcript that is not completed
//     are 400;
//   - requests are rate limited per project with a token bucket (Config
//     RateLimit/RateBurst); over the limit is 429 with Retry-After;
//     failed authentications are rate limited per client address
//     (Config.AuthFailureRate; IPv6 per /64), and a 401 is sent before the
//     body is read, with Connection: close; an address over that limit gets
//     429 before its key is looked at, except for keys that authenticated
//     from it within the last hour, so guessing from behind a shared
//     address does not lock out the valid keys used there. Both limits live
//     in a Guard (NewGuard; Config.Guard): give the same Guard to every
//     front end of a server (the EU listener's API, realtime.Config.Guard,
//     openaiapi.Config.Guard) for one budget across them. The client
//     address is the peer's, or the rightmost X-Forwarded-For address that
//     is not a trusted proxy when the peer is one of
//     GuardConfig.TrustedProxies. Instrument gives a handler mounted beside
//     the API (such as openaiapi's) the same request ids, access log and
//     metrics (Config.OnRequest);
//   - request bodies must keep flowing: one idle for BodyIdleTimeout is
//     cut off (an upload of any size goes through while it flows);
//   - clients see the messages of errors made for them, or a fixed
//     sentence per kind; a full disk is 507; an upload over the Service's
//     MaxUploadBytes is 413 with a JSON error naming the limit (the Go
//     SDK reads error bodies only when they are JSON);
//   - only errors of reading or decoding the request body are 400 by
//     their type (they are typed where the body is decoded); a store's
//     error is never a 4xx: an unavailable store (connection refused,
//     reset or cut, a database shutting down or recovering) is 503 with
//     a short reason and Retry-After, any other store error 500, each
//     logged with its cause;
//   - a request's store calls are bounded by Config.StoreTimeout (default
//     5 s; the clock stops while the body streams): past it the answer is
//     503 "storage did not answer within ..." with Retry-After;
//   - POST /v2/transcript and POST /v2/upload honour an Idempotency-Key
//     header (1 to 255 visible ASCII characters), per project, for 24
//     hours: the same key with the same request gets the same transcript
//     (its current state, with Idempotent-Replayed: true) or the same
//     upload_url; another body under the key is 422. The transcript's id
//     is reserved with the key before it is created, so a retry after an
//     unacknowledged commit, on any process sharing
//     Config.Idempotency, finds it instead of making a second job;
//   - JSON bodies are capped (Config.MaxJSONBytes, 413 beyond it); unknown
//     JSON keys are ignored and wrong JSON types are 400 naming the field;
//   - every response carries X-Request-Id (a sane incoming one is kept,
//     otherwise a UUID), also in the request's context for log records
//     (LogHandler); Config.OnRequest reports each request's route, status,
//     size and duration;
//   - GET /openapi.json serves the OpenAPI 3.1 document of the API
//     (package openapi), without a key.
//
// This package is the one place where transcribe errors become HTTP status
// codes. API is safe for concurrent use.
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: the request-id
// helpers for embedders' own middleware and logs (RequestID,
// ContextWithRequestID, ValidRequestID, RequestIDHeader,
// MaxRequestIDLength), the idempotency header and window
// (IdempotencyHeader, IdempotencyTTL), the list page's shapes (ListPage,
// ListItem, PageDetails), TimeLayout, and the endpoint sets Config takes
// (Endpoints, EndpointsAll).
package httpapi
