package pocketsphinx

import (
	"fmt"
	"runtime"
	"time"
)

// DefaultIdleTimeout is Config.IdleTimeout's default.
const DefaultIdleTimeout = 5 * time.Minute

// DefaultModelDir is where Debian's pocketsphinx-en-us installs the US
// English model.
const DefaultModelDir = "/usr/share/pocketsphinx/model/en-us"

// Config configures a Recognizer. The zero value is valid: every field has
// a default.
type Config struct {
	// ModelDir holds en-us/ (acoustic model), en-us.lm.bin and
	// cmudict-en-us.dict. Default DefaultModelDir.
	ModelDir string
	// Decoders caps the pooled decoders (each ~80 MB and ~0.6 s to
	// create, made lazily). Recognize calls and streams beyond it wait.
	// Default runtime.NumCPU().
	Decoders int
	// LibraryPath is the directory holding libpocketsphinx.so.3 and
	// libsphinxbase.so.3, or the path of libpocketsphinx.so.3. Default:
	// Debian's multiarch directories.
	LibraryPath string
	// IdleTimeout frees a pooled decoder that has served nothing for this
	// long, and hands its memory back to the system, so that a burst of
	// requests or streams does not keep its decoders for ever. Default
	// DefaultIdleTimeout (5 minutes); negative keeps idle decoders until
	// Close.
	IdleTimeout time.Duration
	// FullDictionary makes decoders load the whole of
	// cmudict-en-us.dict. By default they load only the entries whose
	// word the language model knows (the only ones the search can
	// recognize), which saves 14 MB per decoder; word boost still finds
	// the others (see "Memory" in doc.go). Default false.
	FullDictionary bool
	// SinglePass makes decoders run only pocketsphinx's first search
	// (the lexicon tree, which runs as audio comes): an utterance's words
	// are final as it ends, without the second search over the whole
	// utterance with a flat lexicon (-fwdflat no). Made for streaming:
	// on Debian's five librivox clips, ending an utterance took 0.27 of
	// the time and the whole stream 0.69 of the CPU, for a word error rate
	// of 44.4% instead of 40.7% (TestSinglePass measures both in one run).
	// The reference server sets it for its streaming pool with
	// EARSHOT_STREAM_SINGLE_PASS=true. Default false: both searches,
	// pocketsphinx's own default (a stream's words are worth more than
	// the time on a machine with cores to spare: with both, a lone
	// session's finals come 66-76 ms after the pause on a quiet 2-core
	// VM).
	SinglePass bool
}

func (c Config) withDefaults() Config {
	if c.ModelDir == "" {
		c.ModelDir = DefaultModelDir
	}
	if c.Decoders == 0 {
		c.Decoders = runtime.NumCPU()
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	return c
}

// validate reports a Config that cannot work.
func (c Config) validate() error {
	if c.Decoders < 0 {
		return fmt.Errorf("pocketsphinx: Config.Decoders must be positive, got %d", c.Decoders)
	}
	return nil
}
