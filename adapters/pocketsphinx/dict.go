package pocketsphinx

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// The decoder's dictionary (see "Memory" in doc.go): cmudict-en-us.dict
// has 134,723 entries, but the n-gram search only ever hypothesises words
// its language model knows (72,547 unigrams; the search tree is built
// from the dictionary words the model knows), so the other 55,303 entries
// cost memory in every decoder — the dictionary itself and the search's
// per-word tables, 14 MB of a 91 MB decoder — and are only needed when a
// word boost asks for one of them. Decoders therefore load the entries
// whose word the language model knows (79,420 with alternates), written
// once per machine to a cache directory; the entries left out ("spare")
// are looked up by word boost, which adds them to the decoder with their
// cmudict pronunciations exactly as it adds words missing from the full
// dictionary.

// splitDict is the model's dictionary cut in two: lm holds the entries
// whose word the language model knows (a file for -dict), spare the
// others.
type splitDict struct {
	lm, spare string // paths
}

var (
	splitMu    sync.Mutex
	splitCache = map[string]*splitResult{}
)

type splitResult struct {
	once sync.Once
	d    splitDict
	err  error
}

// splitDictionary returns the split of m's dictionary, making the files
// when the cache holds none for these model files (once per process and
// cache directory).
func splitDictionary(l *lib, m modelFiles) (splitDict, error) {
	key := m.dict + "\x00" + m.lm
	splitMu.Lock()
	r := splitCache[key]
	if r == nil {
		r = &splitResult{}
		splitCache[key] = r
	}
	splitMu.Unlock()
	r.once.Do(func() { r.d, r.err = makeSplit(l, m) })
	return r.d, r.err
}

// cacheDir is where split dictionaries are kept: the user's cache
// directory, or the temporary directory when there is none.
func cacheDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "earshot", "pocketsphinx")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("earshot-pocketsphinx-%d", os.Getuid()))
}

// splitKey names a split by the model files' paths, sizes and times, so a
// changed model gets a new split.
func splitKey(m modelFiles) (string, error) {
	h := sha256.New()
	for _, p := range []string{m.dict, m.lm} {
		st, err := os.Stat(p)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00", p, st.Size(), st.ModTime().UnixNano())
	}
	return hex.EncodeToString(h.Sum(nil)[:12]), nil
}

func makeSplit(l *lib, m modelFiles) (splitDict, error) {
	key, err := splitKey(m)
	if err != nil {
		return splitDict{}, err
	}
	dir := cacheDir()
	d := splitDict{lm: filepath.Join(dir, key+".lm.dict"), spare: filepath.Join(dir, key+".spare.dict")}
	if nonEmpty(d.lm) && nonEmpty(d.spare) {
		return d, nil
	}
	full, err := os.ReadFile(m.dict)
	if err != nil {
		return splitDict{}, err
	}
	lmath := l.logmathInit(1.0001, 0, 0)
	if lmath == 0 {
		return splitDict{}, fmt.Errorf("pocketsphinx: logmath_init failed")
	}
	defer l.logmathFree(lmath)
	lm := l.ngramModelRead(0, m.lm, ngramAuto, lmath)
	if lm == 0 {
		return splitDict{}, fmt.Errorf("pocketsphinx: cannot read language model %s", m.lm)
	}
	unk := l.ngramUnknownWid(lm)
	var known, spare bytes.Buffer
	for _, line := range bytes.SplitAfter(full, []byte("\n")) {
		f := bytes.Fields(line)
		if len(f) < 2 {
			continue
		}
		w := entryWord(string(f[0]))
		if l.ngramWid(lm, w) != unk {
			known.Write(line)
		} else {
			spare.Write(line)
		}
	}
	l.ngramModelFree(lm)
	if l.mallocTrim != nil {
		l.mallocTrim(0)
	}
	if known.Len() == 0 {
		return splitDict{}, fmt.Errorf("pocketsphinx: no word of %s is in %s", m.dict, m.lm)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return splitDict{}, err
	}
	for _, f := range []struct {
		path string
		b    []byte
	}{{d.spare, spare.Bytes()}, {d.lm, known.Bytes()}} {
		if err := writeAtomic(f.path, f.b); err != nil {
			return splitDict{}, err
		}
	}
	return d, nil
}

func nonEmpty(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Size() > 0
}

// writeAtomic writes b to path through a temporary file renamed into
// place, so processes making the same split at once never read half a
// file.
func writeAtomic(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Chmod(0o644) // the cache is shared by the user's processes
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// entryWord is the word of a dictionary entry: "read(2)" -> "read".
func entryWord(e string) string {
	if i := strings.IndexByte(e, '('); i > 0 && strings.HasSuffix(e, ")") {
		return e[:i]
	}
	return e
}

// spareIndex finds the pronunciations of the entries left out of the
// decoders' dictionary: the spare file's lines sorted by word, searched by
// bisection (1.3 MB, loaded on first use by a word boost).
type spareIndex struct {
	data  []byte
	lines []int32 // start of each line, sorted by (word, order in the file)
}

var (
	spareMu    sync.Mutex
	spareCache = map[string]*spareIndex{}
)

// loadSpare returns the index of the spare file at path (nil for "").
func loadSpare(path string) (*spareIndex, error) {
	if path == "" {
		return nil, nil
	}
	spareMu.Lock()
	defer spareMu.Unlock()
	if ix := spareCache[path]; ix != nil {
		return ix, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ix := &spareIndex{data: b}
	for i := 0; i < len(b); {
		ix.lines = append(ix.lines, int32(i))
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
	}
	slices.SortStableFunc(ix.lines, func(x, y int32) int { return strings.Compare(ix.word(x), ix.word(y)) })
	spareCache[path] = ix
	return ix, nil
}

// line returns the line starting at off, without its newline.
func (ix *spareIndex) line(off int32) string {
	b := ix.data[off:]
	if j := bytes.IndexByte(b, '\n'); j >= 0 {
		b = b[:j]
	}
	return string(b)
}

func (ix *spareIndex) word(off int32) string {
	l := ix.line(off)
	if i := strings.IndexAny(l, " \t"); i >= 0 {
		l = l[:i]
	}
	return entryWord(l)
}

// prons returns the pronunciations of w in the file's order (w, w(2),
// ...), or nil.
func (ix *spareIndex) prons(w string) []string {
	if ix == nil {
		return nil
	}
	i, _ := slices.BinarySearchFunc(ix.lines, w, func(off int32, w string) int { return strings.Compare(ix.word(off), w) })
	var out []string
	for ; i < len(ix.lines) && ix.word(ix.lines[i]) == w; i++ {
		f := strings.Fields(ix.line(ix.lines[i]))
		if len(f) > 1 {
			out = append(out, strings.Join(f[1:], " "))
		}
	}
	return out
}
