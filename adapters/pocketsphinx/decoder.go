package pocketsphinx

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
	"unsafe"

	"github.com/earshot-dev/earshot/transcribe"
)

// defaultSearch is PS_DEFAULT_SEARCH, the name ps_init gives its search.
const defaultSearch = "_default"

// boostSearch names the temporary word-boost search.
const boostSearch = "earshot_boost"

// modelFiles are the paths inside Config.ModelDir, and the dictionary
// the decoders load (dict: the model's, or the part of it the language
// model knows, with the rest in spare; see dict.go).
type modelFiles struct {
	hmm, lm, dict string
	spare         string
}

func (c Config) files() modelFiles {
	return modelFiles{
		hmm:  filepath.Join(c.ModelDir, "en-us"),
		lm:   filepath.Join(c.ModelDir, "en-us.lm.bin"),
		dict: filepath.Join(c.ModelDir, "cmudict-en-us.dict"),
	}
}

func (m modelFiles) check() error {
	for _, p := range []string{filepath.Join(m.hmm, "mdef"), m.lm, m.dict} {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("pocketsphinx: model file %s missing; %s: %w", p, installHint, transcribe.ErrUnavailable)
		}
	}
	return nil
}

// decoder is one ps_decoder_t with its configuration and base language
// model. It is used by one goroutine at a time (the pool hands it out).
type decoder struct {
	l     *lib
	cfg   uintptr // cmd_ln_t, one reference held
	ps    uintptr // ps_decoder_t
	lmath uintptr // owned by ps
	lm    uintptr // base ngram_model_t, one reference held
	// spare is the file of the dictionary entries left out of this
	// decoder's dictionary ("" when it has them all), for word boost.
	spare string
	// extended is set once ps_add_word put a request's word into the
	// dictionary; such a decoder is retired rather than reused, so no
	// request sees another's words.
	extended bool
	// cmn is the live cepstral mean normalisation state and cmnInit its
	// value on a fresh decoder. Live CMN adapts across utterances; every
	// session starts again from cmnInit so results do not depend on which
	// requests a pooled decoder served before.
	cmn     uintptr
	cmnInit []float32
	// idleSince is when the decoder last went back to the pool.
	idleSince time.Time
}

// newDecoder builds a decoder: the acoustic model and dictionary through
// ps_init, then the base language model read with the decoder's logmath and
// installed as the default search (so that we hold a handle to the raw
// model for word-boost interpolation).
func newDecoder(l *lib, m modelFiles, extra []string) (*decoder, error) {
	args := []string{
		"-hmm", m.hmm,
		"-dict", m.dict,
		"-samprate", "16000",
		"-bestpath", "yes",
	}
	args = append(args, extra...)
	// argv is Go memory holding Go pointers, handed to C: the strings it
	// points to are pinned for the call (cmd_ln_parse_r copies every value
	// it keeps, cmd_ln.c cmd_ln_val_init).
	var pin runtime.Pinner
	defer pin.Unpin()
	argv := make([]*byte, len(args)+1)
	for i, a := range args {
		b := append([]byte(a), 0)
		pin.Pin(&b[0])
		argv[i] = &b[0]
	}
	cfg := l.cmdLnParseR(0, l.psArgs(), int32(len(args)), unsafe.Pointer(&argv[0]), 1)
	runtime.KeepAlive(argv)
	if cfg == 0 {
		return nil, fmt.Errorf("pocketsphinx: invalid decoder arguments %q", args)
	}
	ps := l.psInit(cfg)
	if ps == 0 {
		l.cmdLnFreeR(cfg)
		return nil, fmt.Errorf("pocketsphinx: ps_init failed for model %s (corrupt model or dictionary?); %s: %w", m.hmm, installHint, transcribe.ErrUnavailable)
	}
	d := &decoder{l: l, cfg: cfg, ps: ps, lmath: l.psGetLogmath(ps), spare: m.spare}
	d.lm = l.ngramModelRead(cfg, m.lm, ngramAuto, d.lmath)
	if d.lm == 0 {
		d.free()
		return nil, fmt.Errorf("pocketsphinx: cannot read language model %s; %s: %w", m.lm, installHint, transcribe.ErrUnavailable)
	}
	if l.psSetLm(ps, defaultSearch, d.lm) != 0 || l.psSetSearch(ps, defaultSearch) != 0 {
		d.free()
		return nil, fmt.Errorf("pocketsphinx: cannot install language model %s", m.lm)
	}
	if fh := l.psGetFeat(ps); fh != nil && fh.cmnStruct != 0 && fh.cepsize > 0 && fh.cepsize <= 64 {
		d.cmn = fh.cmnStruct
		d.cmnInit = make([]float32, fh.cepsize)
		l.cmnLiveGet(d.cmn, &d.cmnInit[0])
	}
	return d, nil
}

