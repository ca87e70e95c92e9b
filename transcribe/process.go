package transcribe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// tempPrefix starts the names of the Service's temporary media files, so
// Start can remove what a crashed run left in TempDir.
const tempPrefix = "earshot-media-"

// process does the work of one job: fetch, decode, recognize, stages.
func (s *Service) process(ctx context.Context, j *job) error {
	t := j.st.T
	eng := s.engines.get(j.st.Engine)
	if eng == nil {
		return &MediaError{Reason: fmt.Sprintf("the speech engine %q chosen for this transcript is no longer configured on this server", j.st.Engine)}
	}
	rec := eng.Recognizer
	path, cleanup, err := s.localMedia(ctx, j)
	if err != nil {
		return err
	}
	defer cleanup()
	feat := rec.Features()
	multi := isTrue(t.DualChannel) || isTrue(t.Multichannel)
	pcm, err := s.cfg.Decoder.Decode(ctx, path, feat.SampleRate, multi)
	if err != nil {
		return err
	}
	full := pcm.Duration()
	if full == 0 {
		return &MediaError{Reason: "the media contains no audio"}
	}
	if full > s.cfg.MaxMediaDuration {
		return &MediaError{Reason: fmt.Sprintf("the media is %s long; the limit is %s", full.Round(time.Second), s.cfg.MaxMediaDuration)}
	}
	dur := math.Round(full.Seconds()*1000) / 1000
	t.AudioDuration = &dur
	if multi {
		if len(pcm.Channels) < 2 {
			return &MediaError{Reason: "dual_channel and multichannel need audio with at least two channels; this media is mono"}
		}
		if isTrue(t.DualChannel) && len(pcm.Channels) != 2 {
			return &MediaError{Reason: fmt.Sprintf("dual_channel needs exactly two channels; this media has %d (use multichannel)", len(pcm.Channels))}
		}
		nc := int64(len(pcm.Channels))
		t.AudioChannels = &nc
	}
	offset, err := trim(pcm, t.AudioStartFrom, t.AudioEndAt)
	if err != nil {
		return err
	}
	if silent(pcm) {
		if err := noSpeech(t, "no speech detected: the audio is silent"); err != nil {
			return err
		}
		t.Words = []Word{}
		t.Fill()
		return nil
	}
	opts := RecognizeOptions{WordBoost: append(append([]string(nil), t.WordBoost...), t.KeytermsPrompt...), Disfluencies: isTrue(t.Disfluencies)}
	if t.BoostParam != nil {
		opts.BoostParam = string(*t.BoostParam)
	}
	if t.LanguageCode != nil {
		opts.LanguageCode = *t.LanguageCode
	}
	if t.Prompt != nil {
		opts.Prompt = *t.Prompt
	}
	// An engine that takes files gets the original file when nothing is
	// cut from it: no re-encoding, and far fewer bytes to send.
	var first *Recognition
	var words []Word
	fr, isFile := rec.(FileRecognizer)
	if isFile && !multi && t.AudioStartFrom == nil && t.AudioEndAt == nil && pcm.Format != "" && fr.AcceptsFile(pcm.Format) {
		r, err := fr.RecognizeFile(ctx, path, opts)
		if err != nil {
			return err
		}
		first, words = r, r.Words
	} else {
		for ci, ch := range pcm.Channels {
			r, err := rec.Recognize(ctx, ch, opts)
			if err != nil {
				return err
			}
			if first == nil || (first.Language == "" && r.Language != "") {
				first = r
			}
			for _, w := range r.Words {
				w.Start += offset
				w.End += offset
				if multi {
					c := fmt.Sprint(ci + 1)
					w.Channel = &c
				}
				words = append(words, w)
			}
		}
	}
	if multi {
		sortWords(words)
	}
	if words == nil {
		words = []Word{}
	}
	t.Words = words
	if first != nil && first.Model != "" {
		t.SpeechModelUsed = &first.Model
	}
	if err := applyLanguage(t, first, feat); err != nil {
		return err
	}
	sj := &Job{Transcript: t, Audio: pcm, OffsetMS: offset, Recognizer: rec, Blobs: s.cfg.Blobs,
		Logger: s.log.With("id", t.ID), Now: s.now}
	defer func() { j.st.Artifacts = sj.Artifacts }()
	for _, st := range s.cfg.Stages {
		if !st.Enabled(&t.TranscriptParams) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.applyStage(ctx, st, sj); err != nil {
			return err
		}
	}
	t.Fill()
	return nil
}

