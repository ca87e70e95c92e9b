package pocketsphinx

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
)

// SampleRate is the only rate Recognize accepts (the model's rate).
const SampleRate = 16000

// ModelName is reported as Recognition.Model.
const ModelName = "pocketsphinx-en-us"

// Fillers are the filler words the model knows best. The base language
// model rarely chooses them; with RecognizeOptions.Disfluencies they are
// added to the boosted terms (at boost_param low when no other terms are
// boosted), which makes spoken "um" and "uh" come out as words
// (TestDisfluencies).
var Fillers = []string{"um", "uh"}

// ErrClosed is returned by calls on a closed Recognizer or Stream; it wraps
// transcribe.ErrClosed, so a job cut off by a shutdown is resumed later.
var ErrClosed = fmt.Errorf("pocketsphinx: closed: %w", transcribe.ErrClosed)

// Recognizer is the embedded speech recognizer. It implements
// transcribe.Recognizer and transcribe.StreamRecognizer and is safe for
// concurrent use.
type Recognizer struct {
	cfg   Config
	l     *lib
	files modelFiles

	tokens chan struct{} // one per decoder that may exist
	done   chan struct{} // closed by Close, waking waiters

	mu     sync.Mutex
	idle   []*decoder // most recently used last
	live   int        // decoders created and not freed
	closed bool
	reaper *time.Timer // frees decoders idle for IdleTimeout; nil when none is idle

	initMu   sync.Mutex // decoders are created one at a time
	dictOnce sync.Once  // picks the decoders' dictionary (dict.go)
}

var (
	_ transcribe.Recognizer       = (*Recognizer)(nil)
	_ transcribe.StreamRecognizer = (*Recognizer)(nil)
)

// New checks that the library and model are installed and returns a
// Recognizer. Decoders are created lazily, on first use. A missing library
// or model gives an error wrapping transcribe.ErrUnavailable.
func New(cfg Config) (*Recognizer, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	files := cfg.files()
	if err := files.check(); err != nil {
		return nil, err
	}
	l, err := loadLib(cfg.LibraryPath)
	if err != nil {
		return nil, err
	}
	return &Recognizer{cfg: cfg, l: l, files: files, tokens: make(chan struct{}, cfg.Decoders), done: make(chan struct{})}, nil
}

// Features reports what the recognizer does.
func (r *Recognizer) Features() transcribe.RecognizerFeatures {
	return transcribe.RecognizerFeatures{
		SampleRate:     SampleRate,
		WordTimestamps: true,
		WordConfidence: true,
		WordBoost:      true,
		Disfluencies:   true, // um, uh, hmm, mhm are in the dictionary and the LM
		Streaming:      true,
		Languages:      []string{"en"},
	}
}

// Warm creates up to n decoders now (n <= Config.Decoders) so that the
// first requests do not pay for their initialisation.
func (r *Recognizer) Warm(ctx context.Context, n int) error {
	n = min(n, r.cfg.Decoders)
	ds := make([]*decoder, 0, n)
	defer func() {
		for _, d := range ds {
			r.release(d)
		}
	}()
	for range n {
		d, err := r.acquire(ctx)
		if err != nil {
			return err
		}
		ds = append(ds, d)
	}
	return nil
}

// acquire waits for a free decoder slot and returns an idle decoder or a
// new one.
func (r *Recognizer) acquire(ctx context.Context) (*decoder, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case <-r.done:
		return nil, ErrClosed
	default:
	}
	select {
	case r.tokens <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-r.done:
		return nil, ErrClosed
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		<-r.tokens
		return nil, ErrClosed
	}
	if n := len(r.idle); n > 0 {
		d := r.idle[n-1]
		r.idle = r.idle[:n-1]
		r.mu.Unlock()
		return d, nil
	}
	r.mu.Unlock()
	r.dictOnce.Do(r.pickDictionary)
	r.initMu.Lock()
	d, err := newDecoder(r.l, r.files, r.decoderArgs())
	r.initMu.Unlock()
	if err != nil {
		<-r.tokens
		return nil, err
	}
	r.mu.Lock()
	r.live++
	r.mu.Unlock()
	return d, nil
}

// decoderArgs are the decoders' arguments beyond the model files.
func (r *Recognizer) decoderArgs() []string {
	if r.cfg.SinglePass {
		return []string{"-fwdflat", "no"}
	}
	return nil
}

