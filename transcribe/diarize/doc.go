// Package diarize answers "who spoke when": it labels words with speakers
// (speaker_labels, speakers_expected, speaker_options) and builds the
// turn-by-turn utterances of speaker-labelled, dual_channel and
// multichannel transcripts.
//
// # Entry points
//
//   - Stages returns the two pipeline stages, in order, for
//     transcribe.Config.Stages; put them after text formatting (words may
//     carry punctuation and casing, which is kept).
//   - SpeakerStage (Enabled with speaker_labels) diarizes the job's audio
//     and sets Word.Speaker on every word: "A", "B", ... in order of first
//     appearance. With multichannel and speaker_labels each channel is
//     diarized on its own and labels are "{channel}{letter}" ("1A", "1B",
//     "2A"), as the AssemblyAI API does; the speaker bounds then apply per
//     channel. (dual_channel with speaker_labels is refused by
//     TranscriptParams.Validate.)
//   - UtteranceStage (Enabled with speaker_labels, dual_channel or
//     multichannel) builds Transcript.Utterances: a new utterance starts
//     whenever the speaker or the channel changes; text is the words joined
//     by spaces, start/end the first and last word's, confidence their
//     mean. With dual_channel or multichannel and no speaker labels a
//     channel is a speaker: words and utterances get Speaker equal to the
//     channel ("1", "2"), which is what the AssemblyAI API returns (its
//     multichannel examples print "Channel {utterance.speaker}").
//   - Diarizer is the engine contract; BIC (NewBIC) is the default.
//     optionsFor turns request parameters into Options: speakers_expected
//     fixes the count, otherwise min/max_speakers_expected bound it.
//   - AssignSpeakers, BuildUtterances and Letter are the building blocks
//     of the stages, for custom pipelines.
//   - ScoreDER scores a diarization against a reference: diarization
//     error rate with a no-score collar and the optimal speaker mapping
//     (the NIST md-eval definition).
//
// # The default diarizer
//
// BIC is pure Go and needs no model files. For one channel of audio:
//
//  1. Features: 25 ms Hamming windows every 10 ms, pre-emphasis, a 24-band
//     mel filterbank (100 Hz to 7.6 kHz), log, DCT to 12 cepstra (c1..c12),
//     normalized to zero mean and unit variance over the speech frames.
//  2. Speech activity: frame energy (DC removed) against a threshold set
//     between the recording's noise floor and its loud frames (at most
//     SpeechRangeDB below them); gaps under 150 ms are bridged, bursts
//     under 100 ms dropped.
//  3. Change points: inside each stretch of speech, ΔBIC between
//     full-covariance Gaussians of the 1.5 s either side of every 100 ms
//     boundary; local maxima above zero split the stretch.
//  4. Clustering: segments of at least 300 ms are clustered bottom-up,
//     merging the pair with the smallest ΔBIC (penalty weight
//     ClusterLambda) while it is negative; then, because ΔBIC between two
//     big clusters of one speaker grows with their size, pairs whose
//     per-frame likelihood ratio is under MaxMergeDistance are merged too.
//     MinSpeakers and MaxSpeakers override both stopping rules.
//  5. Resegmentation: every speech frame is relabelled by Viterbi decoding
//     over the speaker Gaussians with a switch penalty, twice, re-estimating
//     the Gaussians in between; this moves turn boundaries to where the
//     voices change and attributes the short fragments step 4 skipped.
//  6. Same-speaker segments less than 500 ms apart are joined; speakers
//     are numbered in order of first appearance.
//
// SpeakerStage then gives each word the speaker it overlaps most (the
// nearest segment's when it falls in a pause), so turns change only at
// word boundaries.
//
// # Measured (go test -v -run Accuracy ./transcribe/diarize)
//
// Conversations synthesized at test time from Debian's flite voices (slt,
// rms, awb, kal) with known turn boundaries, DER with a 250 ms collar, no
// speaker count given unless noted:
//
//	two speakers, 14 turns, 55 s             DER 0.0%   words right 100%
//	three speakers, 12 turns, 46 s           DER 0.0%   words right 100%
//	four speakers, 16 turns, 64 s            DER 0.0%   words right 100%
//	two speakers, turns butted together
//	  (0-150 ms gaps) over noise, 43 s       DER 1.5%   words right 100%
//	two speakers, long turns, 40 s           DER 0.0%
//	one speaker, 24 s                        DER 1.2%   (1 speaker found)
//	four speakers x4 (254 s), two x8 (436 s) DER 0.0%
//	real read speech: a librivox reader and
//	  CMU's "dhd" recordings, 39 s           DER 0.5%
//	the same x8 (314 s), min_speakers 2      DER 0.5%
//
// Words recognized by adapters/pocketsphinx on the butted-together
// two-speaker conversation (137 words) get the right speaker 100% of the
// time, in 10 utterances for its 10 speaker turns; dual-channel utterances
// carry the right channel for 100% of words. The diarizer costs 0.1 to
// 0.25 s per minute of audio on a one-minute conversation
// (BenchmarkDiarize) and about 0.45 s per minute on 17 minutes
// (BenchmarkDiarizeLong: clustering grows faster than linearly), against
// 15 to 63 s per minute for pocketsphinx itself (BenchmarkPocketsphinx,
// warm decoder) in the same runs on a shared, heavily loaded 2-core
// machine: 0.4% to 3% of recognition time.
//
// Limits: flite voices differ far more than real voices do, so these
// figures are an upper bound. A single Gaussian per speaker is a coarse
// voice model: on long real recordings without a speaker count the number
// of speakers can come out wrong (the real-speech conversation played four
// times over, with no count, is under-split to one speaker); give
// speakers_expected or speaker_options when you know them, or plug in a
// model-based engine. Overlapping speech is given to one speaker.
//
// # Replacing the engine
//
// A stronger diarizer only has to implement Diarizer and be set as
// SpeakerStage.Diarizer; word assignment, naming and utterances stay as
// they are. For example, with sherpa-onnx (through its C API loaded with
// purego, or behind a build tag, so the root module still builds with
// CGO_ENABLED=0): create a sherpa-onnx OfflineSpeakerDiarization once (a
// pyannote segmentation model plus a speaker embedding extractor such as
// 3D-Speaker or NeMo TitaNet, with FastClustering), keep it in the adapter
// and guard it with a mutex or a pool; in Diarize convert the int16 samples
// to float32 in [-1, 1] (resampling to the model's 16 kHz if needed), set
// the cluster count to MinSpeakers when MinSpeakers == MaxSpeakers (or a
// threshold otherwise), call Process, and return its segments (seconds to
// milliseconds) passed through renumber. Return an error wrapping
// transcribe.ErrUnavailable when the library or the model files are
// missing.
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: the building
// blocks of the diarization stages for stage authors (AssignSpeakers,
// BuildUtterances, Letter, Stages, Options, Segment, BIC and BICConfig,
// ErrBadInput) and the evaluation measure its figures use (ScoreDER,
// DERResult).
package diarize
