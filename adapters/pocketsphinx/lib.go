package pocketsphinx

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/earshot-dev/earshot/transcribe"
)

// lib holds the C entry points of libpocketsphinx.so.3 and
// libsphinxbase.so.3 (Debian 0.8+5prealpha), bound with purego.
type lib struct {
	// sphinxbase
	cmdLnParseR       func(inout uintptr, defn uintptr, argc int32, argv unsafe.Pointer, strict int32) uintptr
	cmdLnFreeR        func(cfg uintptr) int32
	errSetLogfp       func(fp uintptr)
	logmathExp        func(lmath uintptr, logb int32) float64
	logmathInit       func(base float64, shift int32, useTable int32) uintptr
	logmathFree       func(lmath uintptr) int32
	ngramModelRead    func(cfg uintptr, path string, fileType int32, lmath uintptr) uintptr
	ngramModelSetInit func(cfg uintptr, models unsafe.Pointer, names unsafe.Pointer, weights unsafe.Pointer, n int32) uintptr
	ngramModelRetain  func(m uintptr) uintptr
	ngramModelFree    func(m uintptr) int32
	ngramWid          func(m uintptr, word string) int32
	ngramUnknownWid   func(m uintptr) int32
	ckdFree           func(p *byte)
	cmnLiveGet        func(cmn uintptr, vec *float32)
	cmnLiveSet        func(cmn uintptr, vec *float32)

	// pocketsphinx
	psArgs        func() uintptr
	psInit        func(cfg uintptr) uintptr
	psFree        func(ps uintptr) int32
	psGetLogmath  func(ps uintptr) uintptr
	psGetFeat     func(ps uintptr) *featHead
	psAddWord     func(ps uintptr, word string, phones string, update int32) int32
	psLookupWord  func(ps uintptr, word string) *byte
	psStartUtt    func(ps uintptr) int32
	psStartStream func(ps uintptr) int32
	psEndUtt      func(ps uintptr) int32
	psProcessRaw  func(ps uintptr, data unsafe.Pointer, n uintptr, noSearch int32, fullUtt int32) int32
	psGetHyp      func(ps uintptr, score *int32) string
	psGetInSpeech func(ps uintptr) uint8
	psSegIter     func(ps uintptr) uintptr
	psSegNext     func(seg uintptr) uintptr
	psSegWord     func(seg uintptr) string
	psSegFrames   func(seg uintptr, sf *int32, ef *int32)
	psSegProb     func(seg uintptr, ascr *int32, lscr *int32, lback *int32) int32
	psSegFree     func(seg uintptr)
	psSetLm       func(ps uintptr, name string, lm uintptr) int32
	psGetLm       func(ps uintptr, name string) uintptr
	psSetSearch   func(ps uintptr, name string) int32
	psUnsetSearch func(ps uintptr, name string) int32

	// mallocTrim is glibc's malloc_trim, or nil. Freeing a decoder returns
	// ~100 MB in many small blocks to whichever malloc arena the calling
	// thread used; trimming hands it back to the system.
	mallocTrim func(pad uintptr) int32
}

// featHead mirrors the leading fields of sphinxbase 0.8+5prealpha's
// feat_t (feat.h) up to cmn_struct, the live cepstral mean normalisation
// state.
type featHead struct {
	refcount    int32
	_           int32
	name        uintptr
	cepsize     int32
	nStream     int32
	streamLen   uintptr
	windowSize  int32
	nSv         int32
	svLen       uintptr
	subvecs     uintptr
	svBuf       uintptr
	svDim       int32
	cmn         int32
	varnorm     int32
	agc         int32
	computeFeat uintptr
	cmnStruct   uintptr
}

const (
	ngramAuto = 0 // NGRAM_AUTO
	ngramARPA = 1 // NGRAM_ARPA
)

// Debian's library directories, searched when Config.LibraryPath is empty.
var libDirs = []string{
	"/usr/lib/x86_64-linux-gnu",
	"/usr/lib/aarch64-linux-gnu",
	"/usr/lib",
	"/usr/local/lib",
	"/lib/x86_64-linux-gnu",
}

var (
	libMu    sync.Mutex
	libCache = map[string]*lib{}
)

// installHint names the Debian packages that provide what is missing.
const installHint = "install the Debian packages libpocketsphinx3 and pocketsphinx-en-us (apt-get install libpocketsphinx3 pocketsphinx-en-us)"

