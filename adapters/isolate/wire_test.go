package isolate

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
)

func TestFrameRoundTrip(t *testing.T) {
	t.Parallel()
	big := make([]int16, inlineAudio) // 2x inlineAudio bytes: sent with a second write
	for i := range big {
		big[i] = int16(i*7919 - 30000)
	}
	for _, f := range []frame{
		{typ: msgPartial},
		{typ: msgHello, json: []byte(`{"engine":"x"}`)},
		{typ: msgStreamWrite, audio: []int16{0, 1, -1, 32767, -32768}},
		{typ: msgRecognize, json: []byte(`{}`), audio: big},
		{typ: msgRecognize, audio: slices.Repeat(big, preallocSamples/len(big)+1)}, // read in growing chunks
	} {
		var buf bytes.Buffer
		var scratch []byte
		if err := writeFrame(&buf, &scratch, f.typ, f.json, f.audio); err != nil {
			t.Fatal(err)
		}
		if want := headerSize + len(f.json) + 2*len(f.audio); buf.Len() != want {
			t.Errorf("frame of %d JSON bytes and %d samples is %d bytes, want %d", len(f.json), len(f.audio), buf.Len(), want)
		}
		// Samples are little-endian on the wire whatever the machine.
		if len(f.audio) > 0 {
			tail := buf.Bytes()[headerSize+len(f.json):]
			if got := int16(binary.LittleEndian.Uint16(tail)); got != f.audio[0] {
				t.Errorf("first sample on the wire %d, want %d", got, f.audio[0])
			}
		}
		got, err := readFrame(&buf, maxPayload)
		if err != nil {
			t.Fatal(err)
		}
		if got.typ != f.typ || !bytes.Equal(got.json, f.json) || !slices.Equal(got.audio, f.audio) {
			t.Errorf("frame type %d came back as type %d, %d JSON bytes, %d samples", f.typ, got.typ, len(got.json), len(got.audio))
		}
		if _, err := readFrame(&buf, maxPayload); err != io.EOF {
			t.Errorf("after the frame: %v, want io.EOF", err)
		}
	}
}