// resetCMN restores the cepstral mean of a fresh decoder.
func (d *decoder) resetCMN() {
	if d.cmn != 0 {
		d.l.cmnLiveSet(d.cmn, &d.cmnInit[0])
	}
}

func (d *decoder) free() {
	if d.ps != 0 {
		d.l.psFree(d.ps)
		d.ps = 0
	}
	if d.lm != 0 {
		d.l.ngramModelFree(d.lm)
		d.lm = 0
	}
	if d.cfg != 0 {
		d.l.cmdLnFreeR(d.cfg)
		d.cfg = 0
	}
	if d.l.mallocTrim != nil {
		d.l.mallocTrim(0)
	}
}

// segWord is one word of a hypothesis in decoder frames (10 ms).
type segWord struct {
	text   string
	sf, ef int32
	prob   float64 // posterior 0..1 (finished utterances only)
	ascr   int32   // acoustic score of the word (ps_seg_prob)
}

// segments walks the segment iterator of the current hypothesis.
func (d *decoder) segments() []segWord {
	var out []segWord
	for seg := d.l.psSegIter(d.ps); seg != 0; seg = d.l.psSegNext(seg) {
		var sf, ef, a, lsc, lb int32
		w := d.l.psSegWord(seg)
		d.l.psSegFrames(seg, &sf, &ef)
		p := d.l.psSegProb(seg, &a, &lsc, &lb)
		out = append(out, segWord{text: w, sf: sf, ef: ef, prob: d.l.logmathExp(d.lmath, p), ascr: a})
	}
	return out
}

func (d *decoder) process(samples []int16) error {
	if len(samples) == 0 {
		return nil
	}
	if d.l.psProcessRaw(d.ps, unsafe.Pointer(&samples[0]), uintptr(len(samples)), 0, 0) < 0 {
		return fmt.Errorf("pocketsphinx: ps_process_raw failed")
	}
	runtime.KeepAlive(samples)
	return nil
}

// chunkSamples is how much audio goes to ps_process_raw between voice
// activity checks: 2048 samples (128 ms), as pocketsphinx_continuous does.
const chunkSamples = 2048

// maxUtterance is the longest utterance in seconds; longer stretches of
// speech are split.
const maxUtterance = 60

// frameMS is the length of one decoder frame (-frate 100).
const frameMS = 10

// session decodes a continuous stream of 16 kHz audio on one decoder,
// splitting it into utterances at the end of each stretch of speech found by
// the library's voice activity detector (exactly as pocketsphinx_continuous
// does), so that arbitrarily long audio decodes in bounded memory and word
// times stay exact: ps_start_stream makes frame numbers count from the start
// of the session, across utterances and removed silence.
type session struct {
	d      *decoder
	open   bool // ps_start_utt called, ps_end_utt not yet
	speech bool // the open utterance has seen speech
	// uttSamples counts the samples fed to the open utterance; at
	// maxUttSamples it is ended even in speech, bounding the memory of
	// audio that never pauses (music, noise).
	uttSamples    int
	maxUttSamples int
	done          []transcribe.Word
	// buf holds samples not yet processed (less than chunkSamples).
	buf []int16
}

func newSession(d *decoder) (*session, error) {
	d.resetCMN()
	if d.l.psStartStream(d.ps) < 0 {
		return nil, fmt.Errorf("pocketsphinx: ps_start_stream failed")
	}
	return &session{d: d, maxUttSamples: maxUtterance * SampleRate}, nil
}

