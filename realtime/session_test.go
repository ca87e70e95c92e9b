package realtime

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/adapters/isolate"
	"github.com/earshot-dev/earshot/realtime/realtimetest/streamtest"
	"github.com/earshot-dev/earshot/transcribe"
)

type harness struct {
	t     *testing.T
	rec   *streamtest.FakeRecognizer
	clock *streamtest.Clock
	s     *Session
	msgs  []Message
}

func newHarness(t *testing.T, opts SessionOptions, tweak ...func(*Config)) *harness {
	t.Helper()
	h := &harness{t: t, rec: &streamtest.FakeRecognizer{}, clock: newFakeClock()}
	cfg := Config{Recognizer: h.rec, Now: h.clock.Now}
	for _, f := range tweak {
		f(&cfg)
	}
	s, err := NewSession(context.Background(), cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	h.s = s
	return h
}

// stream sends pcm in 100 ms chunks, advancing the clock in real time,
// and collects the messages. It stops at the first error.
func (h *harness) stream(pcm []byte, rate int) error {
	h.t.Helper()
	for _, c := range streamtest.Chunks(pcm, 100, rate) {
		h.clock.Advance(100 * time.Millisecond)
		msgs, err := h.s.Audio(c)
		h.msgs = append(h.msgs, msgs...)
		if err != nil {
			return err
		}
	}
	return nil
}

func (h *harness) text(b string) error {
	msgs, err := h.s.HandleText([]byte(b))
	h.msgs = append(h.msgs, msgs...)
	return err
}

func (h *harness) finals() []FinalTranscript {
	var out []FinalTranscript
	for _, m := range h.msgs {
		if f, ok := m.(FinalTranscript); ok {
			out = append(out, f)
		}
	}
	return out
}

func (h *harness) partials() []PartialTranscript {
	var out []PartialTranscript
	for _, m := range h.msgs {
		if p, ok := m.(PartialTranscript); ok {
			out = append(out, p)
		}
	}
	return out
}

func TestSessionEndpointingMakesFinal(t *testing.T) {
	h := newHarness(t, SessionOptions{})
	if got := h.s.State(); got != StateBegins {
		t.Fatalf("state %s, want begins", got)
	}
	b := h.s.Begins()
	if b.MessageType != TypeSessionBegins || len(b.SessionID) != 36 || b.ExpiresAt != "2026-11-04T15:14:36.994363" {
		t.Fatalf("SessionBegins = %+v", b)
	}
	// "one" (0-500 ms), 200 ms pause (shorter than 700), "two", then 800 ms
	// of silence ends the utterance.
	pcm := streamtest.Cat(streamtest.Tone(500, 16000), streamtest.Silence(200, 16000), streamtest.Tone(500, 16000), streamtest.Silence(800, 16000))
	if err := h.stream(pcm, 16000); err != nil {
		t.Fatal(err)
	}
	if got := h.s.State(); got != StateStreaming {
		t.Fatalf("state %s, want streaming", got)
	}
	f := h.finals()
	if len(f) != 1 {
		t.Fatalf("finals = %+v, want 1 (msgs %+v)", f, h.msgs)
	}
	if f[0].Text != "One two." || !f[0].Punctuated || !f[0].TextFormatted || len(f[0].Words) != 2 {
		t.Fatalf("final = %+v", f[0])
	}
	if f[0].AudioStart != 0 || f[0].AudioEnd < 1150 || f[0].AudioEnd > 1250 {
		t.Fatalf("final audio span %d-%d, want 0-~1200", f[0].AudioStart, f[0].AudioEnd)
	}
	if f[0].Created != "2026-11-04T14:14:38.894363" && !strings.HasPrefix(f[0].Created, "2026-11-04T14:14:3") {
		t.Fatalf("created %q", f[0].Created)
	}
	p := h.partials()
	if len(p) < 2 || p[0].Text != "one" || p[len(p)-1].Text != "one two" {
		t.Fatalf("partials = %+v", p)
	}
	for i := 1; i < len(p); i++ {
		if p[i].Text == p[i-1].Text {
			t.Fatalf("partial %d repeats %q", i, p[i].Text)
		}
	}
	// The partial must come before the final.
	if _, ok := h.msgs[len(h.msgs)-1].(FinalTranscript); !ok {
		t.Fatalf("last message %T, want FinalTranscript", h.msgs[len(h.msgs)-1])
	}
}

func TestSessionShortPauseDoesNotEndUtterance(t *testing.T) {
	h := newHarness(t, SessionOptions{})
	pcm := streamtest.Cat(streamtest.Tone(300, 16000), streamtest.Silence(600, 16000), streamtest.Tone(300, 16000), streamtest.Silence(300, 16000))
	if err := h.stream(pcm, 16000); err != nil {
		t.Fatal(err)
	}
	if f := h.finals(); len(f) != 0 {
		t.Fatalf("finals after a 600 ms pause: %+v", f)
	}
	if err := h.text(`{"force_end_utterance":true}`); err != nil {
		t.Fatal(err)
	}
	if f := h.finals(); len(f) != 1 || f[0].Text != "One two." {
		t.Fatalf("forced final = %+v", f)
	}
}

func TestSessionSilenceThresholdMessage(t *testing.T) {
	for _, tc := range []struct {
		threshold, pause int
		finals           int
	}{{200, 300, 2}, {0, 100, 2}, {2000, 1500, 0}, {700, 800, 2}} {
		t.Run(fmt.Sprint(tc.threshold), func(t *testing.T) {
			h := newHarness(t, SessionOptions{})
			// The Go SDK ends JSON frames with a newline.
			if err := h.text(fmt.Sprintf("{\"end_utterance_silence_threshold\":%d}\n", tc.threshold)); err != nil {
				t.Fatal(err)
			}
			if got := h.s.SilenceThreshold(); got != time.Duration(tc.threshold)*time.Millisecond {
				t.Fatalf("threshold %v", got)
			}
			pcm := streamtest.Cat(streamtest.Tone(300, 16000), streamtest.Silence(tc.pause, 16000), streamtest.Tone(300, 16000), streamtest.Silence(tc.pause, 16000))
			if err := h.stream(pcm, 16000); err != nil {
				t.Fatal(err)
			}
			if f := h.finals(); len(f) != tc.finals {
				t.Fatalf("%d finals, want %d: %+v", len(f), tc.finals, f)
			}
		})
	}
}

func TestSessionDisablePartials(t *testing.T) {
	h := newHarness(t, SessionOptions{DisablePartialTranscripts: true})
	if err := h.stream(streamtest.Cat(streamtest.Tone(500, 16000), streamtest.Silence(800, 16000)), 16000); err != nil {
		t.Fatal(err)
	}
	if p := h.partials(); len(p) != 0 {
		t.Fatalf("partials sent though disabled: %+v", p)
	}
	if f := h.finals(); len(f) != 1 {
		t.Fatalf("finals = %+v", f)
	}
}

func TestSessionTerminateFlushesThenInformsThenTerminates(t *testing.T) {
	h := newHarness(t, SessionOptions{})
	if err := h.stream(streamtest.Cat(streamtest.Tone(400, 16000), streamtest.Silence(100, 16000)), 16000); err != nil {
		t.Fatal(err)
	}
	h.msgs = nil
	if err := h.text(`{"terminate_session": true}`); err != nil {
		t.Fatal(err)
	}
	if len(h.msgs) != 3 {
		t.Fatalf("messages %+v, want final, info, terminated", h.msgs)
	}
	if f, ok := h.msgs[0].(FinalTranscript); !ok || f.Text != "One." {
		t.Fatalf("first %+v", h.msgs[0])
	}
	if i, ok := h.msgs[1].(SessionInformation); !ok || i.AudioDurationSeconds != 0.5 {
		t.Fatalf("second %+v", h.msgs[1])
	}
	if _, ok := h.msgs[2].(SessionTerminated); !ok {
		t.Fatalf("third %+v", h.msgs[2])
	}
	if h.s.State() != StateTerminated || h.rec.OpenStreams() != 0 {
		t.Fatalf("state %s, open streams %d", h.s.State(), h.rec.OpenStreams())
	}
	if _, err := h.s.Audio(streamtest.Tone(100, 16000)); !errors.Is(err, ErrSessionEnded) {
		t.Fatalf("audio after terminate: %v", err)
	}
}

func TestSessionTerminateWithoutAudio(t *testing.T) {
	h := newHarness(t, SessionOptions{})
	msgs, err := h.s.Terminate()
	if err != nil || len(msgs) != 2 {
		t.Fatalf("Terminate = %+v, %v", msgs, err)
	}
	if i := msgs[0].(SessionInformation); i.AudioDurationSeconds != 0 {
		t.Fatalf("info %+v", i)
	}
}

func TestSessionBase64AudioAndMulaw(t *testing.T) {
	h := newHarness(t, SessionOptions{Encoding: EncodingPCMMulaw, SampleRate: 8000})
	pcm := streamtest.Cat(streamtest.Tone(500, 8000), streamtest.Silence(800, 8000))
	var samples []int16
	for i := 0; i+1 < len(pcm); i += 2 {
		samples = append(samples, int16(uint16(pcm[i])|uint16(pcm[i+1])<<8))
	}
	mu := mulawEncode(samples)
	for off := 0; off < len(mu); off += 800 { // 100 ms at 8 kHz, 1 byte each
		h.clock.Advance(100 * time.Millisecond)
		msg := fmt.Sprintf(`{"audio_data":%q}`, base64.StdEncoding.EncodeToString(mu[off:min(off+800, len(mu))]))
		if err := h.text(msg); err != nil {
			t.Fatal(err)
		}
	}
	if f := h.finals(); len(f) != 1 || f[0].Text != "One." || f[0].AudioEnd < 450 || f[0].AudioEnd > 550 {
		t.Fatalf("finals %+v", f)
	}
	if d := h.s.AudioDuration(); d != 1300*time.Millisecond {
		t.Fatalf("audio duration %v", d)
	}
}

func TestSessionOddByteBinaryFrames(t *testing.T) {
	h := newHarness(t, SessionOptions{})
	pcm := streamtest.Cat(streamtest.Tone(500, 16000), streamtest.Silence(800, 16000))
	// 3201-byte pieces split samples across frames.
	for off := 0; off < len(pcm); off += 3201 {
		h.clock.Advance(100 * time.Millisecond)
		msgs, err := h.s.Audio(pcm[off:min(off+3201, len(pcm))])
		h.msgs = append(h.msgs, msgs...)
		if err != nil {
			t.Fatal(err)
		}
	}
	if f := h.finals(); len(f) != 1 {
		t.Fatalf("finals %+v", f)
	}
}

func TestSessionAudioLengthLimits(t *testing.T) {
	t.Run("too long", func(t *testing.T) {
		h := newHarness(t, SessionOptions{})
		_, err := h.s.Audio(streamtest.Tone(2001, 16000))
		if !errors.Is(err, ErrAudioTooLong) || h.s.State() != StateTerminated || h.rec.OpenStreams() != 0 {
			t.Fatalf("err %v state %s", err, h.s.State())
		}
	})
	t.Run("2000 ms is fine", func(t *testing.T) {
		h := newHarness(t, SessionOptions{})
		if _, err := h.s.Audio(streamtest.Tone(2000, 16000)); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("short tail then terminate is fine", func(t *testing.T) {
		h := newHarness(t, SessionOptions{})
		if err := h.stream(streamtest.Cat(streamtest.Tone(500, 16000), streamtest.Tone(50, 16000)), 16000); err != nil {
			t.Fatal(err)
		}
		if err := h.text(`{"terminate_session":true}`); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("short then more audio", func(t *testing.T) {
		h := newHarness(t, SessionOptions{})
		if _, err := h.s.Audio(streamtest.Tone(50, 16000)); err != nil {
			t.Fatal(err)
		}
		_, err := h.s.Audio(streamtest.Tone(100, 16000))
		if !errors.Is(err, ErrAudioTooShort) || h.s.State() != StateTerminated {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("short then force end then audio", func(t *testing.T) {
		h := newHarness(t, SessionOptions{})
		if _, err := h.s.Audio(streamtest.Tone(50, 16000)); err != nil {
			t.Fatal(err)
		}
		if err := h.text(`{"force_end_utterance":true}`); err != nil {
			t.Fatal(err)
		}
		if _, err := h.s.Audio(streamtest.Tone(100, 16000)); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("minimum disabled", func(t *testing.T) {
		h := newHarness(t, SessionOptions{}, func(c *Config) { c.MinAudioPerMessage = -1 })
		for i := 0; i < 5; i++ {
			if _, err := h.s.Audio(streamtest.Tone(20, 16000)); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func TestSessionTickIdleExpiryAndStalledAudio(t *testing.T) {
	t.Run("idle", func(t *testing.T) {
		h := newHarness(t, SessionOptions{})
		h.clock.Advance(59 * time.Second)
		if _, err := h.s.Tick(); err != nil {
			t.Fatal(err)
		}
		if err := h.stream(streamtest.Tone(100, 16000), 16000); err != nil {
			t.Fatal(err)
		}
		h.clock.Advance(59 * time.Second)
		if _, err := h.s.Tick(); err != nil {
			t.Fatal(err)
		}
		h.clock.Advance(time.Second)
		if _, err := h.s.Tick(); !errors.Is(err, ErrSessionIdle) || h.s.State() != StateTerminated {
			t.Fatalf("err %v state %s", err, h.s.State())
		}
	})
	t.Run("expiry flushes the open utterance", func(t *testing.T) {
		h := newHarness(t, SessionOptions{}, func(c *Config) { c.SessionDuration = 10 * time.Second; c.IdleTimeout = time.Hour })
		if err := h.stream(streamtest.Tone(500, 16000), 16000); err != nil {
			t.Fatal(err)
		}
		h.clock.Advance(10 * time.Second)
		msgs, err := h.s.Tick()
		if !errors.Is(err, ErrSessionExpired) || h.s.State() != StateExpired {
			t.Fatalf("err %v state %s", err, h.s.State())
		}
		if len(msgs) != 1 || msgs[0].(FinalTranscript).Text != "One." {
			t.Fatalf("msgs %+v", msgs)
		}
	})
	t.Run("audio stops arriving mid-utterance", func(t *testing.T) {
		h := newHarness(t, SessionOptions{})
		if err := h.stream(streamtest.Cat(streamtest.Tone(500, 16000), streamtest.Silence(100, 16000)), 16000); err != nil {
			t.Fatal(err)
		}
		h.clock.Advance(1100 * time.Millisecond)
		if msgs, err := h.s.Tick(); err != nil || len(msgs) != 0 {
			t.Fatalf("early tick %+v %v", msgs, err)
		}
		h.clock.Advance(100 * time.Millisecond)
		msgs, err := h.s.Tick()
		if err != nil || len(msgs) != 1 {
			t.Fatalf("tick %+v %v", msgs, err)
		}
	})
}

func TestSessionRateLimit(t *testing.T) {
	h := newHarness(t, SessionOptions{}, func(c *Config) { c.RateLimitLead = 10 * time.Second })
	chunk := streamtest.Silence(2000, 16000)
	// Real time plus a 9 s burst is fine.
	for i := 0; i < 4; i++ {
		if _, err := h.s.Audio(chunk); err != nil {
			t.Fatalf("chunk %d: %v", i, err)
		}
	}
	for i := 0; i < 20; i++ {
		h.clock.Advance(2 * time.Second)
		if _, err := h.s.Audio(chunk); err != nil {
			t.Fatalf("real-time chunk %d: %v", i, err)
		}
	}
	var err error
	for i := 0; i < 2 && err == nil; i++ {
		_, err = h.s.Audio(chunk)
	}
	if !errors.Is(err, ErrRateLimited) || h.s.State() != StateTerminated {
		t.Fatalf("err %v", err)
	}
}

func TestSessionBadTextFrames(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want error
	}{
		{`{"terminate_session": tru`, ErrBadJSON},
		{`hello`, ErrBadJSON},
		{`[1,2]`, ErrBadSchema},
		{`{}`, ErrBadSchema},
		{`{"foo": 1}`, ErrBadSchema},
		{`{"terminate_session": "yes"}`, ErrBadSchema},
		{`{"terminate_session": null}`, ErrBadSchema},
		{`{"end_utterance_silence_threshold": 20001}`, ErrBadSchema},
		{`{"end_utterance_silence_threshold": -1}`, ErrBadSchema},
		{`{"end_utterance_silence_threshold": 1.5}`, ErrBadSchema},
		{`{"audio_data": "%%%"}`, ErrBadSchema},
		{`{"audio_data": 5}`, ErrBadSchema},
	} {
		h := newHarness(t, SessionOptions{})
		err := h.text(tc.msg)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: err %v, want %v", tc.msg, err, tc.want)
		}
		if h.s.State() != StateTerminated || h.rec.OpenStreams() != 0 {
			t.Errorf("%s: state %s", tc.msg, h.s.State())
		}
	}
}

// TestSessionRecognizerFailure: a recognizer failure closes with 1011 and
// a generic message; what the recognizer said goes to Config.Logger
// (with the session id), never to the client.
func TestSessionRecognizerFailure(t *testing.T) {
	var logs *logBuf
	h := newHarness(t, SessionOptions{}, func(c *Config) { logs = captureLog(c) })
	h.rec.SetWriteErr(errors.New("decoder exploded"))
	_, err := h.s.Audio(streamtest.Tone(100, 16000))
	var ce *CloseError
	if !errors.As(err, &ce) || ce.Code != CloseInternalServerError || ce.Message() == "" ||
		strings.Contains(ce.Message(), "decoder exploded") || strings.Contains(ce.Reason, "decoder exploded") {
		t.Fatalf("err %v", err)
	}
	if l := logs.String(); !strings.Contains(l, "decoder exploded") || !strings.Contains(l, h.s.ID()) || !strings.Contains(l, "level=ERROR") {
		t.Fatalf("log:\n%s", l)
	}
	if h.s.State() != StateTerminated || h.rec.OpenStreams() != 0 {
		t.Fatalf("state %s", h.s.State())
	}
}

func TestNewSessionValidates(t *testing.T) {
	rec := &streamtest.FakeRecognizer{}
	for _, tc := range []struct {
		cfg  Config
		opts SessionOptions
		want string
	}{
		{Config{}, SessionOptions{}, "Recognizer"},
		{Config{Recognizer: rec, IdleTimeout: -1}, SessionOptions{}, "IdleTimeout"},
		{Config{Recognizer: rec}, SessionOptions{SampleRate: 100}, "sample_rate"},
		{Config{Recognizer: rec}, SessionOptions{Encoding: "opus"}, "encoding"},
	} {
		_, err := NewSession(context.Background(), tc.cfg, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err %v, want it to name %s", tc, err, tc.want)
		}
	}
	rec.SetNewErr(errors.New("no decoders"))
	if _, err := NewSession(context.Background(), Config{Recognizer: rec}, SessionOptions{}); err == nil || !strings.Contains(err.Error(), "no decoders") {
		t.Fatalf("err %v", err)
	}
}

func TestDefaultFormat(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"hello world", "Hello world."},
		{"is it", "Is it."},
		{"done!", "Done!"},
		{"émile", "Émile."},
	} {
		in := strings.Fields(tc.in)
		tw := toWords(in)
		got := DefaultFormat(tw)
		var texts []string
		for _, w := range got {
			texts = append(texts, w.Text)
		}
		if s := strings.Join(texts, " "); s != tc.want {
			t.Errorf("%q -> %q, want %q", tc.in, s, tc.want)
		}
		if tw[0].Text != in[0] {
			t.Errorf("DefaultFormat modified its argument")
		}
	}
	if DefaultFormat(nil) != nil {
		t.Error("nil in, non-nil out")
	}
}

func toWords(texts []string) []transcribe.Word {
	out := make([]transcribe.Word, len(texts))
	for i, t := range texts {
		out[i] = transcribe.Word{Text: t, Start: int64(i * 100), End: int64(i*100 + 90), Confidence: 1}
	}
	return out
}

// Speech too quiet for the VAD still ends its utterance once the
// recognizer's hypothesis stops changing for the threshold plus slack.
func TestSessionQuietSpeechEndsOnStableHypothesis(t *testing.T) {
	h := newHarness(t, SessionOptions{})
	h.rec.SetLoudRMS(100)
	quiet := func(ms int) []byte { return streamtest.ToneAt(ms, 16000, 350) } // RMS 247 < SpeechRMS 300
	if err := h.stream(streamtest.Cat(quiet(400), streamtest.Silence(200, 16000), quiet(400), streamtest.Silence(900, 16000)), 16000); err != nil {
		t.Fatal(err)
	}
	if f := h.finals(); len(f) != 0 {
		t.Fatalf("final before the hypothesis was stable long enough: %+v", f)
	}
	if p := h.partials(); len(p) == 0 || p[len(p)-1].Text != "one two" {
		t.Fatalf("partials %+v", p)
	}
	if err := h.stream(streamtest.Silence(200, 16000), 16000); err != nil {
		t.Fatal(err)
	}
	if f := h.finals(); len(f) != 1 || f[0].Text != "One two." {
		t.Fatalf("finals %+v", f)
	}
}

// Clicks in a pause (10 ms bursts every 150 ms) do not hold the
// utterance open.
func TestSessionClicksInPause(t *testing.T) {
	h := newHarness(t, SessionOptions{})
	var pause []byte
	for i := 0; i < 7; i++ {
		pause = streamtest.Cat(pause, streamtest.Tone(10, 16000), streamtest.Silence(140, 16000))
	}
	if err := h.stream(streamtest.Cat(streamtest.Tone(500, 16000), pause), 16000); err != nil {
		t.Fatal(err)
	}
	if f := h.finals(); len(f) != 1 || f[0].Text != "One." {
		t.Fatalf("finals %+v", f)
	}
}

// Steady sound the VAD takes for speech but the recognizer finds no words
// in (a fan, music) ends the utterance once the hypothesis has been
// stable for the threshold plus 1.3 s.
func TestSessionSteadyNoiseEndsOnStableHypothesis(t *testing.T) {
	h := newHarness(t, SessionOptions{})
	hum := streamtest.ToneAt(3000, 16000, 600) // RMS 424: speech to the VAD, not to the fake recognizer
	if err := h.stream(streamtest.Cat(streamtest.Tone(500, 16000), streamtest.Silence(100, 16000), hum[:2*16000*1]), 16000); err != nil {
		t.Fatal(err)
	}
	if f := h.finals(); len(f) != 0 {
		t.Fatalf("final too early: %+v", f)
	}
	if err := h.stream(hum[2*16000*1:], 16000); err != nil {
		t.Fatal(err)
	}
	if f := h.finals(); len(f) != 1 || f[0].Text != "One." {
		t.Fatalf("finals %+v", f)
	}
}

// TestSessionEngineCrash: a crash of an isolated engine closes the session
// with 1011 and the crash's own sentence as the reason, found by type
// (*isolate.CrashError, transcribe.ErrEngineCrashed), whatever wraps it.
func TestSessionEngineCrash(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("isolate: worker 4242: %w", &isolate.CrashError{Engine: "pocketsphinx", PID: 4242, Signal: "SIGSEGV", ExitCode: -1}),
			"the speech engine crashed (signal SIGSEGV) while processing this audio"},
		{fmt.Errorf("stream write: %w", &isolate.CrashError{Engine: "pocketsphinx", PID: 7, Cause: "stopped responding", ExitCode: -1}),
			"the speech engine stopped responding while processing this audio"},
		{fmt.Errorf("worker gone at 0xdeadbeef: %w", transcribe.ErrEngineCrashed),
			"the speech engine crashed while processing this audio"},
	} {
		h := newHarness(t, SessionOptions{})
		h.rec.SetWriteErr(tc.err)
		_, err := h.s.Audio(streamtest.Tone(100, 16000))
		var ce *CloseError
		if !errors.As(err, &ce) || ce.Code != CloseInternalServerError || ce.Reason != tc.want {
			t.Fatalf("%v: err %v, want reason %q", tc.err, err, tc.want)
		}
		if h.s.State() != StateTerminated {
			t.Fatalf("state %s", h.s.State())
		}
	}
}
