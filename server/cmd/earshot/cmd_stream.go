package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"
	"github.com/coder/websocket"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/media"
)

// streamRate is the sample rate audio is streamed at.
const streamRate = 16000

// streamChunk is the audio sent per message.
const streamChunk = 100 * time.Millisecond

// streamLead is how far ahead of real time audio is sent at most: below
// the server's limit (a minute by default for both protocols), so a fast
// --speed on a long file is slowed, not refused.
const streamLead = 30 * time.Second

type streamOptions struct {
	protocol  string
	speed     float64
	token     bool
	wordBoost string
	threshold int
	format    string
	partials  optionalBool
	quiet     bool
}

// optionalBool is a boolean flag that knows whether it was given.
type optionalBool struct{ set, value bool }

func (b *optionalBool) String() string {
	if b == nil || !b.set {
		return ""
	}
	return fmt.Sprint(b.value)
}

func (b *optionalBool) Set(s string) error {
	switch strings.ToLower(s) {
	case "true", "1", "t", "yes":
		b.value = true
	case "false", "0", "f", "no":
		b.value = false
	default:
		return errors.New("must be true or false")
	}
	b.set = true
	return nil
}

func (b *optionalBool) IsBoolFlag() bool { return true }

func streamCommand() *command {
	return &command{
		name:    "stream",
		args:    "FILE",
		summary: "transcribe a media file in real time through the streaming API",
		setup: func(c *cli, fs *flag.FlagSet) func(context.Context, []string) error {
			conn := addConnFlags(fs)
			o := &streamOptions{}
			fs.StringVar(&o.protocol, "protocol", "v3", "streaming `API`: v3 (Universal-Streaming, /v3/ws) or v2 (the deprecated real-time API, /v2/realtime/ws)")
			fs.Float64Var(&o.speed, "speed", 1, "send audio this many times faster than real time (`X`; at most 30 s ahead of it)")
			fs.BoolVar(&o.token, "token", false, "authenticate the WebSocket with a temporary token made with the API key, as browsers do")
			fs.StringVar(&o.wordBoost, "word-boost", "", "words and phrases the audio probably contains (`A,B,...`; v3 sends them as keyterms_prompt)")
			fs.IntVar(&o.threshold, "end-utterance-silence-threshold", -1, "v2 only: silence that ends an utterance, in milliseconds, 0..20000 (`MS`; -1: the server's default, 700)")
			fs.StringVar(&o.format, "format", "text", "output `FORMAT`: text (finished turns or finals, one per line) or json (every Turn message with v3, every partial and final with v2, one per line)")
			fs.Var(&o.partials, "partials", "show the words of the turn or utterance in progress, updating the line in place (default: when standard output is a terminal)")
			fs.BoolVar(&o.quiet, "quiet", false, "no progress on stderr")
			fs.BoolVar(&o.quiet, "q", false, "the same as --quiet")
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usageErrorf("stream needs one FILE, got %d arguments (earshot help stream)", len(args))
				}
				return c.stream(ctx, args[0], conn, o)
			}
		},
	}
}

