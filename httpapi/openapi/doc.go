// Package openapi holds the OpenAPI 3.1 document of Earshot's HTTP API
// (openapi.json, embedded) and serves it.
//
// Entry points:
//
//   - JSON returns the document.
//   - Handler serves it (application/json, no authentication); httpapi
//     mounts it at GET /openapi.json.
//
// The document describes every endpoint the reference server serves: the
// v2 REST endpoints of httpapi, the redacted-audio download, the realtime
// token endpoint and the two WebSocket upgrade endpoints (their messages
// as component schemas and their close codes in the x-earshot-websocket
// extension, since OpenAPI has no vocabulary for WebSocket traffic), the
// LeMUR endpoints (/lemur/v3/..., package httpapi/lemur) and
// /openapi.json itself. Every request parameter carries the rules of
// transcribe.TranscriptParams.Validate: types, ranges, enumerations and
// defaults, and the cross-field rules as if/then clauses where JSON Schema
// can state them (the rest are in descriptions). Responses list the
// statuses the code produces for each operation; the 405 answers of each
// path are described in x-earshot-other-methods, because an OpenAPI
// operation cannot describe a method it does not have.
//
// # Keeping it true
//
// openapi.json is written by hand and checked by this package's tests, so
// a change to the API that the document does not follow fails them:
//
//   - the document is valid OpenAPI 3.1 (libopenapi-validator's document
//     validation against the OAS 3.1 schema) and every schema in it
//     compiles as JSON Schema 2020-12;
//   - a real httpapi.API over a real transcribe.Service (in-memory store,
//     blobs in files, fake recognizer, real decoder, pipeline and webhook
//     notifier) on an httptest.Server is driven through every endpoint,
//     success and every error it can produce (storage failures and a full
//     disk injected), and each request and response is validated against
//     the document in strict mode (status, content type, body schema,
//     required headers, no undeclared keys or headers); requests the code
//     refuses with 400 must be refused by the document's schemas too
//     wherever the rule is expressible, requests it accepts must be
//     accepted, and every response the document lists must have been
//     seen (the LeMUR endpoints by TestLeMURResponsesMatchDocument, with
//     a chat model server that fails on demand);
//   - transcribe's result types filled in completely (every analysis,
//     their pending and unavailable forms) and export's views of them
//     validate against the schemas;
//   - the WebSocket messages of a real realtime.Handler session (and its
//     error closes) validate against the message schemas and close codes;
//   - every route httpapi registers is in the document and every path
//     and method of the document is served;
//   - enumerations equal the lists in transcribe (LanguageCodes,
//     PIIPolicies, SpeechModels, ...).
//
// The validator is github.com/pb33f/libopenapi-validator (pinned in
// go.mod), a maintained library that handles OpenAPI 3.1 and JSON Schema
// 2020-12; it is a test dependency only. Where it lacks a feature the tests
// say so and do the check themselves (allowEmptyValue query parameters,
// JSON-valued query parameters, 405 answers, label maps strict mode would
// misreport).
//
// When the API changes, edit openapi.json by hand; the failing test names
// the exchange, key or rule that drifted.
package openapi
