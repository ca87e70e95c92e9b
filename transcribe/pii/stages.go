package pii

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/textfmt"
)

// Stages returns the entity and redaction stages in the order they must
// run, after the textfmt stages and before utterances are built from the
// words:
//
//	EntityStage (entity_detection) -> RedactAudioStage (redact_pii_audio)
//	-> RedactStage (redact_pii)
//
// Every stage finds the entities on the words as they are before
// redaction (detection is deterministic and takes about a
// millisecond per hundred words, so each stage runs it rather than passing
// state between stages), which is why the text is redacted last. The
// stages share one Detector and are safe for concurrent use.
func Stages(o Options) []transcribe.Stage {
	var d Detector
	enc := o.Encode
	if enc == nil {
		enc = NewEncoder(o.TempDir)
	}
	audio := RedactAudioStage{Detector: d, Encode: enc}
	return []transcribe.Stage{EntityStage{Detector: d}, audio, RedactStage{Detector: d, Audio: audio}}
}

// Options configure the stages of Stages. Zero values mean the defaults.
type Options struct {
	// Encode writes redacted audio. Default NewEncoder(TempDir).
	Encode Encoder
	// TempDir holds the encoder's temporary files (ffmpeg writes MP3
	// there). Default os.TempDir().
	TempDir string
}

func sub(p *transcribe.TranscriptParams) string {
	if p.RedactPIISub != nil {
		return string(*p.RedactPIISub)
	}
	return SubHash
}

// EntityStage fills Transcript.Entities (entity_detection). With
// format_text off it detects on a formatted copy of the words and reports
// the original words' text. With
// redact_pii on, the text of every entity whose type is redacted is its
// redacted form ("##### #######" or "[PERSON_NAME]"), so the unredacted
// text is never stored; times are those of the original words. With no
// entity found Entities is an empty list, not null.
type EntityStage struct{ Detector Detector }

// Name returns "entity_detection".
func (EntityStage) Name() string { return "entity_detection" }

// Enabled reports whether entity_detection is on.
func (EntityStage) Enabled(p *transcribe.TranscriptParams) bool {
	return transcribe.IsTrue(p.EntityDetection)
}

// Apply sets job.Transcript.Entities.
func (s EntityStage) Apply(ctx context.Context, job *transcribe.Job) error {
	if job == nil || job.Transcript == nil {
		return nil
	}
	t := job.Transcript
	ws := t.Words
	d := s.Detector.ForJob(job)
	if t.FormatText != nil && !*t.FormatText {
		t.Entities = rawEntities(d, ws)
		return ctx.Err()
	}
	spans := d.Spans(ws)
	if transcribe.IsTrue(t.RedactPII) {
		ws, spans = Redact(ws, spans, t.RedactPIIPolicies, sub(&t.TranscriptParams))
	}
	t.Entities = Entities(ws, spans)
	return ctx.Err()
}

// rawEntities finds entities in unformatted words (format_text false;
// redaction is then off, as it requires format_text): it detects on a
// formatted copy, whose tokens keep the time span of the words they were
// written from, and reports each entity with those times and the text of
// the original words inside them ("five five five one two three four").
func rawEntities(d Detector, ws []transcribe.Word) []transcribe.Entity {
	fw := textfmt.Format(ws, nil)
	es := Entities(fw, d.Spans(fw))
	for i := range es {
		var in []transcribe.Word
		for _, w := range ws {
			if w.Start >= es[i].Start && w.End <= es[i].End {
				in = append(in, w)
			}
		}
		if len(in) > 0 {
			es[i].Text = spanText(in)
		}
	}
	return es
}

// RedactStage redacts the words of entities whose type is one of
// redact_pii_policies (redact_pii), with redact_pii_sub: see Redact. Text,
// utterances, sentences, paragraphs, captions and word search are all
// built from the words afterwards, so they show only the redacted form.
//
// When redact_pii_audio is on and the audio has not been redacted yet (the
// stages were ordered differently), it runs Audio first, since afterwards
// the entities can no longer be found.
type RedactStage struct {
	Detector Detector
	Audio    RedactAudioStage
}

// Name returns "redact_pii".
func (RedactStage) Name() string { return "redact_pii" }

