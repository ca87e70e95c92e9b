// Package examples holds short programs that show how Earshot is embedded,
// each a main package with a test that runs it:
//
//   - embed: the AssemblyAI-compatible API mounted in an application's own
//     net/http mux, beside its own routes, on the in-memory store and the
//     embedded recognizer; its test transcribes real speech through the
//     official Go SDK.
//   - customstore: a driver.Store of one's own (here an audit log
//     around another store), checked by the conformance suite every store
//     adapter runs (drivertest.RunStoreTests).
//   - customstage: a feature stage of one's own added to the default
//     pipeline, its result read back from the transcript.
//
// The reference server (every adapter, configured by environment
// variables) is server/cmd/earshot-server, in the server module.
package examples
