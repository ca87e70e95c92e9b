// Package media decodes media files to PCM for recognition and encodes
// PCM for the redacted-audio feature.
//
// Entry points:
//
//   - Decoder (NewDecoder(Config), or the zero value) implements
//     transcribe.Decoder. Decode sniffs the format from the file's first
//     bytes (Sniff), never from its name. WAV (integer PCM of 8 to 32 bits,
//     IEEE float, A-law, mu-law, WAVE_FORMAT_EXTENSIBLE, RF64), MP3
//     (github.com/hajimehoshi/go-mp3, with LAME gapless trimming), FLAC
//     (github.com/mewkiz/flac) and Ogg Vorbis (github.com/jfreymuth/oggvorbis)
//     decode in pure Go and stream: only the output PCM is held in memory.
//     MP3 goes to ffmpeg instead when it is installed (go-mp3 costs about
//     twice its CPU on 44.1 kHz stereo: 84 against 162 times real time per
//     CPU-second in BenchmarkDecode), and to go-mp3 when ffmpeg is missing
//     or fails on the file (Config.PureGoMP3 keeps it in Go).
//     Everything else — mp4/m4a/mov, webm/mkv, AAC, Opus, AIFF, AMR, WMA,
//     MPEG-TS, ... — and the rare variants the Go decoders refuse (MPEG 2.5,
//     ADPCM WAV) go through the ffmpeg program, which writes 16-bit WAV at
//     the target rate to a pipe. Without ffmpeg those give a
//     *transcribe.MediaError that says to install it and also wraps
//     transcribe.ErrUnavailable.
//   - Resampler converts sample rates with a Kaiser-windowed-sinc polyphase
//     filter (75 dB stopband starting at the lower Nyquist frequency, flat
//     passband to 86% of it); Decode uses it for the pure-Go formats.
//   - WriteWAV writes 16-bit PCM WAV; EncodeMP3 and MP3Encoder encode MP3
//     through ffmpeg's libmp3lame.
//
// Errors: every failure caused by the media itself is a
// *transcribe.MediaError with a reason fit for the transcript's error field
// (empty file, truncated header, corrupt data, not media, no audio track,
// zero-length audio, too long). Panics inside third-party decoders are
// recovered and reported as corrupt data, so that no input crashes a
// worker (FuzzDecode checks this).
//
// WAV is parsed here rather than with github.com/go-audio/wav: that
// package needs an io.ReadSeeker, trusts header sizes for allocations
// (a crafted fmt chunk allocates gigabytes), cannot read float, A-law or
// mu-law data, and cannot stream from ffmpeg's pipe. The tests still use
// go-audio/wav to write fixtures, as an independent implementation.
//
// Decoder, MP3Encoder and the package functions are safe for concurrent
// use; a Resampler is not.
package media