// Enabled reports whether redact_pii is on.
func (RedactStage) Enabled(p *transcribe.TranscriptParams) bool {
	return transcribe.IsTrue(p.RedactPII)
}

// Apply redacts job.Transcript.Words.
func (s RedactStage) Apply(ctx context.Context, job *transcribe.Job) error {
	if job == nil || job.Transcript == nil {
		return nil
	}
	t := job.Transcript
	if _, done := job.Artifact(transcribe.ArtifactRedactedAudio); !done && s.Audio.Enabled(&t.TranscriptParams) {
		if err := s.Audio.Apply(ctx, job); err != nil {
			return err
		}
	}
	spans := s.Detector.ForJob(job).Spans(t.Words)
	t.Words, _ = Redact(t.Words, spans, t.RedactPIIPolicies, sub(&t.TranscriptParams))
	return ctx.Err()
}

// RedactAudioStage writes a copy of the job's audio in which every
// redacted entity is replaced by a tone (redact_pii_audio), or by silence
// with redact_pii_audio_options {"override_audio_redaction_method":
// "silence"}: see beepRanges. The file is stored with job.StoreArtifact as
// the transcript's transcribe.ArtifactRedactedAudio; the Service serves
// it, sends the redacted_audio webhook, and deletes it with the
// transcript.
//
// The audio is the processed audio the words were recognised from: the
// range audio_start_from..audio_end_at of the media, at the recognizer's
// sample rate (16 kHz), with the channels kept for dual_channel and
// multichannel (mixed to mono for MP3 beyond two). Its times are therefore
// relative to audio_start_from.
type RedactAudioStage struct {
	Detector Detector
	// Tone configures the replacement tone; zero means the defaults.
	Tone ToneConfig
	// Encode writes the audio; nil means DefaultEncoder.
	Encode Encoder
}

// AudioOptions is the shape of redact_pii_audio_options that the stage
// reads: override_audio_redaction_method "silence" replaces the spans with
// silence instead of the tone. Other keys and values are ignored.
type AudioOptions struct {
	OverrideAudioRedactionMethod string `json:"override_audio_redaction_method"`
}

func audioOptions(raw json.RawMessage) AudioOptions {
	var o AudioOptions
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &o) // not an object: the defaults
	}
	return o
}

// Name returns "redact_pii_audio".
func (RedactAudioStage) Name() string { return "redact_pii_audio" }

// Enabled reports whether redact_pii and redact_pii_audio are on.
func (RedactAudioStage) Enabled(p *transcribe.TranscriptParams) bool {
	return transcribe.IsTrue(p.RedactPII) && transcribe.IsTrue(p.RedactPIIAudio)
}

// Apply writes the redacted audio. It fails when the job has no audio or
// blob store, or when encoding or storing fails.
func (s RedactAudioStage) Apply(ctx context.Context, job *transcribe.Job) error {
	if job == nil || job.Transcript == nil {
		return nil
	}
	t := job.Transcript
	audio, err := job.LoadAudio()
	if err != nil || job.Blobs == nil {
		return fmt.Errorf("pii: redact_pii_audio needs the job's audio and a blob store: %v", err)
	}
	format := "mp3"
	if t.RedactPIIAudioQuality != nil && *t.RedactPIIAudioQuality == "wav" {
		format = "wav"
	}
	ranges := ranges(t.Words, s.Detector.ForJob(job).Spans(t.Words), t.RedactPIIPolicies)
	tone := s.Tone
	if audioOptions(t.RedactPIIAudioOptions).OverrideAudioRedactionMethod == "silence" {
		tone.Silence = true
	}
	pcm, err := beepRanges(audio, job.OffsetMS, ranges, tone)
	if err != nil {
		return err
	}
	enc := s.Encode
	if enc == nil {
		enc = DefaultEncoder
	}
	var buf bytes.Buffer
	if err := enc(ctx, pcm, format, &buf); err != nil {
		return fmt.Errorf("pii: encoding redacted audio: %w", err)
	}
	if err := job.StoreArtifact(ctx, transcribe.ArtifactRedactedAudio, format, &buf); err != nil {
		return fmt.Errorf("pii: storing redacted audio: %w", err)
	}
	if job.Logger != nil {
		job.Logger.Info("redacted audio written", "format", format, "spans", len(ranges))
	}
	return nil
}