func (c *cli) stream(ctx context.Context, file string, conn *connOptions, o *streamOptions) error {
	if o.protocol != "v3" && o.protocol != "v2" {
		return usageErrorf("--protocol %q: must be v3 or v2", o.protocol)
	}
	if o.threshold != -1 && o.protocol != "v2" {
		return usageErrorf("--end-utterance-silence-threshold needs --protocol v2 (v3 ends turns on the punctuation model and silence)")
	}
	if !(o.speed > 0 && o.speed <= 1000) {
		return usageErrorf("--speed must be above 0 and at most 1000, got %g", o.speed)
	}
	if o.threshold < -1 || o.threshold > 20000 {
		return usageErrorf("--end-utterance-silence-threshold must be between 0 and 20000 ms, got %d", o.threshold)
	}
	if o.format != "text" && o.format != "json" {
		return usageErrorf("--format %q: must be text or json", o.format)
	}
	var boost []string
	if o.wordBoost != "" {
		for _, w := range strings.Split(o.wordBoost, ",") {
			if w = strings.TrimSpace(w); w == "" {
				return usageErrorf("--word-boost must be a comma-separated list without empty items")
			}
			boost = append(boost, w)
		}
	}
	if isMediaURL(file) {
		return usageErrorf("stream reads a local FILE; for a URL use earshot transcribe %s", file)
	}
	if _, err := checkInput(file); err != nil {
		return err
	}
	dec, err := media.NewDecoder(media.Config{})
	if err != nil {
		return err
	}
	pcm, err := dec.Decode(ctx, file, streamRate, false)
	if err != nil {
		var me *transcribe.MediaError
		if errors.As(err, &me) {
			return usageErrorf("%s: %s", file, me.Reason)
		}
		return fmt.Errorf("decoding %s: %w", file, err)
	}
	samples := pcm.Mono()

	prog := c.progress(o.quiet)
	cl, err := c.connect(ctx, conn, prog)
	if err != nil {
		return err
	}
	defer cl.Close()
	if cl.inproc == nil {
		if err := cl.check(ctx); err != nil {
			return fmt.Errorf("%s: %w", cl.base, err)
		}
	}

	tty, width := c.terminal(c.stdout)
	showPartials := tty
	if o.partials.set {
		showPartials = o.partials.value
	}
	pr := &streamPrinter{w: c.stdout, json: o.format == "json", width: width, partials: showPartials}
	audio := time.Duration(len(samples)) * time.Second / streamRate
	start := c.now()
	announce := func(id string) {
		if !prog.tty {
			prog.Printf("streaming %s (%.1f s of audio) at %gx, session %s", file, audio.Seconds(), o.speed, id)
		}
	}
	var sessionID string
	if o.protocol == "v3" {
		sessionID, err = c.streamV3(ctx, cl, samples, o, boost, pr, prog, announce)
	} else {
		sessionID, err = c.streamV2(ctx, cl, samples, o, boost, pr, announce)
	}
	if err != nil {
		return err
	}
	pr.end()
	if !prog.tty {
		prog.Printf("streamed %.1f s of audio in %s", audio.Seconds(), seconds(c.now().Sub(start)))
	} else {
		prog.Printf("streamed %.1f s of audio in %s (session %s)", audio.Seconds(), seconds(c.now().Sub(start)), sessionID)
	}
	return nil
}

// pace waits until frame i (of streamChunk each) is due at speed, counted
// from began, but no later than streamLead ahead of real time; it returns
// early with an error from errs or the context's.
func pace(ctx context.Context, began time.Time, i int, speed float64, errs <-chan error) error {
	at := time.Duration(i) * streamChunk
	due := began.Add(max(time.Duration(float64(at)/speed), at-streamLead))
	d := time.Until(due)
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case err := <-errs:
		return err
	case <-t.C:
		return nil
	}
}

// pcmFrame writes samples as PCM16 little endian into buf.
func pcmFrame(buf []byte, samples []int16) []byte {
	b := buf[:2*len(samples)]
	for j, s := range samples {
		binary.LittleEndian.PutUint16(b[2*j:], uint16(s))
	}
	return b
}