// applyStage runs one stage. A FallibleStage that fails (or panics) marks
// its result unavailable and the job goes on; any other stage's error ends
// the job.
func (s *Service) applyStage(ctx context.Context, st Stage, sj *Job) (err error) {
	fs, fallible := st.(FallibleStage)
	if fallible {
		defer func() {
			if v := recover(); v != nil {
				err = fmt.Errorf("panic: %v", v)
			}
			if err != nil && ctx.Err() == nil {
				sj.Logger.Warn("analysis failed; its result is unavailable", "stage", st.Name(), "err", err)
				fs.Unavailable(sj.Transcript)
				err = nil
			}
		}()
	}
	if err := st.Apply(ctx, sj); err != nil {
		return fmt.Errorf("stage %s: %w", st.Name(), err)
	}
	return nil
}

func sortWords(ws []Word) {
	sort.SliceStable(ws, func(i, j int) bool { return ws[i].Start < ws[j].Start })
}

// trim cuts pcm to [start, end) milliseconds and returns the offset in ms.
func trim(pcm *PCM, start, end *int64) (int64, error) {
	n := int64(len(pcm.Channels[0]))
	rate := int64(pcm.SampleRate)
	lo, hi := int64(0), n
	// Milliseconds to samples without overflow: anything past the media's
	// length saturates at n.
	toSample := func(ms int64) int64 {
		if ms >= n*1000/rate+1 {
			return n + 1
		}
		return ms * rate / 1000
	}
	if start != nil {
		lo = toSample(*start)
	}
	if end != nil {
		hi = min(toSample(*end), n)
	}
	if lo >= n {
		return 0, &MediaError{Reason: fmt.Sprintf("audio_start_from %d ms is past the end of the media (%d ms)", *start, n*1000/rate)}
	}
	if hi <= lo {
		return 0, &MediaError{Reason: "audio_start_from..audio_end_at selects no audio"}
	}
	for i := range pcm.Channels {
		pcm.Channels[i] = pcm.Channels[i][lo:hi]
	}
	return lo * 1000 / rate, nil
}

// silent reports whether every channel's peak is below -60 dBFS.
func silent(pcm *PCM) bool {
	for _, c := range pcm.Channels {
		for _, v := range c {
			if v > 32 || v < -32 {
				return false
			}
		}
	}
	return true
}

// localMedia makes the job's media available as a local file.
func (s *Service) localMedia(ctx context.Context, j *job) (string, func(), error) {
	noop := func() {}
	if id := j.st.UploadID; id != "" {
		key := uploadKey(id)
		gone := &MediaError{Reason: "the uploaded file no longer exists"}
		if fb, ok := s.cfg.Blobs.(FileBlobStore); ok {
			p, err := fb.Path(key)
			if err == nil {
				return p, noop, nil
			}
			if errors.Is(err, ErrNotFound) {
				return "", noop, gone
			}
			return "", noop, err
		}
		rc, err := s.cfg.Blobs.Open(ctx, key)
		if err != nil {
			if errors.Is(err, ErrNotFound) {
				return "", noop, gone
			}
			return "", noop, err
		}
		defer rc.Close()
		return s.toTemp(func(w io.Writer) (int64, error) { return io.Copy(w, rc) })
	}
	return s.toTemp(func(w io.Writer) (int64, error) { return s.cfg.Fetcher.Fetch(ctx, j.st.T.AudioURL, w) })
}

func (s *Service) toTemp(fill func(io.Writer) (int64, error)) (string, func(), error) {
	f, err := os.CreateTemp(s.cfg.TempDir, tempPrefix+"*")
	if err != nil {
		return "", func() {}, err
	}
	cleanup := func() { f.Close(); os.Remove(f.Name()) }
	n, err := fill(f)
	if err == nil && n == 0 {
		err = &MediaError{Reason: "the media file is empty"}
	}
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		cleanup()
		return "", func() {}, err
	}
	return f.Name(), cleanup, nil
}

// removeStaleTemp deletes the temporary media files in TempDir that no job
// of this process holds: at Start none does, so they are leftovers of a
// run that crashed (plaintext copies of media must not outlive their job).
func (s *Service) removeStaleTemp() {
	ms, err := filepath.Glob(filepath.Join(s.cfg.TempDir, tempPrefix+"*"))
	if err != nil {
		return
	}
	n := 0
	for _, m := range ms {
		if !strings.HasPrefix(filepath.Base(m), tempPrefix) {
			continue
		}
		if err := os.Remove(m); err == nil {
			n++
		}
	}
	if n > 0 {
		s.log.Info("removed temporary media left by an earlier run", "count", n, "dir", s.cfg.TempDir)
	}
}
