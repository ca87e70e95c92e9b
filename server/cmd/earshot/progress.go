package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// progress reports what a command is doing on stderr: on a terminal, one
// line redrawn in place (a bar for the upload, a moving marker with the
// status and elapsed time while the server works); otherwise plain lines,
// one per event, fit for logs. Quiet silences it. Safe for concurrent use.
type progress struct {
	w     io.Writer
	tty   bool
	width int // terminal columns, 0 if unknown
	quiet bool
	now   func() time.Time

	mu    sync.Mutex
	live  bool // a live line is drawn and not yet ended
	drawn int  // width of the live line drawn
}

func (c *cli) progress(quiet bool) *progress {
	tty, width := c.terminal(c.stderr)
	return &progress{w: c.stderr, tty: tty, width: width, quiet: quiet, now: c.now}
}

// Printf prints one line of information ("earshot: " prefixed), ending a
// live line first.
func (p *progress) Printf(format string, args ...any) {
	if p.quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
	fmt.Fprintf(p.w, "earshot: %s\n", escapeText(fmt.Sprintf(format, args...), false))
}

// clearLocked erases the live line so that other output can be written.
func (p *progress) clearLocked() {
	if p.live && p.drawn > 0 {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = 0
	}
}

// Live draws render's line every 100 ms on a terminal until the returned
// stop is called, which draws it one last time and ends it with a newline
// (final replaces it when not empty). Off a terminal nothing is drawn
// until stop, which prints final as a line.
func (p *progress) Live(render func(now time.Time) string) (stop func(final string)) {
	if p.quiet {
		return func(string) {}
	}
	if !p.tty {
		return func(final string) {
			if final != "" {
				p.Printf("%s", final)
			}
		}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	p.mu.Lock()
	p.live = true
	p.drawLocked(render(p.now()))
	p.mu.Unlock()
	go func() {
		defer close(finished)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				p.mu.Lock()
				p.drawLocked(render(p.now()))
				p.mu.Unlock()
			}
		}
	}()
	var once sync.Once
	return func(final string) {
		once.Do(func() {
			close(done)
			<-finished
			p.mu.Lock()
			defer p.mu.Unlock()
			line := final
			if line == "" {
				line = render(p.now())
			}
			p.drawLocked(line)
			fmt.Fprint(p.w, "\n")
			p.live, p.drawn = false, 0
		})
	}
}

func (p *progress) drawLocked(line string) {
	line = escapeText(line, false)
	if max := p.width - 1; max > 0 && len([]rune(line)) > max {
		line = string([]rune(line)[:max])
	}
	fmt.Fprint(p.w, "\r"+line+"\033[K")
	p.drawn = len(line)
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n.Add(int64(n))
	return n, err
}

// bar draws a progress bar of the given width for done/total.
func bar(done, total int64, width int) string {
	filled := 0
	if total > 0 {
		filled = int(min(done, total) * int64(width) / total)
	}
	s := strings.Repeat("=", filled)
	if filled < width {
		s += ">" + strings.Repeat(" ", width-filled-1)
	}
	return "[" + s + "]"
}

// bounce draws an indeterminate bar: a marker moving back and forth.
func bounce(elapsed time.Duration, width int) string {
	const marker = "<=>"
	span := width - len(marker)
	step := int(elapsed / (100 * time.Millisecond))
	pos := step % (2 * span)
	if pos > span {
		pos = 2*span - pos
	}
	return "[" + strings.Repeat(" ", pos) + marker + strings.Repeat(" ", span-pos) + "]"
}

// size formats a byte count for people (decimal units, as disks are sold).
func size(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

// seconds formats an elapsed time as 3.2s.
func seconds(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }

// uploadLine is the live line of an upload.
func uploadLine(name string, done, total int64, elapsed time.Duration) string {
	rate := ""
	if elapsed > 200*time.Millisecond {
		rate = "  " + size(int64(float64(done)/elapsed.Seconds())) + "/s"
	}
	if total <= 0 {
		return fmt.Sprintf("Uploading %s  %s%s", name, size(done), rate)
	}
	pct := done * 100 / total
	return fmt.Sprintf("Uploading %s %s %3d%%  %s / %s%s", name, bar(done, total, 24), pct, size(done), size(total), rate)
}
