package isolate

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"unsafe"

	"github.com/earshot-dev/earshot/transcribe"
)

// The wire between host and worker: frames on two pipes (the worker's file
// descriptors 3, requests, and 4, replies). A frame is
//
//	u32 LE  length of the rest after this header's first 5 bytes (4 + J + A)
//	u8      message type
//	u32 LE  J, the length of the JSON part
//	J bytes JSON (control: options, results, errors; may be empty)
//	A bytes audio, little-endian int16 samples (A even; may be empty)
//
// Audio travels as raw samples, written from and read into the []int16
// itself on little-endian machines (no encoding, no extra copy). The host
// sends one request and waits for its reply; the only frames it sends
// without waiting are msgCancel, while a request is in flight, and
// msgStreamWrite, which has no reply.

const protocolVersion = "1"

// Message types. Requests from the host are below 64; replies from the
// worker are 64 and up.
const (
	msgHello        byte = 1 // JSON hello; reply ready or error
	msgRecognize    byte = 2 // JSON RecognizeOptions + audio; reply Recognition
	msgWarm         byte = 3 // no payload; reply empty
	msgStreamOpen   byte = 4 // JSON StreamOptions; reply empty
	msgStreamWrite  byte = 5 // audio; no reply (an error is the reply to the stream's next request)
	msgPartial      byte = 6 // reply Hypothesis
	msgEndUtterance byte = 7 // reply Hypothesis
	msgStreamClose  byte = 8 // reply empty
	msgCancel       byte = 9 // JSON {"seq": n}: cancel request n; no reply of its own

	msgOK    byte = 64 // JSON result (or empty)
	msgError byte = 65 // JSON wireError
)

const (
	headerSize = 9
	// maxJSON bounds the JSON part of a frame: a Recognition of many hours
	// of speech is a few tens of MB.
	maxJSON = 256 << 20
	// maxPayload is what the u32 length can say.
	maxPayload = math.MaxUint32
	// inlineAudio: audio up to this many bytes is copied behind the header
	// and sent with one write (a stream's 100 ms chunks); larger audio is
	// written straight from the caller's slice.
	inlineAudio = 64 << 10
	// preallocSamples: audio frames up to this many samples (131 s at
	// 16 kHz) are read into a slice allocated once.
	preallocSamples = 1 << 21
)

// littleEndian: samples can be sent as the bytes of the []int16.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

type frame struct {
	typ   byte
	json  []byte
	audio []int16
}

// sampleBytes returns the bytes of s without copying (little-endian
// machines only).
func sampleBytes(s []int16) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), 2*len(s))
}

// writeFrame sends one frame with at most two writes. buf is scratch space
// kept by the caller between frames.
func writeFrame(w io.Writer, buf *[]byte, typ byte, js []byte, audio []int16) error {
	rest := 4 + uint64(len(js)) + 2*uint64(len(audio))
	if rest > maxPayload {
		return fmt.Errorf("isolate: request too large for one frame (%d samples of audio; the most is %d)", len(audio), (uint64(maxPayload)-4-uint64(len(js)))/2)
	}
	b := (*buf)[:0]
	b = binary.LittleEndian.AppendUint32(b, uint32(rest))
	b = append(b, typ)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(js)))
	b = append(b, js...)
	inline := !littleEndian || 2*len(audio) <= inlineAudio
	if inline {
		if littleEndian {
			b = append(b, sampleBytes(audio)...)
		} else {
			for _, s := range audio {
				b = binary.LittleEndian.AppendUint16(b, uint16(s))
			}
		}
	}
	if cap(b) <= 1<<20 {
		*buf = b
	}
	if _, err := w.Write(b); err != nil {
		return err
	}
	if !inline {
		if _, err := w.Write(sampleBytes(audio)); err != nil {
			return err
		}
	}
	return nil
}

// readFrame reads one frame holding at most maxAudio bytes of audio. A
// clean EOF before a frame is io.EOF; a frame cut short is
// io.ErrUnexpectedEOF; a malformed header is an error naming what is
// wrong. Both parts are read into buffers that grow as bytes arrive beyond
// a first allocation, so a corrupt length cannot make it allocate much
// more than is sent.
func readFrame(r io.Reader, maxAudio uint32) (frame, error) {
	var h [headerSize]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return frame{}, err
	}
	rest := binary.LittleEndian.Uint32(h[0:])
	f := frame{typ: h[4]}
	jl := binary.LittleEndian.Uint32(h[5:])
	switch {
	case rest < 4:
		return frame{}, fmt.Errorf("isolate: bad frame: length %d is shorter than its header", rest)
	case jl > rest-4:
		return frame{}, fmt.Errorf("isolate: bad frame: JSON part of %d bytes in a frame of %d", jl, rest)
	case jl > maxJSON:
		return frame{}, fmt.Errorf("isolate: bad frame: JSON part of %d bytes (the most is %d)", jl, maxJSON)
	case (rest-4-jl)%2 != 0:
		return frame{}, fmt.Errorf("isolate: bad frame: odd audio length %d", rest-4-jl)
	case rest-4-jl > maxAudio:
		return frame{}, fmt.Errorf("isolate: bad frame: %d bytes of audio where at most %d are expected", rest-4-jl, maxAudio)
	}
	if jl > 0 {
		var err error
		if f.json, err = readBytes(r, int64(jl)); err != nil {
			return frame{}, unexpected(err)
		}
	}
	if n := int64(rest-4-jl) / 2; n > 0 {
		var err error
		if f.audio, err = readSamples(r, n); err != nil {
			return frame{}, unexpected(err)
		}
	}
	return f, nil
}

