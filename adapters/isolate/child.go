package isolate

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
)

// envWorker marks a worker process; its value is the protocol version.
const envWorker = "EARSHOT_ISOLATE_WORKER"

// mainCalled records that this binary's main called Main, so that New
// knows re-executing it starts a worker and not a second copy of the host.
var mainCalled atomic.Bool

// Main must be the first call in the main function of every binary that
// uses New (and in TestMain of test binaries that do):
//
//	func main() {
//		isolate.Main()
//		...
//	}
//
// In the host it records that the binary is ready to be re-executed and
// returns at once. In a worker process (started by New with
// EARSHOT_ISOLATE_WORKER set) it never returns: it builds the registered
// engine, serves requests until its host closes the request pipe or dies,
// and exits. Engines must be registered (Register) before Main runs.
func Main() {
	mainCalled.Store(true)
	v, ok := os.LookupEnv(envWorker)
	if !ok {
		return
	}
	os.Unsetenv(envWorker) // not inherited by programs the engine runs
	if v != protocolVersion {
		fmt.Fprintf(os.Stderr, "isolate: worker started with protocol %q, this binary speaks %q\n", v, protocolVersion)
		os.Exit(3)
	}
	in, out, err := workerPipes()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	os.Exit(serve(in, out, os.Stderr, func() { time.Sleep(time.Second); os.Exit(0) }))
}

// op is one request handed from the reading goroutine to the serving loop.
type op struct {
	f      frame
	ctx    context.Context
	cancel context.CancelFunc
}

// serve is the worker: it answers hello, then one request at a time until
// in reaches EOF. Cancel frames are handled by the reading goroutine while
// a request runs. Protocol errors are reported on errOut. onEOF runs (in
// its own goroutine) when in is closed, as a last resort for an engine
// that ignores its cancelled context; Main makes it exit the process after
// a second. serve returns the exit code.
func serve(in io.Reader, out io.Writer, errOut io.Writer, onEOF func()) int {
	br := bufio.NewReaderSize(in, 64<<10)
	var wbuf []byte
	reply := func(typ byte, js []byte) bool {
		return writeFrame(out, &wbuf, typ, js, nil) == nil
	}
	fail := func(err error) bool { return reply(msgError, encodeError(err)) }

	f, err := readFrame(br, 0)
	if err != nil {
		fmt.Fprintf(errOut, "isolate: worker: reading hello: %v\n", err)
		return 3
	}
	var h hello
	if f.typ != msgHello {
		fail(fmt.Errorf("isolate: worker: first message has type %d, want hello", f.typ))
		return 3
	}
	if err := json.Unmarshal(f.json, &h); err != nil {
		fail(fmt.Errorf("isolate: worker: bad hello: %w", err))
		return 3
	}
	if h.Version != protocolVersion {
		fail(fmt.Errorf("isolate: worker speaks protocol %s, host %s", protocolVersion, h.Version))
		return 3
	}
	factory, ok := lookup(h.Engine)
	if !ok {
		fail(fmt.Errorf("%w: %q is not registered in the worker; call isolate.Register before isolate.Main", ErrNotRegistered, h.Engine))
		return 3
	}
	rec, err := factory(h.Config)
	if err != nil {
		fail(err)
		return 3
	}
	defer rec.Close()
	js, _ := json.Marshal(ready{Features: rec.Features(), PID: os.Getpid()})
	if !reply(msgOK, js) {
		return 3
	}

	ops := make(chan op)
	var mu sync.Mutex
	var cur struct {
		seq    uint64
		cancel context.CancelFunc
	}
	go func() {
		defer close(ops)
		var seq uint64
		for {
			f, err := readFrame(br, maxPayload)
			if err != nil {
				if err != io.EOF {
					fmt.Fprintf(errOut, "isolate: worker: reading request: %v\n", err)
				}
				mu.Lock()
				if cur.cancel != nil {
					cur.cancel()
				}
				mu.Unlock()
				if onEOF != nil {
					go onEOF()
				}
				return
			}
			if f.typ == msgCancel {
				var c cancelMsg
				_ = json.Unmarshal(f.json, &c)
				mu.Lock()
				if c.Seq == cur.seq && cur.cancel != nil {
					cur.cancel()
				}
				mu.Unlock()
				continue
			}
			seq++
			ctx, cancel := context.WithCancel(context.Background())
			mu.Lock()
			cur.seq, cur.cancel = seq, cancel
			mu.Unlock()
			ops <- op{f: f, ctx: ctx, cancel: cancel}
		}
	}()

	w := &workerState{rec: rec}
	defer w.closeStream()
	for o := range ops {
		js, err := w.handle(o.ctx, o.f)
		o.cancel()
		var ok bool
		if err != nil {
			ok = fail(err)
		} else {
			ok = reply(msgOK, js)
		}
		if !ok {
			return 0 // the host is gone
		}
	}
	return 0
}

// workerState is the engine of one worker and its open stream, if any.
type workerState struct {
	rec    transcribe.Recognizer
	stream transcribe.Stream
}

func (w *workerState) closeStream() {
	if w.stream != nil {
		w.stream.Close()
		w.stream = nil
	}
}

func (w *workerState) handle(ctx context.Context, f frame) ([]byte, error) {
	switch f.typ {
	case msgRecognize:
		var opts transcribe.RecognizeOptions
		if err := json.Unmarshal(f.json, &opts); err != nil {
			return nil, fmt.Errorf("isolate: worker: bad recognize options: %w", err)
		}
		rec, err := w.rec.Recognize(ctx, f.audio, opts)
		if err != nil {
			return nil, err
		}
		if rec == nil {
			return nil, fmt.Errorf("isolate: the engine returned no recognition and no error")
		}
		return json.Marshal(rec)
	case msgWarm:
		if wr, ok := w.rec.(interface {
			Warm(context.Context, int) error
		}); ok {
			return nil, wr.Warm(ctx, 1)
		}
		return nil, nil
	case msgStreamOpen:
		sr, ok := w.rec.(transcribe.StreamRecognizer)
		if !ok {
			return nil, ErrNotStreaming
		}
		if w.stream != nil {
			return nil, fmt.Errorf("isolate: worker: a stream is already open")
		}
		var opts transcribe.StreamOptions
		if err := json.Unmarshal(f.json, &opts); err != nil {
			return nil, fmt.Errorf("isolate: worker: bad stream options: %w", err)
		}
		st, err := sr.NewStream(ctx, opts)
		if err != nil {
			return nil, err
		}
		w.stream = st
		return nil, nil
	case msgStreamWrite, msgPartial, msgEndUtterance, msgStreamClose:
		if w.stream == nil {
			return nil, fmt.Errorf("isolate: worker: no stream is open")
		}
	default:
		return nil, fmt.Errorf("isolate: worker: unknown request type %d", f.typ)
	}
	switch f.typ {
	case msgStreamWrite:
		return nil, w.stream.Write(f.audio)
	case msgPartial:
		h, err := w.stream.Partial()
		if err != nil {
			return nil, err
		}
		return json.Marshal(h)
	case msgEndUtterance:
		h, err := w.stream.EndUtterance()
		if err != nil {
			return nil, err
		}
		return json.Marshal(h)
	default: // msgStreamClose
		err := w.stream.Close()
		w.stream = nil
		return nil, err
	}
}
