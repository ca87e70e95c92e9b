package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"

	"golang.org/x/term"
)

// Exit codes (documented in doc.go and by `earshot help`).
const (
	exitOK          = 0   // success
	exitFailed      = 1   // the transcript ended in error, the server failed, or another error
	exitUsage       = 2   // bad command line, parameter or input file
	exitAuth        = 3   // the server refused the API key or token
	exitNotFound    = 4   // no such transcript
	exitUnavailable = 5   // the server cannot be reached, or the in-process server cannot start
	exitInterrupted = 130 // interrupted (Ctrl-C, SIGTERM)
)

const exitCodesHelp = `Exit codes:
  0    success
  1    the transcript ended in error, the server answered with an error, or another failure
  2    usage error: unknown command or flag, bad parameter value, unreadable or non-regular input file, -o FILE a link or not a regular file
  3    authentication error: the server refused the API key or temporary token
  4    not found: no such transcript (or one of another project)
  5    the server cannot be reached, or the in-process server cannot start
  130  interrupted (Ctrl-C or SIGTERM)
`

// cli is one invocation's environment. Everything the commands touch
// outside their arguments goes through it, so tests can run them with
// their own environment, terminal and clock.
type cli struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// getenv reads the environment (EARSHOT_URL, EARSHOT_KEY, EARSHOT_DATA).
	getenv func(string) string
	// terminal reports whether w is an interactive terminal and its width
	// in columns (0 when unknown).
	terminal func(w io.Writer) (bool, int)
	// now is the clock of progress displays.
	now func() time.Time
	// pollMin and pollMax bound the interval between status polls.
	pollMin, pollMax time.Duration
}

func newCLI(stdin io.Reader, stdout, stderr io.Writer) *cli {
	return &cli{
		stdin: stdin, stdout: stdout, stderr: stderr,
		getenv:   os.Getenv,
		terminal: fileTerminal,
		now:      time.Now,
		pollMin:  200 * time.Millisecond,
		pollMax:  3 * time.Second,
	}
}

// fileTerminal reports whether w is an *os.File on a terminal.
func fileTerminal(w io.Writer) (bool, int) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return false, 0
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		width = 0
	}
	return true, width
}

// run is the whole program: it runs the command named by args[0] and
// returns the process exit code, after printing any error as one line on
// stderr.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return newCLI(stdin, stdout, stderr).run(ctx, args)
}

// command is one subcommand. setup builds its flag set and returns the
// function that runs it with the positional arguments.
type command struct {
	name    string
	args    string // the positional arguments, for the usage line
	summary string
	setup   func(c *cli, fs *flag.FlagSet) func(ctx context.Context, args []string) error
	// passArgs hands every argument to the command unparsed (serve
	// parses its own flags).
	passArgs bool
}

func commands() []*command {
	return []*command{
		transcribeCommand(),
		streamCommand(),
		listCommand(),
		getCommand(),
		deleteCommand(),
		serveCommand(),
		versionCommand(),
		{name: "help", args: "[COMMAND]", summary: "show help for earshot or one command"},
	}
}

func findCommand(name string) *command {
	for _, cmd := range commands() {
		if cmd.name == name {
			return cmd
		}
	}
	return nil
}

func (c *cli) run(ctx context.Context, args []string) int {
	if len(args) == 0 {
		c.usage(c.stderr)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(rest) == 0 {
			c.usage(c.stdout)
			return exitOK
		}
		cmd := findCommand(rest[0])
		if cmd == nil || cmd.setup == nil {
			if cmd != nil {
				c.usage(c.stdout)
				return exitOK
			}
			return c.report(usageErrorf("help: unknown command %q; the commands are %s", rest[0], commandNames()))
		}
		c.commandUsage(c.stdout, cmd, c.flagSet(cmd))
		return exitOK
	case "-version", "--version":
		name = "version"
	}
	cmd := findCommand(name)
	if cmd == nil {
		return c.report(usageErrorf("unknown command %q; the commands are %s (earshot help)", name, commandNames()))
	}
	fs := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	runCmd := cmd.setup(c, fs)
	if cmd.passArgs {
		return c.report(runCmd(ctx, rest))
	}
	pos, err := parseInterleaved(fs, rest)
	if errors.Is(err, flag.ErrHelp) {
		c.commandUsage(c.stdout, cmd, fs)
		return exitOK
	}
	if err != nil {
		return c.report(usageErrorf("%s: %s (earshot help %s)", cmd.name, flagError(err), cmd.name))
	}
	return c.report(runCmd(ctx, pos))
}

func (c *cli) flagSet(cmd *command) *flag.FlagSet {
	fs := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cmd.setup(c, fs)
	return fs
}