// readSamples reads n little-endian samples. Up to preallocSamples are
// read straight into a slice of their final size; beyond that the slice
// grows as samples arrive, so that a header announcing gigabytes that never
// come costs nothing (the extra copies of growing are a few milliseconds
// per hour of audio).
func readSamples(r io.Reader, n int64) ([]int16, error) {
	out := make([]int16, 0, min(n, preallocSamples))
	for int64(len(out)) < n {
		if len(out) == cap(out) {
			out = slices.Grow(out, int(min(n-int64(len(out)), int64(cap(out)))))
		}
		chunk := out[len(out):min(int64(cap(out)), n)]
		if littleEndian {
			if _, err := io.ReadFull(r, sampleBytes(chunk)); err != nil {
				return nil, err
			}
		} else {
			b := make([]byte, 2*len(chunk))
			if _, err := io.ReadFull(r, b); err != nil {
				return nil, err
			}
			for i := range chunk {
				chunk[i] = int16(binary.LittleEndian.Uint16(b[2*i:]))
			}
		}
		out = out[:len(out)+len(chunk)]
	}
	return out, nil
}

// readBytes reads exactly n bytes, growing its buffer as they arrive.
func readBytes(r io.Reader, n int64) ([]byte, error) {
	b := make([]byte, 0, min(n, 1<<20))
	for int64(len(b)) < n {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		m, err := r.Read(b[len(b):min(int64(cap(b)), n)])
		b = b[:len(b)+m]
		if err != nil && int64(len(b)) < n {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	return b, nil
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// hello is the first request: which engine to build, and how.
type hello struct {
	Version string          `json:"version"`
	Engine  string          `json:"engine"`
	Config  json.RawMessage `json:"config"`
}

// ready answers hello.
type ready struct {
	Features transcribe.RecognizerFeatures `json:"features"`
	PID      int                           `json:"pid"`
}

type cancelMsg struct {
	Seq uint64 `json:"seq"`
}

// wireError carries an engine's error to the host with enough structure
// to rebuild the typed errors and sentinels callers test for.
type wireError struct {
	Message string `json:"message"`
	Kind    string `json:"kind,omitempty"`
	Field   string `json:"field,omitempty"`  // for kind "param"
	Reason  string `json:"reason,omitempty"` // for kinds "param" and "media"
}

// sentinels are the errors.Is targets carried across the wire.
var sentinels = []struct {
	kind string
	err  error
}{
	{"canceled", context.Canceled},
	{"deadline", context.DeadlineExceeded},
	{"unavailable", transcribe.ErrUnavailable},
	{"too_large", transcribe.ErrTooLarge},
	{"not_found", transcribe.ErrNotFound},
	{"crashed", transcribe.ErrEngineCrashed},
	{"closed", transcribe.ErrClosed},
	{"not_registered", ErrNotRegistered},
	{"not_streaming", ErrNotStreaming},
}

func encodeError(err error) []byte {
	e := wireError{Message: err.Error()}
	var pe *transcribe.ParamError
	var me *transcribe.MediaError
	switch {
	case errors.As(err, &pe):
		e.Kind, e.Field, e.Reason = "param", pe.Field, pe.Reason
	case errors.As(err, &me):
		e.Kind, e.Reason = "media", me.Reason
	default:
		for _, s := range sentinels {
			if errors.Is(err, s.err) {
				e.Kind = s.kind
				break
			}
		}
	}
	b, _ := json.Marshal(e) // strings only: cannot fail
	return b
}

// remoteError is an error returned by the engine in a worker: the same
// message, and the same answers to errors.Is and errors.As for the typed
// errors and sentinels in the sentinels list.
type remoteError struct {
	msg  string
	errs []error
}

func (e *remoteError) Error() string   { return e.msg }
func (e *remoteError) Unwrap() []error { return e.errs }

func decodeError(b []byte) error {
	var e wireError
	if err := json.Unmarshal(b, &e); err != nil {
		return fmt.Errorf("isolate: unreadable error from the worker: %w", err)
	}
	if e.Message == "" {
		e.Message = "isolate: the worker reported an error without a message"
	}
	r := &remoteError{msg: e.Message}
	switch e.Kind {
	case "param":
		r.errs = []error{&transcribe.ParamError{Field: e.Field, Reason: e.Reason}}
	case "media":
		r.errs = []error{&transcribe.MediaError{Reason: e.Reason}}
	default:
		for _, s := range sentinels {
			if s.kind == e.Kind {
				r.errs = []error{s.err}
			}
		}
	}
	return r
}