func (s *session) startUtt() error {
	if s.open {
		return nil
	}
	if s.d.l.psStartUtt(s.d.ps) < 0 {
		return fmt.Errorf("pocketsphinx: ps_start_utt failed")
	}
	s.open, s.speech, s.uttSamples = true, false, 0
	return nil
}

// endUtt closes the open utterance and appends its words to s.done.
func (s *session) endUtt() error {
	if !s.open {
		return nil
	}
	s.open = false
	if s.d.l.psEndUtt(s.d.ps) < 0 {
		return fmt.Errorf("pocketsphinx: ps_end_utt failed")
	}
	s.done = append(s.done, toWords(s.d.segments(), true)...)
	return nil
}

// feed decodes samples, buffering any tail shorter than a chunk.
func (s *session) feed(samples []int16) error {
	for len(samples) > 0 {
		if len(s.buf) == 0 && len(samples) >= chunkSamples {
			if err := s.chunk(samples[:chunkSamples]); err != nil {
				return err
			}
			samples = samples[chunkSamples:]
			continue
		}
		n := min(chunkSamples-len(s.buf), len(samples))
		s.buf = append(s.buf, samples[:n]...)
		samples = samples[n:]
		if len(s.buf) == chunkSamples {
			if err := s.chunk(s.buf); err != nil {
				return err
			}
			s.buf = s.buf[:0]
		}
	}
	return nil
}

// flushBuf decodes buffered samples.
func (s *session) flushBuf() error {
	if len(s.buf) == 0 {
		return nil
	}
	err := s.chunk(s.buf)
	s.buf = s.buf[:0]
	return err
}

func (s *session) chunk(c []int16) error {
	if err := s.startUtt(); err != nil {
		return err
	}
	if err := s.d.process(c); err != nil {
		return err
	}
	s.uttSamples += len(c)
	in := s.d.l.psGetInSpeech(s.d.ps) != 0
	if in {
		s.speech = true
	}
	if (!in && s.speech) || s.uttSamples >= s.maxUttSamples {
		return s.endUtt()
	}
	return nil
}

// partial returns the finished words plus the current hypothesis of the
// open utterance (from the search's backpointer table: times are known,
// posteriors are not yet; its words get partialConfidence).
func (s *session) partial() []transcribe.Word {
	out := append([]transcribe.Word(nil), s.done...)
	if s.open && s.speech {
		out = append(out, toWords(s.d.segments(), false)...)
	}
	return out
}

// finish decodes what is buffered, closes the open utterance and returns
// all words since the last finish.
func (s *session) finish() ([]transcribe.Word, error) {
	if err := s.flushBuf(); err != nil {
		s.abort()
		return nil, err
	}
	if err := s.endUtt(); err != nil {
		return nil, err
	}
	out := s.done
	s.done = nil
	return out, nil
}

// abort closes an open utterance and drops its results, leaving the
// decoder ready for reuse.
func (s *session) abort() {
	if s.open {
		s.d.l.psEndUtt(s.d.ps)
		s.open = false
	}
	s.buf, s.done = nil, nil
}

// toWords converts segments to words: fillers and sentence markers are
// dropped, alternate pronunciation marks ("read(2)") stripped, text
// lowercased, frames turned into milliseconds. With final false (the open
// utterance) the segments carry no posterior and the confidence is
// partialConfidence's estimate.
func toWords(segs []segWord, final bool) []transcribe.Word {
	var out []transcribe.Word
	for _, sg := range segs {
		w := cleanWord(sg.text)
		if w == "" {
			continue
		}
		conf := partialConfidence(sg)
		if final {
			conf = min(max(sg.prob, 0), 1)
		}
		start, end := int64(sg.sf)*frameMS, int64(sg.ef+1)*frameMS
		if end < start {
			end = start
		}
		out = append(out, transcribe.Word{Text: w, Start: start, End: end, Confidence: conf})
	}
	return out
}

// cleanWord maps a dictionary word to output text, or "" for tokens that
// are not words (<s>, </s>, <sil>, [NOISE], +NSN+, ...).
func cleanWord(w string) string {
	if w == "" || w[0] == '<' || w[0] == '[' || w[0] == '+' {
		return ""
	}
	if i := strings.IndexByte(w, '('); i > 0 && strings.HasSuffix(w, ")") {
		w = w[:i]
	}
	return strings.ToLower(w)
}
