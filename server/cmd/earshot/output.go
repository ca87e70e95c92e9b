package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"
)

// Output formats of transcribe and get.
var formats = []string{"text", "json", "srt", "vtt", "sentences", "paragraphs"}

// outputOptions are the flags that choose what is printed and where.
type outputOptions struct {
	format          string
	charsPerCaption int
	out             string
	mode            string
	perm            os.FileMode
}

// defaultOutputMode is the permission of a file written with -o: the
// transcript is readable by its owner only unless --output-mode says
// otherwise.
const defaultOutputMode = "0600"

func addOutputFlags(fs *flag.FlagSet) *outputOptions {
	o := &outputOptions{}
	fs.StringVar(&o.format, "format", "text", "output `FORMAT`: "+strings.Join(formats, ", "))
	fs.IntVar(&o.charsPerCaption, "chars-per-caption", 0, "longest caption line, in characters, for srt and vtt (`N`; 0: the server's choice)")
	fs.StringVar(&o.out, "output", "", "write the output to `FILE` instead of standard output")
	fs.StringVar(&o.out, "o", "", "the same as --output")
	fs.StringVar(&o.mode, "output-mode", defaultOutputMode, "permissions of the file written with --output, in octal (`MODE`; 0644 lets others read it)")
	return o
}

func (o *outputOptions) check() error {
	if !slices.Contains(formats, o.format) {
		return usageErrorf("--format %q: must be one of %s", o.format, strings.Join(formats, ", "))
	}
	if o.charsPerCaption < 0 {
		return usageErrorf("--chars-per-caption must not be negative")
	}
	if o.charsPerCaption > 0 && o.format != "srt" && o.format != "vtt" {
		return usageErrorf("--chars-per-caption applies only to --format srt or vtt")
	}
	perm, err := strconv.ParseUint(o.mode, 8, 32)
	if err != nil || perm > 0o777 {
		return usageErrorf("--output-mode %q: must be octal permissions from 0000 to 0777, such as 0600 or 0644", o.mode)
	}
	o.perm = os.FileMode(perm)
	if o.out != "" && o.out != "-" {
		if err := checkOutput(o.out); err != nil {
			return err
		}
		if st, err := os.Stat(filepath.Dir(o.out)); err != nil || !st.IsDir() {
			return usageErrorf("-o %s: no such directory %s", o.out, filepath.Dir(o.out))
		}
	}
	return nil
}

// render returns transcript tr (completed) in format o.format. Text,
// sentences and paragraphs put each speaker's turn on its own line when the
// transcript has speaker labels.
func (cl *client) render(ctx context.Context, tr aai.Transcript, o *outputOptions) ([]byte, error) {
	id := aai.ToString(tr.ID)
	var b bytes.Buffer
	switch o.format {
	case "json":
		// The server's own JSON, not the SDK struct re-encoded: the SDK's
		// struct lacks newer fields and would drop them.
		data, err := cl.raw(ctx, "GET", "/v2/transcript/"+id, nil)
		if err != nil {
			return nil, err
		}
		if err := json.Indent(&b, data, "", "  "); err != nil {
			return nil, fmt.Errorf("the server's JSON: %w", err)
		}
		b.WriteByte('\n')
		return safeJSON(b.Bytes()), nil
	case "srt", "vtt":
		var opts *aai.TranscriptGetSubtitlesOptions
		if o.charsPerCaption > 0 {
			opts = &aai.TranscriptGetSubtitlesOptions{CharsPerCaption: int64(o.charsPerCaption)}
		}
		data, err := cl.sdk.Transcripts.GetSubtitles(ctx, id, aai.SubtitleFormat(o.format), opts)
		if err != nil {
			return nil, sdkErr(err)
		}
		b.Write(data)
	case "sentences":
		res, err := cl.sdk.Transcripts.GetSentences(ctx, id)
		if err != nil {
			return nil, sdkErr(err)
		}
		for _, s := range res.Sentences {
			b.WriteString(speakerPrefix(s.Speaker, s.Channel, tr) + aai.ToString(s.Text) + "\n")
		}
	case "paragraphs":
		res, err := cl.sdk.Transcripts.GetParagraphs(ctx, id)
		if err != nil {
			return nil, sdkErr(err)
		}
		for i, p := range res.Paragraphs {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(aai.ToString(p.Text) + "\n")
		}
	default: // text
		if len(tr.Utterances) > 0 && (aai.ToBool(tr.SpeakerLabels) || aai.ToBool(tr.Multichannel) || aai.ToBool(tr.DualChannel)) {
			for _, u := range tr.Utterances {
				b.WriteString(speakerPrefix(u.Speaker, u.Channel, tr) + aai.ToString(u.Text) + "\n")
			}
		} else if text := aai.ToString(tr.Text); text != "" {
			b.WriteString(text + "\n")
		}
	}
	return []byte(escapeText(b.String(), true)), nil
}

// speakerPrefix is "Speaker A: " for diarized transcripts, "Channel 1: "
// for multichannel ones, and "" otherwise.
func speakerPrefix(speaker, channel *string, tr aai.Transcript) string {
	switch {
	case aai.ToBool(tr.SpeakerLabels) && aai.ToString(speaker) != "":
		return "Speaker " + aai.ToString(speaker) + ": "
	case (aai.ToBool(tr.Multichannel) || aai.ToBool(tr.DualChannel)) && aai.ToString(channel) != "":
		return "Channel " + aai.ToString(channel) + ": "
	}
	return ""
}

// write writes data to o.out, or to stdout. A file is written whole to a
// new file beside it (mode o.perm) that then replaces o.out, so that a
// symbolic link put at o.out is replaced, never followed, and a failed
// write leaves the old file as it was.
func (c *cli) write(o *outputOptions, data []byte) error {
	if o.out == "" || o.out == "-" {
		_, err := c.stdout.Write(data)
		return err
	}
	if err := checkOutput(o.out); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(o.out), "."+filepath.Base(o.out)+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing %s: %w", o.out, unwrapPath(err))
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(o.perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, o.out)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", o.out, unwrapPath(err))
	}
	return nil
}

// checkOutput refuses an output path that is a symbolic link (writing
// through it would write wherever it points) or anything but a regular
// file.
func checkOutput(path string) error {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return usageErrorf("-o %s: %v", path, unwrapPath(err))
	case st.Mode()&fs.ModeSymlink != 0:
		return usageErrorf("-o %s: is a symbolic link; earshot does not write through links (remove it or give the file it points to)", path)
	case st.IsDir():
		return usageErrorf("-o %s: is a directory", path)
	case !st.Mode().IsRegular():
		return usageErrorf("-o %s: is not a regular file", path)
	}
	return nil
}

// unwrapPath drops the *PathError's repetition of the path.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
