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
//     decoder takes ~107 MB and ~0.6 s of CPU to create; they are created lazily
//     and pooled. Default runtime.NumCPU().
//   - LibraryPath: the directory with libpocketsphinx.so.3 and
//     libsphinxbase.so.3, or the path of libpocketsphinx.so.3. Default:
//     Debian's multiarch library directories.
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
// with times; words of the stretch of speech still being decoded have
// confidence 0 until it ends.
//
// # Word boost
//
// RecognizeOptions.WordBoost (word_boost and keyterms_prompt) with
// BoostParam low, default or high really biases the search:
//
//  1. Words missing from the dictionary are added with ps_add_word. The
//     library has no grapheme-to-phoneme model, so the pronunciation is
//     composed of dictionary words ("earshot" = ear + shot), spelled for
//     acronyms and digits ("k8s"), or made by letter-to-sound rules.
//  2. A small ARPA model of the terms (a unigram per word, a bigram per
//     neighbouring pair within a phrase) is read and interpolated with the
//     base model by ngram_model_set_init with weights 1-w and w, where w is
//     0.01, 0.03 or 0.1 for low, default and high.
//  3. The interpolated model becomes a temporary search on the request's
//     decoder; it is removed afterwards, restoring the base model. A
//     decoder whose dictionary was extended is freed instead of being
//     pooled again, so no later request sees the added words.
//
// TestWordBoostRealSpeech proves the effect on flite speech: "tensorflow"
// (not in the dictionary) and "gastroenterology" (not in the language
// model) are recognized only with the boost. Streams take
// StreamOptions.WordBoost with the default weight.
//
// # Performance
//
// Measured on the 2-core development VM (go test -bench .): Recognize
// decodes a 7.1 s librivox clip in 1.42 s (5.0x real time, 5.2 audio
// seconds per CPU second); with word boost 4.3x (building the temporary
// search costs ~0.25 s per request); a stream with 100 ms writes and a
// Partial after each runs at 5.5x; creating a decoder takes 0.6 s of CPU;
// resampling 48 kHz to 16 kHz costs 6.5 ms per audio second.
//
// # Concurrency
//
// A Recognizer is safe for concurrent use: each Recognize call and each
// Stream holds one pooled decoder exclusively. A Stream is not safe for
// concurrent use. Library logging is disabled process-wide.
package pocketsphinx