func TestReadFrameErrors(t *testing.T) {
	t.Parallel()
	hdr := func(rest, typ, jl uint32) []byte {
		b := binary.LittleEndian.AppendUint32(nil, rest)
		b = append(b, byte(typ))
		return binary.LittleEndian.AppendUint32(b, jl)
	}
	for _, c := range []struct {
		name string
		in   []byte
		max  uint32
		want string
	}{
		{"short header", []byte{1, 2, 3}, 0, "unexpected EOF"},
		{"length below header", hdr(3, 1, 0), 0, "shorter than its header"},
		{"json beyond frame", hdr(10, 1, 7), 0, "JSON part of 7 bytes in a frame of 10"},
		{"odd audio", hdr(7, 5, 0), 100, "odd audio length 3"},
		{"audio not expected", hdr(8, 64, 0), 0, "4 bytes of audio where at most 0"},
		{"json cut short", append(hdr(10, 1, 6), '{'), 0, "unexpected EOF"},
		{"audio cut short", append(hdr(8, 5, 0), 1, 2), 100, "unexpected EOF"},
		{"huge json announced", hdr(maxPayload, 1, maxJSON+1), maxPayload, "the most is"},
	} {
		_, err := readFrame(bytes.NewReader(c.in), c.max)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

// TestErrorKinds: every kind of error an engine returns is rebuilt on the
// host with the same message and the same errors.Is / errors.As answers.
func TestErrorKinds(t *testing.T) {
	t.Parallel()
	for _, err := range []error{
		&transcribe.ParamError{Field: "word_boost", Reason: "at most 1000 terms"},
		&transcribe.MediaError{Reason: "the audio is silent"},
		context.Canceled,
		context.DeadlineExceeded,
		errors.Join(errors.New("pocketsphinx: no model"), transcribe.ErrUnavailable),
		transcribe.ErrTooLarge,
		fmt.Errorf("engine: %w", transcribe.ErrClosed),
		ErrNotStreaming,
		errors.New("plain"),
	} {
		got := decodeError(encodeError(err))
		if got.Error() != err.Error() {
			t.Errorf("message %q came back as %q", err, got)
		}
		for _, s := range sentinels {
			if errors.Is(err, s.err) != errors.Is(got, s.err) {
				t.Errorf("%q: errors.Is(%v) = %v on the host, %v in the worker", err, s.err, errors.Is(got, s.err), errors.Is(err, s.err))
			}
		}
		var pe, gpe *transcribe.ParamError
		if errors.As(err, &pe) && (!errors.As(got, &gpe) || *gpe != *pe) {
			t.Errorf("ParamError %v came back as %#v", pe, got)
		}
		var me, gme *transcribe.MediaError
		if errors.As(err, &me) && (!errors.As(got, &gme) || *gme != *me) {
			t.Errorf("MediaError %v came back as %#v", me, got)
		}
	}
	if err := decodeError([]byte("not json")); err == nil || !strings.Contains(err.Error(), "unreadable error") {
		t.Errorf("decodeError(garbage) = %v", err)
	}
}

// session builds the bytes a host sends: hello for engine, then requests.
func session(engine string, reqs ...frame) []byte {
	var buf bytes.Buffer
	var scratch []byte
	h, _ := json.Marshal(hello{Version: protocolVersion, Engine: engine, Config: json.RawMessage("null")})
	writeFrame(&buf, &scratch, msgHello, h, nil)
	for _, f := range reqs {
		writeFrame(&buf, &scratch, f.typ, f.json, f.audio)
	}
	return buf.Bytes()
}

// replies parses what serve wrote.
func replies(t *testing.T, b []byte) []frame {
	t.Helper()
	var out []frame
	r := bytes.NewReader(b)
	for {
		f, err := readFrame(r, 0)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("reply %d: %v", len(out), err)
		}
		out = append(out, f)
	}
}

// TestServe drives the worker loop in process over buffers.
func TestServe(t *testing.T) {
	t.Parallel()
	in := session("quiet",
		frame{typ: msgRecognize, json: []byte(`{}`), audio: make([]int16, 7)},
		frame{typ: msgPartial},
		frame{typ: msgStreamOpen, json: []byte(`{"SampleRate":16000}`)},
		frame{typ: msgStreamOpen, json: []byte(`{}`)},
		frame{typ: msgStreamWrite, audio: make([]int16, 1600)},
		frame{typ: msgPartial},
		frame{typ: msgStreamClose},
		frame{typ: msgStreamWrite, audio: make([]int16, 1)}, // no stream: the error waits
		frame{typ: msgRecognize, json: []byte(`{}`)},        // not a stream request
		frame{typ: msgPartial},                              // gets the error of the write
		frame{typ: msgRecognize, json: []byte(`{"LanguageCode": 5}`)},
		frame{typ: 42},
		frame{typ: msgCancel, json: []byte(`{"seq": 99}`)},
		frame{typ: msgWarm},
	)
	var out, errOut bytes.Buffer
	if code := serve(bytes.NewReader(in), &out, &errOut, nil); code != 0 {
		t.Fatalf("serve = %d, stderr %s", code, errOut.String())
	}
	got := replies(t, out.Bytes())
	want := []struct {
		typ  byte
		text string
	}{
		{msgOK, `"features":{"SampleRate":16000`},
		{msgOK, `"Model":"quiet-7"`},
		{msgError, "no stream is open"},
		{msgOK, ""},
		{msgError, "a stream is already open"},
		{msgOK, `"LanguageConfidence":1600`},
		{msgOK, ""},
		{msgOK, `"Model":"quiet-0"`},
		{msgError, "no stream is open"},
		{msgError, "bad recognize options"},
		{msgError, "unknown request type 42"},
		{msgOK, ""}, // warm: the engine has no Warm method
	}
	if len(got) != len(want) {
		t.Fatalf("%d replies, want %d: %v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].typ != w.typ || !strings.Contains(string(got[i].json), w.text) {
			t.Errorf("reply %d: type %d %s, want type %d containing %q", i, got[i].typ, got[i].json, w.typ, w.text)
		}
	}
}

func TestServeBadHello(t *testing.T) {
	t.Parallel()
	var scratch []byte
	frameOf := func(typ byte, js string) []byte {
		var b bytes.Buffer
		writeFrame(&b, &scratch, typ, []byte(js), nil)
		return b.Bytes()
	}
	for _, c := range []struct {
		in   []byte
		want string
	}{
		{frameOf(msgRecognize, `{}`), "first message has type 2"},
		{frameOf(msgHello, `{`), "bad hello"},
		{frameOf(msgHello, `{"version":"0","engine":"quiet"}`), "worker speaks protocol 1, host 0"},
		{frameOf(msgHello, `{"version":"1","engine":"nope"}`), `"nope" is not registered in the worker`},
		{frameOf(msgHello, `{"version":"1","engine":"pocketsphinx","config":{"Decoders":-1}}`), "Decoders must be positive"},
	} {
		var out bytes.Buffer
		if code := serve(bytes.NewReader(c.in), &out, io.Discard, nil); code != 3 {
			t.Errorf("serve(%q) = %d, want 3", c.in, code)
		}
		got := replies(t, out.Bytes())
		if len(got) != 1 || got[0].typ != msgError || !strings.Contains(decodeError(got[0].json).Error(), c.want) {
			t.Errorf("serve(%q) replied %v, want an error containing %q", c.in, got, c.want)
		}
	}
	var errOut bytes.Buffer
	if code := serve(bytes.NewReader(nil), io.Discard, &errOut, nil); code != 3 || !strings.Contains(errOut.String(), "reading hello: EOF") {
		t.Errorf("serve with no input = %d, %q", code, errOut.String())
	}
}

// FuzzReadFrame: any bytes give frames or an error, never a panic, and a
// frame read re-encodes to the bytes it came from.
func FuzzReadFrame(f *testing.F) {
	var buf bytes.Buffer
	var scratch []byte
	writeFrame(&buf, &scratch, msgRecognize, []byte(`{"LanguageCode":"en"}`), []int16{1, -2, 3})
	writeFrame(&buf, &scratch, msgPartial, nil, nil)
	f.Add(buf.Bytes())
	f.Add([]byte{4, 0, 0, 0, 6, 0, 0, 0, 0})
	f.Add([]byte{255, 255, 255, 255, 1, 255, 255, 255, 255})
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		for {
			fr, err := readFrame(r, 1<<16)
			if err != nil {
				return
			}
			var out bytes.Buffer
			var s []byte
			if err := writeFrame(&out, &s, fr.typ, fr.json, fr.audio); err != nil {
				t.Fatal(err)
			}
			again, err := readFrame(&out, 1<<16)
			if err != nil || again.typ != fr.typ || !bytes.Equal(again.json, fr.json) || !slices.Equal(again.audio, fr.audio) {
				t.Fatalf("frame did not survive a round trip: %v", err)
			}
		}
	})
}

