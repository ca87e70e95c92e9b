package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"sync"
	"time"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"
)

func transcribeCommand() *command {
	return &command{
		name:    "transcribe",
		args:    "FILE|URL",
		summary: "transcribe a media file or URL and print the transcript",
		setup: func(c *cli, fs *flag.FlagSet) func(context.Context, []string) error {
			conn := addConnFlags(fs)
			params := addParamFlags(fs)
			out := addOutputFlags(fs)
			quiet := fs.Bool("quiet", false, "no progress on stderr")
			fs.BoolVar(quiet, "q", false, "the same as --quiet")
			noWait := fs.Bool("no-wait", false, "print the transcript id once submitted, without waiting (earshot get --wait ID later)")
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usageErrorf("transcribe needs one FILE or URL, got %d arguments (earshot help transcribe)", len(args))
				}
				return c.transcribe(ctx, args[0], conn, params, out, *quiet, *noWait)
			}
		},
	}
}

// isMediaURL reports whether arg is an http(s) URL for the server to fetch.
func isMediaURL(arg string) bool {
	u, err := url.Parse(arg)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

func (c *cli) transcribe(ctx context.Context, src string, conn *connOptions, params *paramFlags, out *outputOptions, quiet, noWait bool) error {
	if err := out.check(); err != nil {
		return err
	}
	// Check everything local first: parameters, then the file.
	fromURL := isMediaURL(src)
	audioURL := src
	if !fromURL {
		audioURL = "https://upload.invalid/" // replaced by the upload's URL
	}
	body, err := params.request(audioURL)
	if err != nil {
		return err
	}
	var (
		in    io.Reader
		total int64 = -1
		name        = "standard input"
	)
	if !fromURL {
		if src == "-" {
			in = c.stdin
		} else {
			f, st, err := openInput(src)
			if err != nil {
				return err
			}
			defer f.Close()
			if st.Size() == 0 {
				return usageErrorf("%s: is empty", src)
			}
			in, total, name = f, st.Size(), filepath.Base(src)
		}
	}

	if noWait && c.serverURL(conn) == "" {
		return usageErrorf("--no-wait needs a server that keeps running (--url or EARSHOT_URL): the in-process server stops when this command ends")
	}
	prog := c.progress(quiet)
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

	if !fromURL {
		u, err := c.uploadWithProgress(ctx, cl, in, name, total, prog)
		if err != nil {
			return err
		}
		body["audio_url"] = u
	}
	tr, err := cl.submit(ctx, body)
	if err != nil {
		var he *httpError
		if errors.As(err, &he) && he.Status == 400 {
			he.Message = params.flagText(he.Message)
		}
		return fmt.Errorf("submitting: %w", err)
	}
	id := aai.ToString(tr.ID)
	if noWait {
		prog.Printf("submitted transcript %s (%s)", id, tr.Status)
		_, err := fmt.Fprintln(c.stdout, escapeText(id, false))
		return err
	}
	tr, err = c.wait(ctx, cl, tr, prog)
	if errors.Is(err, context.Canceled) && cl.inproc == nil {
		return &cliError{code: exitInterrupted, err: err,
			msg: fmt.Sprintf("interrupted; the server goes on with transcript %s (earshot get --wait %s)", id, id)}
	}
	if err != nil {
		return err
	}
	return c.finish(ctx, cl, tr, out)
}

// finish prints a finished transcript, or reports its error.
func (c *cli) finish(ctx context.Context, cl *client, tr aai.Transcript, out *outputOptions) error {
	id := aai.ToString(tr.ID)
	if tr.Status == aai.TranscriptStatusError {
		if out.format == "json" {
			if data, err := cl.render(ctx, tr, out); err == nil {
				_ = c.write(out, data)
			}
		}
		return failf(exitFailed, "transcript %s failed: %s", id, aai.ToString(tr.Error))
	}
	if tr.Status != aai.TranscriptStatusCompleted && out.format != "json" {
		return failf(exitFailed, "transcript %s is %s, not completed yet: use --wait, or --format json", id, tr.Status)
	}
	data, err := cl.render(ctx, tr, out)
	if err != nil {
		return fmt.Errorf("transcript %s: %w", id, err)
	}
	return c.write(out, data)
}

// uploadWithProgress uploads in through the SDK, drawing its progress.
func (c *cli) uploadWithProgress(ctx context.Context, cl *client, in io.Reader, name string, total int64, prog *progress) (string, error) {
	cr := &countingReader{r: in}
	start := c.now()
	if !prog.tty {
		if total > 0 {
			prog.Printf("uploading %s (%s)", name, size(total))
		} else {
			prog.Printf("uploading %s", name)
		}
	}
	stop := prog.Live(func(now time.Time) string {
		return uploadLine(name, cr.n.Load(), total, now.Sub(start))
	})
	u, err := cl.upload(ctx, cr)
	if err != nil {
		stop(uploadLine(name, cr.n.Load(), total, c.now().Sub(start)) + "  failed")
		return "", fmt.Errorf("uploading %s: %w", name, err)
	}
	el := c.now().Sub(start)
	if prog.tty {
		stop("")
	} else {
		stop(fmt.Sprintf("uploaded %s in %s", size(cr.n.Load()), seconds(el)))
	}
	return u, nil
}

// wait polls the transcript until it is completed or failed, showing its
// status and the time elapsed.
func (c *cli) wait(ctx context.Context, cl *client, tr aai.Transcript, prog *progress) (aai.Transcript, error) {
	id := aai.ToString(tr.ID)
	start := c.now()
	var mu sync.Mutex
	status := tr.Status
	if !prog.tty {
		prog.Printf("transcript %s: %s", id, status)
	}
	stop := prog.Live(func(now time.Time) string {
		mu.Lock()
		s := status
		mu.Unlock()
		el := now.Sub(start)
		return fmt.Sprintf("Transcribing %s %-10s %s", bounce(el, 16), s, seconds(el))
	})
	interval := c.pollMin
	for tr.Status != aai.TranscriptStatusCompleted && tr.Status != aai.TranscriptStatusError {
		t := time.NewTimer(interval)
		select {
		case <-ctx.Done():
			t.Stop()
			stop("")
			return tr, ctx.Err()
		case <-t.C:
		}
		interval = min(interval*3/2, c.pollMax)
		got, err := cl.get(ctx, id)
		var he *httpError
		if errors.As(err, &he) && (he.Status == 429 || he.Status == 503) {
			continue // busy: poll again later
		}
		if err != nil {
			stop("")
			return tr, fmt.Errorf("transcript %s: %w", id, err)
		}
		tr = got
		mu.Lock()
		changed := status != tr.Status
		status = tr.Status
		mu.Unlock()
		if changed && !prog.tty && tr.Status == aai.TranscriptStatusProcessing {
			prog.Printf("transcript %s: %s", id, tr.Status)
		}
	}
	final := fmt.Sprintf("transcript %s: %s in %s", id, tr.Status, seconds(c.now().Sub(start)))
	if d := tr.AudioDuration; d != nil && tr.Status == aai.TranscriptStatusCompleted {
		final += fmt.Sprintf(" (%.1f s of audio)", *d)
	}
	if prog.tty {
		final = "Transcribed: " + final
	}
	stop(final)
	return tr, nil
}