// loadLib opens libpocketsphinx (and the libsphinxbase it links) once per
// path. dir is Config.LibraryPath: a directory holding both libraries, a
// path to libpocketsphinx.so.3 itself, or "" to search Debian's locations.
func loadLib(dir string) (*lib, error) {
	libMu.Lock()
	defer libMu.Unlock()
	if l, ok := libCache[dir]; ok {
		return l, nil
	}
	psPath, sbPath, err := findLibs(dir)
	if err != nil {
		return nil, err
	}
	// sphinxbase first and global, so libpocketsphinx resolves against the
	// same copy we call into.
	sb, err := purego.Dlopen(sbPath, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return nil, fmt.Errorf("pocketsphinx: loading %s: %v; %s: %w", sbPath, err, installHint, transcribe.ErrUnavailable)
	}
	ps, err := purego.Dlopen(psPath, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return nil, fmt.Errorf("pocketsphinx: loading %s: %v; %s: %w", psPath, err, installHint, transcribe.ErrUnavailable)
	}
	l := &lib{}
	type sym struct {
		fn   any
		h    uintptr
		name string
	}
	syms := []sym{
		{&l.cmdLnParseR, sb, "cmd_ln_parse_r"},
		{&l.cmdLnFreeR, sb, "cmd_ln_free_r"},
		{&l.errSetLogfp, sb, "err_set_logfp"},
		{&l.logmathExp, sb, "logmath_exp"},
		{&l.logmathInit, sb, "logmath_init"},
		{&l.logmathFree, sb, "logmath_free"},
		{&l.ngramModelRead, sb, "ngram_model_read"},
		{&l.ngramModelSetInit, sb, "ngram_model_set_init"},
		{&l.ngramModelRetain, sb, "ngram_model_retain"},
		{&l.ngramModelFree, sb, "ngram_model_free"},
		{&l.ngramWid, sb, "ngram_wid"},
		{&l.ngramUnknownWid, sb, "ngram_unknown_wid"},
		{&l.ckdFree, sb, "ckd_free"},
		{&l.cmnLiveGet, sb, "cmn_live_get"},
		{&l.cmnLiveSet, sb, "cmn_live_set"},
		{&l.psArgs, ps, "ps_args"},
		{&l.psInit, ps, "ps_init"},
		{&l.psFree, ps, "ps_free"},
		{&l.psGetLogmath, ps, "ps_get_logmath"},
		{&l.psGetFeat, ps, "ps_get_feat"},
		{&l.psAddWord, ps, "ps_add_word"},
		{&l.psLookupWord, ps, "ps_lookup_word"},
		{&l.psStartUtt, ps, "ps_start_utt"},
		{&l.psStartStream, ps, "ps_start_stream"},
		{&l.psEndUtt, ps, "ps_end_utt"},
		{&l.psProcessRaw, ps, "ps_process_raw"},
		{&l.psGetHyp, ps, "ps_get_hyp"},
		{&l.psGetInSpeech, ps, "ps_get_in_speech"},
		{&l.psSegIter, ps, "ps_seg_iter"},
		{&l.psSegNext, ps, "ps_seg_next"},
		{&l.psSegWord, ps, "ps_seg_word"},
		{&l.psSegFrames, ps, "ps_seg_frames"},
		{&l.psSegProb, ps, "ps_seg_prob"},
		{&l.psSegFree, ps, "ps_seg_free"},
		{&l.psSetLm, ps, "ps_set_lm"},
		{&l.psGetLm, ps, "ps_get_lm"},
		{&l.psSetSearch, ps, "ps_set_search"},
		{&l.psUnsetSearch, ps, "ps_unset_search"},
	}
	for _, s := range syms {
		if _, err := purego.Dlsym(s.h, s.name); err != nil {
			return nil, fmt.Errorf("pocketsphinx: %s lacks symbol %s (need Debian's 0.8+5prealpha); %s: %w", psPath, s.name, installHint, transcribe.ErrUnavailable)
		}
		purego.RegisterLibFunc(s.fn, s.h, s.name)
	}
	if libc, err := purego.Dlopen("libc.so.6", purego.RTLD_NOW|purego.RTLD_GLOBAL); err == nil {
		if _, err := purego.Dlsym(libc, "malloc_trim"); err == nil {
			purego.RegisterLibFunc(&l.mallocTrim, libc, "malloc_trim")
		}
	}
	// Silence sphinxbase's logging process-wide (err_set_logfp(NULL)
	// disables it); ps_init would otherwise print its whole configuration
	// to stderr. Done once here rather than with -logfn, which reopens a
	// global FILE on every ps_init and races when decoders start in
	// parallel.
	l.errSetLogfp(0)
	libCache[dir] = l
	return l, nil
}

func findLibs(dir string) (psPath, sbPath string, err error) {
	const psName, sbName = "libpocketsphinx.so.3", "libsphinxbase.so.3"
	if dir != "" {
		if st, e := os.Stat(dir); e == nil && !st.IsDir() {
			psPath = dir
			sbPath = filepath.Join(filepath.Dir(dir), sbName)
		} else {
			psPath = filepath.Join(dir, psName)
			sbPath = filepath.Join(dir, sbName)
		}
		for _, p := range []string{psPath, sbPath} {
			if _, e := os.Stat(p); e != nil {
				return "", "", fmt.Errorf("pocketsphinx: %s not found (Config.LibraryPath %q); %s: %w", p, dir, installHint, transcribe.ErrUnavailable)
			}
		}
		return psPath, sbPath, nil
	}
	for _, d := range libDirs {
		p, s := filepath.Join(d, psName), filepath.Join(d, sbName)
		if _, e := os.Stat(p); e != nil {
			continue
		}
		if _, e := os.Stat(s); e != nil {
			continue
		}
		return p, s, nil
	}
	return "", "", fmt.Errorf("pocketsphinx: %s not found in %v; %s: %w", psName, libDirs, installHint, transcribe.ErrUnavailable)
}

// cString copies and frees a NUL-terminated string allocated by the
// library with ckd_malloc; nil gives "".
func (l *lib) cString(p *byte) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	s := string(unsafe.Slice(p, n))
	l.ckdFree(p)
	return s
}

// refs returns the reference count of an ngram model.
func (l *lib) refs(m uintptr) int32 {
	l.ngramModelRetain(m)
	return l.ngramModelFree(m)
}