// FuzzServe: a worker fed any requests after a valid hello answers each
// with a reply or an error, never panics, and exits 0 at EOF.
func FuzzServe(f *testing.F) {
	f.Add(session("quiet", frame{typ: msgRecognize, json: []byte(`{}`), audio: make([]int16, 3)})[0:])
	f.Add(session("quiet", frame{typ: msgStreamOpen, json: []byte(`{}`)}, frame{typ: msgStreamWrite, audio: []int16{1}}, frame{typ: msgEndUtterance}))
	f.Add(session("quiet", frame{typ: msgCancel, json: []byte(`{"seq":1}`)}, frame{typ: msgStreamClose}))
	hello := session("quiet")
	f.Fuzz(func(t *testing.T, b []byte) {
		in := b
		if !bytes.HasPrefix(b, hello) {
			in = append(append([]byte{}, hello...), b...)
		}
		var out bytes.Buffer
		if code := serve(bytes.NewReader(in), &out, io.Discard, nil); code != 0 {
			t.Fatalf("serve = %d", code)
		}
		r := bytes.NewReader(out.Bytes())
		for {
			fr, err := readFrame(r, 0)
			if err == io.EOF {
				return
			}
			if err != nil || (fr.typ != msgOK && fr.typ != msgError) {
				t.Fatalf("bad reply: %v %d", err, fr.typ)
			}
		}
	})
}
