package transcribe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/earshot-dev/earshot/transcribe/driver"
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
	log := s.log.With("id", t.ID)
	var path string
	cleanup := func() {}
	err := s.waitOut(ctx, log, ErrStorageUnavailable, storageWhat, func() error {
		var err error
		path, cleanup, err = s.localMedia(ctx, j)
		return err
	})
	if err != nil {
		return err
	}
	defer cleanup()
	feat := rec.Features()
	multi := isTrue(t.DualChannel) || isTrue(t.Multichannel)
	sp, err := s.decode(ctx, path, feat.SampleRate, multi)
	if err != nil {
		return err
	}
	defer sp.Close()
	full := sp.Duration()
	if full == 0 {
		return &MediaError{Reason: "the media contains no audio"}
	}
	// audio_duration is whole seconds, as the real API sends it (typed
	// SDKs generated from its OpenAPI document expect an integer): the
	// media's length rounded to the nearest second, at least 1.
	dur := max(math.Round(full.Seconds()), 1)
	t.AudioDuration = &dur
	if multi {
		if sp.Channels() < 2 {
			return &MediaError{Reason: "dual_channel and multichannel need audio with at least two channels; this media is mono"}
		}
		if isTrue(t.DualChannel) && sp.Channels() != 2 {
			return &MediaError{Reason: fmt.Sprintf("dual_channel needs exactly two channels; this media has %d (use multichannel)", sp.Channels())}
		}
		nc := int64(sp.Channels())
		t.AudioChannels = &nc
	}
	lo, hi, err := trimRange(sp.Frames(), sp.SampleRate, t.AudioStartFrom, t.AudioEndAt)
	if err != nil {
		return err
	}
	offset := lo * 1000 / int64(sp.SampleRate)
	silent, err := silentSpool(sp, lo, hi)
	if err != nil {
		return err
	}
	if silent {
		if err := noSpeech(t, "no speech detected: the audio is silent"); err != nil {
			return err
		}
		t.Words = []Word{}
		t.Fill()
		return nil
	}
	opts := RecognizeOptions{WordBoost: append(append([]string(nil), t.WordBoost...), t.KeytermsPrompt...), Disfluencies: isTrue(t.Disfluencies),
		Punctuate: t.Punctuate == nil || *t.Punctuate, FormatText: t.FormatText == nil || *t.FormatText,
		Duration: time.Duration(hi-lo) * time.Second / time.Duration(sp.SampleRate)}
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
	// cut from it: no re-encoding, and far fewer bytes to send. Otherwise
	// the spooled audio goes in pieces cut at pauses, several at once.
	var first *Recognition
	var words []Word
	var langs []pieceLanguage
	fr, isFile := rec.(FileRecognizer)
	// Code switching needs a language per piece, so an engine that
	// detects gets pieces (applyCodeSwitching).
	perPiece := codeSwitching(t) && feat.LanguageDetection
	if isFile && !multi && !perPiece && t.AudioStartFrom == nil && t.AudioEndAt == nil && sp.Format != "" && fr.AcceptsFile(sp.Format) {
		var r *Recognition
		err := s.waitOut(ctx, log, ErrEngineUnavailable, engineWhat(eng.Name), func() error {
			var err error
			r, err = fr.RecognizeFile(ctx, path, opts)
			return err
		})
		switch {
		case err == nil:
			first, words = r, r.Words
		case !errors.Is(err, ErrFileNotTaken):
			return err
		}
	}
	if first == nil {
		patient := patientRecognizer{Recognizer: rec, s: s, log: log, engine: eng.Name}
		words, first, langs, err = recognizePieces(ctx, patient, sp, lo, hi, multi, opts, s.cfg.PieceParallelism)
		if err != nil {
			return err
		}
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
	applyCodeSwitching(t, langs)
	sj := &Job{Transcript: t, OffsetMS: offset, Recognizer: rec, Blobs: s.cfg.Blobs, Written: written(first),
		Logger: s.log.With("id", t.ID), Now: s.now, spool: sp, from: lo, to: hi}
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

// written is what of the written form the engine's words carry.
func written(r *Recognition) Written {
	if r == nil {
		return Written{}
	}
	return r.Written
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

// trimRange turns audio_start_from/audio_end_at (milliseconds) into the
// frame range [lo, hi) of audio n frames long at rate.
func trimRange(n int64, rate int, start, end *int64) (lo, hi int64, err error) {
	r := int64(rate)
	lo, hi = 0, n
	// Milliseconds to frames without overflow: anything past the media's
	// length saturates at n.
	toFrame := func(ms int64) int64 {
		if ms >= n*1000/r+1 {
			return n + 1
		}
		return ms * r / 1000
	}
	if start != nil {
		lo = toFrame(*start)
	}
	if end != nil {
		hi = min(toFrame(*end), n)
	}
	if lo >= n {
		return 0, 0, &MediaError{Reason: fmt.Sprintf("audio_start_from %d ms is past the end of the media (%d ms)", *start, n*1000/r)}
	}
	if hi <= lo {
		return 0, 0, &MediaError{Reason: "audio_start_from..audio_end_at selects no audio"}
	}
	return lo, hi, nil
}

// decode decodes the media at path into a spool in TempDir, refusing
// audio longer than MaxMediaDuration in all (its length times the channels
// transcribed separately) from the container's header when it says, and as
// samples arrive otherwise.
func (s *Service) decode(ctx context.Context, path string, rate int, multi bool) (*spool, error) {
	maxFrames := int64(s.cfg.MaxMediaDuration.Seconds() * float64(rate))
	sp := newSpool(s.cfg.TempDir, func(channels int, frames int64) error {
		if frames*int64(channels) <= maxFrames {
			return nil
		}
		d := time.Duration(frames) * time.Second / time.Duration(rate)
		if channels > 1 {
			return &MediaError{Reason: fmt.Sprintf("the media is %s long with %d channels, %s of audio to transcribe; the limit is %s",
				d.Round(time.Second), channels, (d * time.Duration(channels)).Round(time.Second), s.cfg.MaxMediaDuration)}
		}
		return &MediaError{Reason: fmt.Sprintf("the media is longer than the %s limit", s.cfg.MaxMediaDuration)}
	})
	var err error
	if sd, ok := s.cfg.Decoder.(StreamDecoder); ok {
		sp.Format, err = sd.DecodeTo(ctx, path, rate, multi, sp)
		if err == nil {
			err = sp.finish()
		}
	} else {
		var pcm *PCM
		if pcm, err = s.cfg.Decoder.Decode(ctx, path, rate, multi); err == nil {
			err = spoolPCM(sp, pcm)
		}
	}
	if err != nil {
		sp.Close()
		return nil, err
	}
	return sp, nil
}

// localMedia makes the job's media available as a local file.
func (s *Service) localMedia(ctx context.Context, j *job) (string, func(), error) {
	noop := func() {}
	if id := j.st.UploadID; id != "" {
		key := uploadKey(id)
		gone := &MediaError{Reason: "the uploaded file no longer exists"}
		if fb, ok := s.cfg.Blobs.(driver.FileBlobStore); ok {
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