func commandNames() string {
	var names []string
	for _, cmd := range commands() {
		names = append(names, cmd.name)
	}
	return strings.Join(names, ", ")
}

// flagError rewrites the flag package's messages to name flags with two
// dashes, as the help shows them.
func flagError(err error) string {
	msg := err.Error()
	for _, s := range []string{"not defined: -", "needs an argument: -", " for flag -", " for -"} {
		if i := strings.Index(msg, s); i >= 0 {
			j := i + len(s)
			if !strings.HasPrefix(msg[j:], "-") {
				msg = msg[:j] + "-" + msg[j:]
			}
			return msg
		}
	}
	return msg
}

// parseInterleaved parses flags that may come before, between or after the
// positional arguments (earshot transcribe a.wav --speaker-labels), as
// users type them. "--" ends the flags.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if i := len(args) - len(rest); i > 0 && args[i-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func (c *cli) usage(w io.Writer) {
	fmt.Fprint(w, `earshot: transcribe speech with an Earshot (or AssemblyAI-compatible) server

Usage:
  earshot COMMAND [flags] [arguments]

Commands:
`)
	for _, cmd := range commands() {
		fmt.Fprintf(w, "  %-11s %s\n", cmd.name, cmd.summary)
	}
	fmt.Fprint(w, `
Server: EARSHOT_URL (or --url) names the server and EARSHOT_KEY (or --key)
its API key. With no server given, transcribe, stream, list, get and delete
run the reference server in-process, with its data in EARSHOT_DATA (or
--data, default <user cache dir>/earshot).

Examples:
  earshot transcribe meeting.m4a
  earshot transcribe meeting.m4a --speaker-labels --format srt -o meeting.srt
  earshot transcribe https://example.com/talk.mp3 --format json
  earshot stream interview.wav
  earshot list --status completed
  earshot serve --addr 127.0.0.1:8080

`)
	fmt.Fprint(w, exitCodesHelp)
	fmt.Fprint(w, "\nRun 'earshot help COMMAND' for a command's flags.\n")
}

func (c *cli) commandUsage(w io.Writer, cmd *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: earshot %s [flags] %s\n\n%s\n", cmd.name, cmd.args, cmd.summary)
	if h, ok := commandHelp[cmd.name]; ok {
		fmt.Fprintf(w, "\n%s", h)
	}
	var groups []string
	byGroup := map[string][]*flag.Flag{}
	fs.VisitAll(func(f *flag.Flag) {
		if _, ok := flagAliases[f.Name]; ok {
			return // shown with the flag it stands for
		}
		g := flagGroup(f)
		if _, ok := byGroup[g]; !ok {
			groups = append(groups, g)
		}
		byGroup[g] = append(byGroup[g], f)
	})
	sort.SliceStable(groups, func(i, j int) bool { return groupOrder(groups[i]) < groupOrder(groups[j]) })
	for _, g := range groups {
		fmt.Fprintf(w, "\n%s:\n", g)
		for _, f := range byGroup[g] {
			name, usage := flagNameAndUsage(f)
			line := "  " + dashes(f.Name)
			for alias, of := range flagAliases {
				if of == f.Name && fs.Lookup(alias) != nil {
					line = "  " + dashes(alias) + ", " + dashes(f.Name)
				}
			}
			if name != "" {
				line += " " + name
			}
			if len(line) <= 30 {
				fmt.Fprintf(w, "%-31s%s\n", line, usage)
			} else {
				fmt.Fprintf(w, "%s\n%31s%s\n", line, "", usage)
			}
		}
	}
	fmt.Fprintf(w, "\n%s", exitCodesHelp)
}

// flagAliases maps short flag names to the flags they stand for.
var flagAliases = map[string]string{"q": "quiet", "o": "output"}

// dashes writes a flag name as typed: -o, --output.
func dashes(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// Flag groups in help, in this order.
const (
	groupCommand = "Flags"
	groupParams  = "Request parameters (POST /v2/transcript; see the API reference)"
	groupServer  = "Server"
)

func groupOrder(g string) int {
	switch g {
	case groupCommand:
		return 0
	case groupParams:
		return 1
	}
	return 2
}

// flagGroup sorts a flag into a help group.
func flagGroup(f *flag.Flag) string {
	if _, ok := f.Value.(*paramValue); ok {
		return groupParams
	}
	if connFlagNames[f.Name] {
		return groupServer
	}
	return groupCommand
}

// flagNameAndUsage is flag.UnquoteUsage, with the parameter flags' value
// hints, and nothing for boolean flags.
func flagNameAndUsage(f *flag.Flag) (string, string) {
	if p, ok := f.Value.(*paramValue); ok {
		return p.hint(), f.Usage
	}
	name, usage := flag.UnquoteUsage(f)
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		name = ""
	}
	if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "false" {
		usage += fmt.Sprintf(" (default %s)", f.DefValue)
	}
	return name, usage
}

