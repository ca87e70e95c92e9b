// Package httpapi mounts Earshot's AssemblyAI-compatible v2 REST API (and,
// when configured, the realtime WebSocket endpoints) as an http.Handler.
//
// Entry points: New(Config) returns an *API; mount it at the root of any
// mux (the official Go SDK drops path prefixes from its base URL):
//
//	api, err := httpapi.New(httpapi.Config{Service: svc, Auth: httpapi.Keys{"key": "project"}})
//	http.ListenAndServe(addr, api)
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
//   - JSON bodies are capped (Config.MaxJSONBytes, 413 beyond it); unknown
//     JSON keys are ignored and wrong JSON types are 400 naming the field.
//
// This package is the one place where transcribe errors become HTTP status
// codes. API is safe for concurrent use.
package httpapi
