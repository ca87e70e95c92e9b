package realtime

import "github.com/earshot-dev/earshot/realtime/engine"

// Encoding is the byte format of streamed audio (the encoding query
// parameter); the engine's type.
type Encoding = engine.Encoding

// Encodings the service accepts.
const (
	EncodingPCMS16LE = engine.EncodingPCMS16LE // 16-bit signed little-endian PCM (default)
	EncodingPCMMulaw = engine.EncodingPCMMulaw // G.711 mu-law, 8 bits per sample
)

// Encodings lists the accepted encodings.
func Encodings() []Encoding { return engine.Encodings() }

// mulawEncode encodes 16-bit PCM as G.711 mu-law bytes (the inverse of
// what the service decodes for encoding=pcm_mulaw).
func mulawEncode(samples []int16) []byte { return engine.MulawEncode(samples) }
