package transcribe

import (
	"context"
	"errors"
	"time"
)

// PCM is decoded audio: 16-bit signed samples, one slice per channel, all
// channels of equal length.
type PCM struct {
	SampleRate int
	Channels   [][]int16
	// Format is the format the media was decoded from, as media.Sniff
	// names it ("wav", "mp3", ...); "" when the decoder does not say.
	Format string
}

// Duration returns the length of the audio.
func (p *PCM) Duration() time.Duration {
	if p == nil || len(p.Channels) == 0 || p.SampleRate == 0 {
		return 0
	}
	return time.Duration(len(p.Channels[0])) * time.Second / time.Duration(p.SampleRate)
}

// Mono returns the channels averaged into one.
func (p *PCM) Mono() []int16 {
	if len(p.Channels) == 1 {
		return p.Channels[0]
	}
	if len(p.Channels) == 0 {
		return nil
	}
	out := make([]int16, len(p.Channels[0]))
	n := len(p.Channels)
	for i := range out {
		s := 0
		for _, c := range p.Channels {
			s += int(c[i])
		}
		out[i] = int16(s / n)
	}
	return out
}

// Decoder turns a media file into PCM at the given sample rate.
//
//   - Decode returns a *MediaError for empty, truncated or undecodable
//     media and for unsupported formats, so the transcript fails with a
//     reason rather than the worker crashing.
//   - keepChannels false mixes down to one channel.
type Decoder interface {
	Decode(ctx context.Context, path string, sampleRate int, keepChannels bool) (*PCM, error)
}

// RecognizerFeatures says what a Recognizer can do; conformance tests and
// the Service read it instead of guessing.
type RecognizerFeatures struct {
	SampleRate     int      // the sample rate Recognize wants (e.g. 16000)
	WordTimestamps bool     // words carry start/end times
	WordConfidence bool     // words carry real confidences
	WordBoost      bool     // RecognizeOptions.WordBoost biases the search
	Disfluencies   bool     // can emit filler words (um, uh, ...)
	Streaming      bool     // implements StreamRecognizer
	Languages      []string // language codes it can transcribe ("en")
	// LanguageDetection: with an empty RecognizeOptions.LanguageCode the
	// engine detects the language and reports it in Recognition.Language
	// and LanguageConfidence.
	LanguageDetection bool
	// Prompt: RecognizeOptions.Prompt conditions the engine (whisper-class
	// engines take a text prompt; word boost is then sent as a prompt).
	Prompt bool
	// MaxAudio is the longest audio one Recognize call accepts (a server's
	// request size limit, say); 0 means no limit. The Service splits longer
	// audio at pauses and recognizes the pieces separately.
	MaxAudio time.Duration
}

// RecognizeOptions are per-request recognizer options.
type RecognizeOptions struct {
	LanguageCode string
	WordBoost    []string // spoken-form terms, from word_boost and keyterms_prompt
	BoostParam   string   // low, default or high
	// Disfluencies asks the engine to transcribe filler words (um, uh, ...)
	// rather than skip them (the request's disfluencies parameter).
	Disfluencies bool
	// Prompt is free text that conditions engines with Features().Prompt
	// (the request's prompt parameter); empty for none.
	Prompt string
	// Punctuate and FormatText are the request's punctuate and
	// format_text. An engine that writes text (whisper-class engines give
	// punctuation, casing and digits) keeps its punctuation when Punctuate
	// is set and its casing and written numbers when FormatText is set,
	// and says so in Recognition.Written; otherwise it returns the spoken
	// form. The zero value asks for the spoken form.
	Punctuate, FormatText bool
	// Duration is the length of the audio when the caller knows it (the
	// Service sets it for RecognizeFile), 0 otherwise. Engines bound the
	// answers they accept by it (a hostile engine answering millions of
	// words for two seconds of audio is refused).
	Duration time.Duration
}

// Written says which parts of the written form a recognition's words
// already carry, as the engine wrote them. The formatting stages
// (transcribe/textfmt) fill in only the parts that are missing: the
// Punctuator skips words with the engine's Punctuation, Casing skips
// words with the engine's Casing, ITN skips words with written Numbers.
// The zero value is a recognizer's spoken form: lowercase words without
// punctuation and numbers as words.
type Written struct {
	Punctuation bool // sentence ends, commas and question marks are the engine's
	Casing      bool // upper and lower case are the engine's
	Numbers     bool // numbers, money, e-mail addresses and dates are written (digits, symbols)
}

// Recognition is the result of recognizing one channel.
type Recognition struct {
	// Words are the recognized words with times in milliseconds from the
	// start of the given audio: lowercase and unpunctuated (the spoken
	// form), unless Written says the engine's punctuation, casing or
	// written numbers were kept.
	Words []Word
	// Written says what of the written form Words carry (see Written).
	Written Written
	// Model names the engine and model used (speech_model_used).
	Model string
	// Language is the language code the engine transcribed ("en", "de"),
	// detected when RecognizeOptions.LanguageCode was empty; "" when the
	// engine does not say. LanguageConfidence is its confidence in 0..1
	// (0 when unknown).
	Language           string
	LanguageConfidence float64
}