// commandHelp is the longer description of each command shown by help.
var commandHelp = map[string]string{
	"transcribe": `FILE is uploaded to the server (- reads standard input); a URL (http or
https) is given to the server to fetch. Every request parameter of
POST /v2/transcript has a flag: booleans take --flag or --flag=false, lists
take comma-separated values (repeat the flag to add more), objects take JSON
(or @FILE to read it from a file). Progress goes to stderr (a bar on a
terminal, plain lines otherwise); the result goes to stdout or -o FILE.
FILE must be a regular file (not a named pipe or device). -o never writes
through a symbolic link and writes mode 0600 unless --output-mode says
otherwise. Control characters the server sends are printed escaped.
`,
	"stream": `Decodes FILE (any format the server accepts) to 16 kHz mono PCM and sends
it through the real-time WebSocket API in 100 ms chunks at real time
(--speed 2 sends twice as fast; the server closes a session that gets more
than a minute ahead). Final transcripts are printed one per line; on a
terminal partial transcripts update the current line in place.
`,
	"list": `Lists transcripts, newest first. When there are older ones, stderr shows
the command that lists the next page.
`,
	"get": `Prints a transcript in any output format. --wait waits for a transcript that
is still queued or processing.
`,
	"delete": `Deletes transcripts: their text, words and files are removed; the
transcript itself stays, marked deleted.
`,
	"serve": `Runs the reference server (the same as server/cmd/earshot-server). Every setting is an
EARSHOT_* environment variable or the flag of the same meaning; SIGINT and
SIGTERM stop it gracefully. 'earshot serve -h' lists the flags; the README
lists the variables.
`,
}

// cliError is an error with its exit code and the message to print.
type cliError struct {
	code int
	msg  string
	err  error
}

func (e *cliError) Error() string {
	if e.msg != "" {
		return e.msg
	}
	return e.err.Error()
}

func (e *cliError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return &cliError{code: exitUsage, msg: fmt.Sprintf(format, args...)}
}

func failf(code int, format string, args ...any) error {
	return &cliError{code: code, msg: fmt.Sprintf(format, args...)}
}

// report prints err as one line and returns its exit code.
func (c *cli) report(err error) int {
	if err == nil {
		return exitOK
	}
	code, msg := classify(err)
	msg = strings.Join(strings.Fields(strings.ReplaceAll(msg, "\n", "; ")), " ")
	msg = escapeText(msg, false)
	fmt.Fprintf(c.stderr, "earshot: %s\n", msg)
	return code
}

// classify returns err's exit code and message, with a hint where the fix
// is a setting.
func classify(err error) (int, string) {
	msg := err.Error()
	var ce *cliError
	if errors.As(err, &ce) && ce.code != 0 {
		return ce.code, msg
	}
	if errors.Is(err, context.Canceled) {
		return exitInterrupted, "interrupted"
	}
	var he *httpError
	if errors.As(err, &he) {
		switch {
		case he.Status == 401 || he.Status == 403:
			return exitAuth, msg + " (check EARSHOT_KEY or --key)"
		case he.Status == 404:
			return exitNotFound, msg
		case he.Status == 400 || he.Status == 413 || he.Status == 422:
			return exitUsage, msg
		}
		return exitFailed, msg
	}
	var ue *url.Error
	if errors.As(err, &ue) && isNetError(ue.Err) {
		origin := ue.URL
		if u, perr := url.Parse(ue.URL); perr == nil {
			origin = u.Scheme + "://" + u.Host
		}
		return exitUnavailable, fmt.Sprintf("cannot reach the server at %s: %s (is it running? set EARSHOT_URL or --url, or leave both unset to run it in-process)", origin, netReason(ue.Err))
	}
	if isNetError(err) {
		return exitUnavailable, msg + " (is the server running? set EARSHOT_URL or --url, or leave both unset to run it in-process)"
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return exitUnavailable, msg
	}
	return exitFailed, msg
}

// isNetError reports whether err is a failure to reach a server.
func isNetError(err error) bool {
	var oe *net.OpError
	var de *net.DNSError
	var ne net.Error
	return errors.As(err, &oe) || errors.As(err, &de) || (errors.As(err, &ne) && ne.Timeout())
}

// netReason is the short reason of a network error: "connection
// refused", "no such host", "i/o timeout".
func netReason(err error) string {
	var de *net.DNSError
	if errors.As(err, &de) {
		return "cannot resolve " + de.Name + ": " + de.Err
	}
	var se *os.SyscallError
	if errors.As(err, &se) {
		return se.Err.Error()
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "timed out"
	}
	return err.Error()
}