// pickDictionary makes the decoders load the part of the dictionary the
// language model knows, unless Config.FullDictionary is set or the split
// cannot be made (an unwritable cache directory): then they load it all.
func (r *Recognizer) pickDictionary() {
	if r.cfg.FullDictionary {
		return
	}
	if d, err := splitDictionary(r.l, r.files); err == nil {
		r.files.dict, r.files.spare = d.lm, d.spare
	}
}

// release returns d to the pool, or frees it when the recognizer is closed
// or a request extended its dictionary.
func (r *Recognizer) release(d *decoder) {
	r.mu.Lock()
	if r.closed || d.extended {
		r.live--
		r.mu.Unlock()
		d.free()
	} else {
		d.idleSince = time.Now()
		r.idle = append(r.idle, d)
		if r.reaper == nil && r.cfg.IdleTimeout > 0 {
			r.reaper = time.AfterFunc(r.cfg.IdleTimeout, r.reap)
		}
		r.mu.Unlock()
	}
	<-r.tokens
}

// reap frees the decoders idle for IdleTimeout and runs again when the
// next one will be.
func (r *Recognizer) reap() {
	now := time.Now()
	var stale []*decoder
	r.mu.Lock()
	r.reaper = nil
	if r.closed {
		r.mu.Unlock()
		return
	}
	// The idle list is in order of release: the stale ones come first.
	i := 0
	for i < len(r.idle) && now.Sub(r.idle[i].idleSince) >= r.cfg.IdleTimeout {
		i++
	}
	stale = append(stale, r.idle[:i]...)
	r.idle = append(r.idle[:0], r.idle[i:]...)
	if len(r.idle) > 0 {
		r.reaper = time.AfterFunc(r.cfg.IdleTimeout-now.Sub(r.idle[0].idleSince), r.reap)
	}
	r.mu.Unlock()
	for _, d := range stale {
		d.free()
	}
	// Counted as live until their memory is back with the system.
	r.mu.Lock()
	r.live -= len(stale)
	r.mu.Unlock()
}

// Decoders returns how many decoders exist now, and how many of them are
// idle.
func (r *Recognizer) Decoders() (live, idle int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.live, len(r.idle)
}

// Close frees the idle decoders; decoders in use are freed when their
// Recognize call or Stream ends. Later calls fail with ErrClosed.
func (r *Recognizer) Close() error {
	r.mu.Lock()
	if !r.closed {
		close(r.done)
	}
	r.closed = true
	if r.reaper != nil {
		r.reaper.Stop()
		r.reaper = nil
	}
	idle := r.idle
	r.idle = nil
	r.live -= len(idle)
	r.mu.Unlock()
	for _, d := range idle {
		d.free()
	}
	return nil
}

// checkLanguage accepts "" and English codes (en, en_us, en_uk, en_au).
func checkLanguage(code string) error {
	c := strings.ToLower(code)
	if c == "" || c == "en" || strings.HasPrefix(c, "en_") || strings.HasPrefix(c, "en-") {
		return nil
	}
	return fmt.Errorf("pocketsphinx: language %q is not supported (only English)", code)
}

// Recognize transcribes 16 kHz mono audio. Word times are milliseconds from
// the start of audio. It honours ctx between 128 ms chunks and returns
// ctx.Err() when cancelled.
func (r *Recognizer) Recognize(ctx context.Context, audio []int16, opts transcribe.RecognizeOptions) (*transcribe.Recognition, error) {
	if err := checkLanguage(opts.LanguageCode); err != nil {
		return nil, err
	}
	if opts.Disfluencies {
		if len(opts.WordBoost) == 0 && opts.BoostParam == "" {
			opts.BoostParam = "low"
		}
		opts.WordBoost = append(append([]string(nil), opts.WordBoost...), Fillers...)
	}
	boost, err := parseBoost(opts.WordBoost, opts.BoostParam)
	if err != nil {
		return nil, err
	}
	d, err := r.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer r.release(d)
	if boost != nil {
		if err := d.applyBoost(boost); err != nil {
			return nil, err
		}
		defer d.clearBoost()
	}
	s, err := newSession(d)
	if err != nil {
		return nil, err
	}
	for i := 0; i < len(audio); i += chunkSamples {
		if err := ctx.Err(); err != nil {
			s.abort()
			return nil, err
		}
		if err := s.feed(audio[i:min(i+chunkSamples, len(audio))]); err != nil {
			s.abort()
			return nil, err
		}
	}
	words, err := s.finish()
	if err != nil {
		return nil, err
	}
	if words == nil {
		words = []transcribe.Word{}
	}
	return &transcribe.Recognition{Words: words, Model: ModelName}, nil
}