// Recognizer is a batch speech recognizer. Implementations are safe for
// concurrent use (pool decoders internally) and load heavy models once.
//
//   - Recognize returns words in time order, lowercase, without
//     punctuation, unless Recognition.Written says the engine's written
//     text was kept (RecognizeOptions.Punctuate, FormatText). Silence
//     yields zero words and a nil error.
//   - It returns an error wrapping ErrUnavailable when its library or model
//     is missing, and ctx.Err() when cancelled.
type Recognizer interface {
	Recognize(ctx context.Context, audio []int16, opts RecognizeOptions) (*Recognition, error)
	Features() RecognizerFeatures
	Close() error
}

// FileRecognizer is the optional extension of Recognizer for engines that
// take media files as they are (an HTTP engine that decodes mp3 or m4a
// itself), found by type assertion. The Service sends the original file
// instead of re-encoding decoded audio when the engine accepts its format
// and no channel split or trimming is asked for.
//
//   - AcceptsFile reports whether RecognizeFile takes media of this
//     format, as media.Sniff names it ("wav", "mp3", "flac", "ogg", "mp4",
//     "webm", ...).
//   - RecognizeFile transcribes the whole file at path; word times are in
//     milliseconds from the start of the file. Errors as for Recognize,
//     and one wrapping ErrFileNotTaken when the engine will not take this
//     file as it is (too large for one request, or its format refused):
//     the Service then decodes the file into its spool and sends the audio
//     through Recognize in pieces, with memory that does not grow with
//     the file, which an adapter decoding the file itself could not do.
type FileRecognizer interface {
	Recognizer
	AcceptsFile(format string) bool
	RecognizeFile(ctx context.Context, path string, opts RecognizeOptions) (*Recognition, error)
}

// ErrFileNotTaken is what FileRecognizer.RecognizeFile returns (wrapped)
// for a file the engine will not take as it is.
var ErrFileNotTaken = errors.New("transcribe: the engine does not take this file as it is")

// StreamOptions configure one streaming session.
type StreamOptions struct {
	SampleRate int
	WordBoost  []string
}

// Hypothesis is the current or final text of an utterance in a stream.
// Word times are milliseconds since the stream started.
type Hypothesis struct {
	Words []Word
	// Language and LanguageConfidence as in Recognition; "" and 0 when the
	// engine does not say.
	Language           string
	LanguageConfidence float64
}

// Stream is one cheap, per-session incremental decoder. Not safe for
// concurrent use.
//
//   - Write feeds samples at StreamOptions.SampleRate.
//   - Partial returns the current hypothesis of the open utterance.
//   - EndUtterance closes the open utterance and returns its final words;
//     the next Write starts a new utterance.
//   - Close releases the stream (its decoder goes back to the pool).
type Stream interface {
	Write(samples []int16) error
	Partial() (Hypothesis, error)
	EndUtterance() (Hypothesis, error)
	Close() error
}

// StreamRecognizer is the optional streaming extension of Recognizer,
// found by type assertion.
type StreamRecognizer interface {
	Recognizer
	NewStream(ctx context.Context, opts StreamOptions) (Stream, error)
}

// Event names what a Notification reports.
type Event string

// Notification events.
const (
	EventTranscript    Event = "transcript"     // completed or error
	EventRedactedAudio Event = "redacted_audio" // redacted audio is ready
)

// Notification asks a Notifier to tell webhook_url about a transcript.
type Notification struct {
	Event        Event
	TranscriptID string
	ProjectID    string
	Status       Status // for EventTranscript
	URL          string // webhook_url with its query intact
	HeaderName   string // webhook_auth_header_name, or ""
	HeaderValue  string // webhook_auth_header_value
	// Key, when set, identifies the notification: a Notifier given the
	// same Key again queues nothing more (the Service re-sends the
	// notifications of a result whose outbox flag is still set, and some
	// of them may be queued already). The Service sets
	// "<transcript id>/<event>".
	Key string
}

// Notifier sends completion notifications. Notify should return quickly;
// delivery and retries may happen in the background. The Service calls it
// after the transcript's final state is stored, and again for a result
// whose outbox flag (Record.NotifyPending) is still set, so Notify must be
// idempotent for a Notification with a Key.
type Notifier interface {
	Notify(ctx context.Context, n Notification) error
}

// NotifierFunc adapts a function to Notifier, as http.HandlerFunc does for
// handlers: an embedder's hook needs no type of its own.
type NotifierFunc func(ctx context.Context, n Notification) error

// Notify calls f.
func (f NotifierFunc) Notify(ctx context.Context, n Notification) error { return f(ctx, n) }
