// Package realtime is the streaming session engine of /v2/realtime: session
// state, endpointing and partial/final transcripts over a
// transcribe.StreamRecognizer, independent of the WebSocket transport.
package realtime
