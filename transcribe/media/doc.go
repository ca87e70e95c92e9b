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
//   - Media never reaches other files. Uploads that point elsewhere —
//     M3U/HLS playlists (also behind an ID3 tag), PLS, XSPF, ASX, SMIL,
//     DASH and Smooth Streaming manifests, ffconcat scripts, SDP, lists of
//     paths or URLs — are refused with a MediaError ("playlists and other
//     files that point to other files are not accepted") before any
//     decoder runs. ffmpeg is run with the demuxer of the sniffed format
//     forced (-f, so it never probes again past an ID3 tag), that demuxer
//     alone on -format_whitelist (media Sniff does not recognise is probed
//     among a fixed list of demuxers that read only their own file: no
//     hls, concat, dash, image2, playlists or mov), -protocol_whitelist
//     file on a "file:" URL, -enable_drefs 0 for MP4/MOV, and the minimal
//     environment of internal/childenv (no server secrets).
//   - Resampler converts sample rates with a Kaiser-windowed-sinc polyphase
//     filter (75 dB stopband starting at the lower Nyquist frequency, flat
//     passband to 86% of it); Decode uses it for the pure-Go formats.
//   - WriteWAV writes 16-bit PCM WAV; encodeMP3 and MP3Encoder encode MP3
//     through ffmpeg's libmp3lame.
//
// Errors: every failure caused by the media itself is a
// *transcribe.MediaError with a reason fit for the transcript's error field
// (empty file, truncated header, corrupt data, not media, a playlist, no
// audio track, zero-length audio, too long). A reason never holds a path
// or a library's message: ffmpeg's and the MP3, FLAC and Vorbis decoders'
// failures read "the file could not be decoded as <format>: it is damaged
// or not a media file", and their details (with the file's path) go to
// Config.Logger at level Warn, logged with the Decode call's context. The
// WAV parser's own messages are shown. Panics inside third-party decoders
// are recovered and reported as corrupt data, so that no input crashes a
// worker (FuzzDecode checks this). MaxDuration is enforced as samples
// arrive: decoding (and ffmpeg) stops at the first block past it.
//
// WAV is parsed here rather than with github.com/go-audio/wav: that
// package needs an io.ReadSeeker, trusts header sizes for allocations
// (a crafted fmt chunk allocates gigabytes), cannot read float, A-law or
// mu-law data, and cannot stream from ffmpeg's pipe. The tests still use
// go-audio/wav to write fixtures, as an independent implementation.
//
// Decoder, MP3Encoder and the package functions are safe for concurrent
// use; a Resampler is not.
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: the container
// formats Sniff reports (Format* and Formats), the limits and defaults
// Config documents (MinSampleRate, MaxSampleRate, DefaultMaxDuration,
// DefaultMaxChannels), Span, and Resampler/NewResampler for callers with PCM
// of another rate.
package media
