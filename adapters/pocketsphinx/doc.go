// Package pocketsphinx is Earshot's embedded speech recognizer: Debian's
// libpocketsphinx.so.3 and libsphinxbase.so.3 (0.8+5prealpha) loaded at run
// time with github.com/ebitengine/purego, so the module builds with
// CGO_ENABLED=0 and needs the libraries only on machines that transcribe.
//
// # Entry points
//
// New(Config) (*Recognizer, error) checks that the library and the US
// English model are installed (an error wrapping transcribe.ErrUnavailable
// names the Debian packages otherwise: libpocketsphinx3 pocketsphinx-en-us)
// and returns a Recognizer, which implements transcribe.Recognizer and
// transcribe.StreamRecognizer:
//
//   - Recognize(ctx, samples, opts) transcribes 16 kHz mono audio of any
//     length into lowercase words with times in milliseconds from the start
//     of the audio and confidences in 0..1;
//   - NewStream(ctx, opts) starts an incremental session (Write, Partial,
//     EndUtterance, Close) at any sample rate from 1 kHz to 192 kHz, resampled
//     to 16 kHz inside the stream (windowed sinc);
//   - Features reports SampleRate 16000, word timestamps and confidences,
//     word boost, disfluencies, streaming and language "en";
//   - Warm pre-creates decoders; Close frees them.
//
// # Config
//
//   - ModelDir: holds en-us/ (acoustic model), en-us.lm.bin (language
//     model) and cmudict-en-us.dict. Default DefaultModelDir,
//     /usr/share/pocketsphinx/model/en-us.
//   - Decoders: the most decoders alive at once, and so the most concurrent
//     Recognize calls plus open streams; more wait (honouring ctx). Each
//     decoder takes ~80 MB (see "Memory") and ~0.6 s of CPU to create; they
//     are created lazily and pooled. Default runtime.NumCPU().
//   - LibraryPath: the directory with libpocketsphinx.so.3 and
//     libsphinxbase.so.3, or the path of libpocketsphinx.so.3. Default:
//     Debian's multiarch library directories.
//   - IdleTimeout: a decoder idle this long is freed and its memory handed
//     back to the system (malloc_trim). Default 5 minutes; negative keeps
//     idle decoders until Close. Recognizer.Decoders reports live and idle
//     decoders.
//   - FullDictionary: load all of cmudict-en-us.dict into each decoder
//     instead of the entries the language model knows (see "Memory").
//     Default false.
//
// # Decoding
//
// Audio is fed in 128 ms chunks and split into utterances where the
// library's voice activity detector sees speech end, exactly as
// pocketsphinx_continuous does, so hour-long audio decodes in bounded memory
// and the transcript matches the command line tool (checked by
// TestLibrivoxMatchesCLI); speech that never pauses (music, noise) is cut
// every 60 s. Every request starts from the decoder's initial
// cepstral mean, so results never depend on what a pooled decoder decoded
// before. Word times come from the segment iterator (10 ms frames, counted
// from the start of the audio or stream); confidence is the word's
// posterior probability in the lattice (-bestpath yes). Sentence markers,
// silence and noise tokens are dropped and alternate pronunciation marks
// ("read(2)") removed. The dictionary and language model contain the
// fillers um, uh, hmm and mhm, but the base model rarely picks them; with
// RecognizeOptions.Disfluencies (disfluencies=true) Fillers are boosted,
// which makes spoken "um" and "uh" come out without inserting them into
// fluent speech. Removing fillers when disfluencies is false is the
// job of the formatting stages.
//
// Partial hypotheses of a stream carry the words of the utterance so far
// with times and confidences in 0..1. Words of the stretch of speech still
// being decoded have no lattice posterior yet (the library cannot build a
// lattice in mid-utterance): their confidence is an estimate of it from
// the word's acoustic score per frame, a logistic curve fitted to the
// final posteriors on pocketsphinx-testdata's LibriVox clips (partial.go);
// once the stretch ends its words carry their posteriors.
//
// Config.SinglePass (the reference server's streaming pool with
// EARSHOT_STREAM_SINGLE_PASS=true) runs only the
// library's first search, the lexicon tree that keeps up with the audio,
// and leaves out the second, a flat-lexicon search the library runs over
// the whole utterance again when it ends (ngram_search_finish), so a
// stream's final words come as the utterance ends instead of after a
// second decoding of it. Measured on the five librivox clips streamed in
// 100 ms writes, both ways in the same run (TestSinglePass,
// BenchmarkSinglePass), on the shared 2-core VM at load 3-6: the calls
// that end an utterance take 0.27-0.45 of the time (189-365 ms instead of
// 705-812 ms for a 7 s utterance), the stream 0.69-0.95 of the CPU, and
// the word error rate is 44.4% instead of 40.7% (36 against 33 errors in
// 81 words). Batch recognition keeps both searches.
//
// # Word boost
//
// RecognizeOptions.WordBoost (word_boost and keyterms_prompt) with
// BoostParam low, default or high really biases the search:
//
//  1. Words missing from the dictionary are added with ps_add_word. The
//     library has no grapheme-to-phoneme model, so pronunciations are made
//     here (g2p.go): numbers as people say them, with alternates ("11" is
//     eleven, also one one, added as "11" and "11(2)"; "2024" twenty twenty
//     four, two thousand twenty four, two zero two four), a final s after a
//     number as a plural ("k8s" k eights), letters next to digits and
//     vowelless words spelled ("mp4", "gpt"), other words composed of
//     dictionary words ("earshot" = ear + shot) or made by letter-to-sound
//     rules.
//  2. A small ARPA model of the terms (a unigram per word, a bigram per
//     neighbouring pair within a phrase) is read and interpolated with the
//     base model by ngram_model_set_init with weights 1-w and w, where w is
//     0.01, 0.03 or 0.1 for low, default and high.
//  3. The interpolated model becomes a temporary search on the request's
//     decoder; it is removed afterwards, restoring the base model. A
//     decoder whose dictionary was extended is freed instead of being
//     pooled again, so no later request sees the added words.
//
// Words are added while the decoder has no n-gram search at all (the
// default search is removed first; the extended decoder is retired
// anyway). This is the fix for issue 11, where about 20 boosted terms
// with digits ("1"…"20", "term0"…"term19", "windows 11", "mp4", "k8s")
// killed the process with SIGSEGV in ps_process_raw. The cause, in
// Debian's 0.8+5prealpha sources:
//
//   - ps_add_word (pocketsphinx.c) calls ngram_model_add_word on the
//     language model of every n-gram search. The default search's model
//     is a one-model set around the base model, so the set passes the word
//     on (ngram_model_set_add_ug) and the base trie model gets it as word
//     id 72547, 72548, ... (lm_trie_add_ug extends only the unigram
//     array).
//   - The trie's bit-packed bigram and trigram arrays were built for the
//     72547 words read from en-us.lm.bin (lm_trie_alloc_ngram:
//     max_vocab = counts[0]). A lookup of a history word in them
//     (middle_find/longest_find in lm_trie.c) is an interpolation search,
//     uniform_find, whose pivot is before + 1 + (key - 0) * width /
//     (max_vocab + 1): for a key above max_vocab the pivot lands past the
//     end of the range; when it is two or more past, before > after, the
//     unsigned after - before wraps around and the loop reads
//     bitarr_read_int25 at arbitrary offsets — SIGSEGV.
//   - The boosted search interpolates the base model, so as soon as the
//     decoder hypothesised an added word and scored a frequent word after
//     it (ngram_tg_score -> ngram_model_set_score -> lm_trie_score with
//     hist[0] = 72566 > 72547, observed with an LD_PRELOAD shim on
//     lm_trie_score), it crashed. It takes a key a few ids past the
//     vocabulary and a word with thousands of predecessors, hence "about
//     20 terms", and it depends on the audio; digits only mattered because
//     such terms are missing from the dictionary.
//
// With no n-gram search alive, ps_add_word only extends the dictionary; the
// boosted search built afterwards maps the added words to the boost model
// and to "unknown" in the base model, whose scorer then drops them from the
// history (ngram_model_trie_raw_score) instead of looking them up.
// TestWordBoostCrashRegression runs the lists of issue 11 (batch, stream,
// and "lm": that invariant, then direct scoring of frequent words after
// every boosted word) in child processes (internal/childtest), all nine of
// which died with SIGSEGV before the fix; FuzzBoostRecognize boosts arbitrary lists while fuzzing.
//
// TestWordBoostRealSpeech proves the effect on flite speech: "tensorflow"
// (not in the dictionary) and "gastroenterology" (not in the language
// model) are recognized only with the boost; TestWordBoostWrittenTerms
// that "Windows 11", "MP4", "k8s", "COVID-19", "GPT 4o", "1080p" and "S3"
// come out in written form (9 of 9 words with the boost, 0 without).
// A boosted "1" is a homophone of the dictionary's "one", which the base
// model knows far better, so spoken "one" mostly stays "one". Streams take
// StreamOptions.WordBoost with the default weight.
//
// # Performance
//
// Measured on the 2-core development VM (go test -bench .): Recognize
// decodes a 7.1 s librivox clip in 1.42 s (5.0x real time, 5.2 audio
// seconds per CPU second); with word boost 4.3x (building the temporary
// search costs ~0.25 s per request), with boosted words missing from the
// dictionary 2.5 audio seconds per CPU second (60% of plain in the same run
// of BenchmarkRecognizeBoostNewWords: the extended decoder is replaced
// afterwards); a stream with 100 ms writes and a Partial after each runs at
// 5.5x; creating a decoder takes 0.6 s of CPU; resampling 48 kHz to 16 kHz
// costs 6.5 ms per audio second.
//
// # Memory
//
// A decoder is 91 MB of C heap with the whole dictionary (measured by
// TestSplitDictionary): 25 MB for the acoustic model and dictionary
// (ps_init), 33 MB for the language model and 32 MB for the n-gram search
// built over it. What was tried, and what came of it:
//
//   - The acoustic model is already memory-mapped: -mmap is on by default
//     and maps sendump; turning it off costs 5 MB more. Its other files are
//     small.
//   - The language model cannot be shared. Within a process two decoders
//     could hold one ngram_model_t (the library counts references), but
//     the trie it reads into (sphinxbase lm_trie.h, lm_trie_t) keeps
//     hist_cache and backoff_cache, which lm_trie_score rewrites on every
//     lookup: decoders on different threads would corrupt each other's
//     scores. Across processes it cannot even be mapped: lm_trie_read_bin
//     reads the file into malloc'd memory with fread. Isolated workers
//     (adapters/isolate) hold one decoder each, so they could not share it
//     anyway.
//   - The dictionary can be cut. cmudict-en-us.dict has 134,723 entries,
//     but the n-gram search only hypothesises words of the language model
//     (its search tree is built from the dictionary words the model knows),
//     so the other 55,303 entries only cost memory: the dictionary and the
//     search's per-word tables. Decoders load the 79,420 entries whose word
//     the model knows (dict.go): 79-81 MB instead of 91 (-12%), created 8-14%
//     faster, the same words recognized (TestLibrivoxMatchesCLI still
//     matches the command line tool, which loads the whole dictionary). The
//     split is written once per machine to the user's cache directory
//     (os.UserCacheDir()/earshot/pocketsphinx, named by the model files'
//     sizes and times) by reading the language model once; if it cannot be
//     written, decoders load the whole dictionary. The 55,303 spare entries
//     are kept on disk and looked up (1.3 MB, loaded on first need) by word
//     boost, which adds a boosted spare word to the decoder with its cmudict
//     pronunciations, exactly as it adds words missing from cmudict
//     (TestBoostSpareWord); such a decoder is then retired like any
//     extended decoder, which costs a new decoder (0.6 s of CPU) for the
//     next request.
//   - Option sizes (-latsize, -pl_window) change nothing
//     measurable; turning the second search off (-fwdflat no,
//     Config.SinglePass) is a trade of time for words (see Decoding).
//   - Idle decoders are freed after IdleTimeout, which returns their memory
//     (TestIdleTimeout: 168 MB with two idle decoders, 10 MB after).
//
// # Memory handed to C
//
// Every string argument is copied by purego into a NUL-terminated buffer
// that lives for the call, and the library copies what it keeps (search
// names in ps_search_init, configuration values in cmd_ln_val_init, model
// names in ngram_model_set_init, words in dict_add_word). Go arrays of
// pointers handed to C (argv for cmd_ln_parse_r, the model names for
// ngram_model_set_init) have their targets pinned with runtime.Pinner;
// sample and vector buffers are only read or written during the call and
// kept alive past it. Strings the library returns are copied (ps_get_hyp,
// ps_seg_word) or copied and freed with ckd_free (ps_lookup_word).
// Pronunciations handed to ps_add_word are never empty (an empty one makes
// a zero-length dictionary entry) and use only the model's phones.
//
// # Concurrency
//
// A Recognizer is safe for concurrent use: each Recognize call and each
// Stream holds one pooled decoder exclusively. A Stream is not safe for
// concurrent use. Library logging is disabled process-wide.
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: Stream (the
// type StartStream returns), Fillers, the defaults Config documents
// (DefaultModelDir, DefaultIdleTimeout) and ErrClosed.
package pocketsphinx