// streamV2 streams samples through the v2 real-time API with the Go SDK's
// client and returns the session's id.
func (c *cli) streamV2(ctx context.Context, cl *client, samples []int16, o *streamOptions, boost []string, pr *streamPrinter, began func(id string)) (string, error) {
	showPartials := pr.partials
	sessionErr := make(chan error, 1)
	var sessionID string
	terminated := make(chan struct{})
	tr := &aai.RealTimeTranscriber{
		OnSessionBegins:     func(ev aai.SessionBegins) { sessionID = ev.SessionID },
		OnSessionTerminated: func(aai.SessionTerminated) { close(terminated) },
		OnFinalTranscript:   pr.final,
		OnError: func(err error) {
			select {
			case sessionErr <- err:
			default:
			}
		},
	}
	if showPartials || pr.json {
		// Without this callback the SDK asks the server for no partials.
		tr.OnPartialTranscript = pr.partial
	}
	opts := []aai.RealTimeClientOption{
		aai.WithRealTimeBaseURL(wsURL(cl.base) + "/v2/realtime/ws"),
		aai.WithRealTimeSampleRate(streamRate),
		aai.WithRealTimeEncoding(aai.RealTimeEncodingPCMS16LE),
		aai.WithRealTimeTranscriber(tr),
	}
	if len(boost) > 0 {
		opts = append(opts, aai.WithRealTimeWordBoost(boost))
	}
	if o.token {
		tok, err := cl.sdk.RealTime.CreateTemporaryToken(ctx, 600)
		if err != nil {
			return "", fmt.Errorf("creating a temporary token: %w", sdkErr(err))
		}
		opts = append(opts, aai.WithRealTimeAuthToken(aai.ToString(tok.Token)))
	} else {
		opts = append(opts, aai.WithRealTimeAPIKey(cl.key))
	}
	rt := aai.NewRealTimeClientWithOptions(opts...)

	// The SDK's reader goroutine lives as long as this context.
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := rt.Connect(sctx); err != nil {
		return "", sessionError("starting the session", err)
	}
	if o.threshold >= 0 {
		if err := rt.SetEndUtteranceSilenceThreshold(sctx, int64(o.threshold)); err != nil {
			return "", sessionError("setting the silence threshold", err)
		}
	}
	began(sessionID)
	per := streamRate * int(streamChunk/time.Millisecond) / 1000
	buf := make([]byte, 2*per)
	start := time.Now()
	for i := 0; i*per < len(samples); i++ {
		if err := pace(ctx, start, i, o.speed, sessionErr); err != nil {
			if errors.Is(err, ctx.Err()) {
				return "", err
			}
			return "", sessionError("streaming", err)
		}
		if err := rt.Send(sctx, pcmFrame(buf, samples[i*per:min((i+1)*per, len(samples))])); err != nil {
			select {
			case serr := <-sessionErr:
				return "", sessionError("streaming", serr)
			default:
			}
			return "", sessionError("streaming", err)
		}
	}

	// Terminate: the server flushes the last utterance as a final, then
	// sends SessionTerminated. The SDK's Disconnect waits for that message
	// forever, so it runs beside a watch on the session's errors.
	done := make(chan error, 1)
	go func() { done <- rt.Disconnect(sctx, true) }()
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	select {
	case err := <-done:
		select {
		case <-terminated:
			// SessionTerminated arrived: every final is in; an error
			// closing the socket after it changes nothing.
		default:
			if err == nil {
				err = errors.New("the connection ended without SessionTerminated")
			}
			return "", sessionError("ending the session", err)
		}
	case err := <-sessionErr:
		return "", sessionError("ending the session", err)
	case <-timeout.C:
		return "", failf(exitFailed, "the server did not end the session within 30 s of the end of the audio")
	case <-ctx.Done():
		return "", ctx.Err()
	}
	return sessionID, nil
}

// wsURL turns an http(s) base URL into ws(s).
func wsURL(base string) string {
	if rest, ok := strings.CutPrefix(base, "https://"); ok {
		return "wss://" + rest
	}
	return "ws://" + strings.TrimPrefix(base, "http://")
}

// sessionError describes a failed streaming session: a close code from the
// server with its reason, or the SDK's error.
func sessionError(what string, err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		code := exitFailed
		if ce.Code == 4001 {
			code = exitAuth
		}
		return &cliError{code: code, msg: fmt.Sprintf("%s: the server closed the session: %d %s", what, int(ce.Code), ce.Reason), err: err}
	}
	// The SDK reports an error message sent instead of SessionBegins as a
	// plain error with the message's text; "Not Authorized" is the text
	// the API sends with close code 4001.
	if err.Error() == "Not Authorized" {
		return &cliError{code: exitAuth, msg: what + ": the server refused the API key or token (Not Authorized)", err: err}
	}
	return fmt.Errorf("%s: %w", what, sdkErr(err))
}

// streamPrinter writes a session's transcripts: finals one per line,
// partials rewriting the current line, or every message as a JSON line.
// The SDK calls it from its reader goroutine.
type streamPrinter struct {
	w        io.Writer
	json     bool
	width    int
	partials bool // show the words in progress (text output)

	mu      sync.Mutex
	showing bool // a partial is shown on the current line
}

func (p *streamPrinter) partialLine(text string) string {
	if max := p.width - 1; max > 0 && len([]rune(text)) > max {
		r := []rune(text)
		text = "…" + string(r[len(r)-max+1:])
	}
	return text
}

func (p *streamPrinter) partial(t aai.PartialTranscript) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json {
		p.writeJSON(t)
		return
	}
	fmt.Fprint(p.w, "\r"+p.partialLine(escapeText(t.Text, false))+"\033[K")
	p.showing = true
}

func (p *streamPrinter) final(t aai.FinalTranscript) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json {
		p.writeJSON(t)
		return
	}
	if p.showing {
		fmt.Fprint(p.w, "\r\033[K")
		p.showing = false
	}
	fmt.Fprintln(p.w, escapeText(t.Text, false))
}

// end clears a partial left on the line.
func (p *streamPrinter) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.showing {
		fmt.Fprint(p.w, "\r\033[K")
		p.showing = false
	}
}

func (p *streamPrinter) writeJSON(v any) {
	b, err := json.Marshal(v)
	if err == nil {
		p.w.Write(append(safeJSON(b), '\n'))
	}
}
