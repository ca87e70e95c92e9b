package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"unicode/utf8"
)

// What a server sends is untrusted: a transcript's text, an error
// message, a status or an id can hold terminal escape sequences (set the
// window title, write the clipboard with OSC 52, redraw the screen) or
// bidirectional overrides that make a line read differently from what it
// holds. Every human-readable output goes through escapeText, JSON output
// through safeJSON.

// unsafeRune reports a character printed escaped: C0 controls (newline
// and tab only where layout is kept), DEL, C1 controls, the bidirectional
// marks, embeddings, overrides and isolates, and the line and paragraph
// separators.
func unsafeRune(r rune, layout bool) bool {
	switch {
	case layout && (r == '\n' || r == '\t'):
		return false
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r == 0x061C, r == 0x200E, r == 0x200F, r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

// escapeText returns s with every unsafe character written as a Go-style
// escape ("\x1b", "\u202e") and every byte that is not UTF-8 as "\xff".
// With layout, newlines and tabs are kept, and a carriage return before
// a newline (SRT and VTT may use CRLF); without, they are escaped too,
// for one-line messages and table cells.
func escapeText(s string, layout bool) string {
	if !needsEscape(s, layout) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case layout && r == '\r' && strings.HasPrefix(s[i+1:], "\n"):
			b.WriteByte('\r')
		case unsafeRune(r, layout):
			if r < 0x80 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func needsEscape(s string, layout bool) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if unsafeRune(r, layout) {
			return true
		}
	}
	return false
}

// safeJSON returns JSON text data (already checked valid, e.g. by
// json.Indent) with every unsafe character that JSON allows raw inside a
// string (DEL, C1 controls, bidirectional controls, U+2028 and U+2029)
// written as a \u escape, and bytes that are not UTF-8 as \ufffd. Such
// characters can only stand inside strings, so the JSON means the same.
func safeJSON(data []byte) []byte {
	if utf8.Valid(data) && bytes.IndexFunc(data, func(r rune) bool { return unsafeRune(r, true) }) < 0 {
		return data
	}
	var b bytes.Buffer
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\ufffd`)
		case unsafeRune(r, true):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.Write(data[i : i+n])
		}
		i += n
	}
	return b.Bytes()
}

// checkInput refuses a local input that is not a regular file, before
// anything opens it: opening a named pipe blocks until a writer comes
// (signals cannot end the wait), a device can be read forever, a
// directory is no media. A symbolic link to a regular file is fine.
func checkInput(path string) (fs.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, usageErrorf("%s: %v", path, unwrapPath(err))
	}
	if err := regularFile(path, st); err != nil {
		return nil, err
	}
	return st, nil
}

func regularFile(path string, st fs.FileInfo) error {
	m := st.Mode()
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir():
		return usageErrorf("%s: is a directory, not a media file", path)
	case m&fs.ModeNamedPipe != 0:
		return usageErrorf("%s: is a named pipe (FIFO), not a regular file", path)
	case m&fs.ModeDevice != 0 || m&fs.ModeCharDevice != 0:
		return usageErrorf("%s: is a device, not a regular file", path)
	case m&fs.ModeSocket != 0:
		return usageErrorf("%s: is a socket, not a regular file", path)
	}
	return usageErrorf("%s: is not a regular file", path)
}

// openInput opens a local input after checkInput, without blocking if it
// was swapped for a named pipe in between (O_NONBLOCK), and checks that
// what it opened is the regular file it checked.
func openInput(path string) (*os.File, fs.FileInfo, error) {
	st, err := checkInput(path)
	if err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, usageErrorf("%s: %v", path, unwrapPath(err))
	}
	fst, err := f.Stat()
	if err == nil {
		err = regularFile(path, fst)
	}
	if err == nil && !os.SameFile(st, fst) {
		err = usageErrorf("%s: changed while it was being opened", path)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fst, nil
}
