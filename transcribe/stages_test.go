package transcribe_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
)

func TestStagesRunInOrder(t *testing.T) {
	var order []string
	var mu sync.Mutex
	stage := func(name string, enabled bool) transcribe.Stage {
		return transcribe.StageFunc{StageName: name, When: func(*transcribe.TranscriptParams) bool { return enabled },
			Run: func(ctx context.Context, j *transcribe.Job) error {
				mu.Lock()
				order = append(order, name)
				mu.Unlock()
				for i := range j.Transcript.Words {
					j.Transcript.Words[i].Text += name
				}
				return nil
			}}
	}
	failing := transcribe.StageFunc{StageName: "fail", When: func(p *transcribe.TranscriptParams) bool { return transcribe.IsTrue(p.SpeakerLabels) },
		Run: func(context.Context, *transcribe.Job) error {
			return &transcribe.MediaError{Reason: "too few speakers"}
		}}
	e := newEnv(t, func(c *transcribe.Config) {
		c.Stages = []transcribe.Stage{stage("a", true), stage("skip", false), stage("b", true), failing}
	})
	u := e.upload(t, "p", media(1, 1))
	tr, _ := e.submit(context.Background(), "p", transcribe.TranscriptParams{AudioURL: u})
	done := e.wait(t, "p", tr.ID)
	if *done.Text != "wordab wordab" || strings.Join(order, ",") != "a,b" {
		t.Fatalf("text %q order %v", *done.Text, order)
	}
	u = e.upload(t, "p", media(1, 1))
	tr, _ = e.submit(context.Background(), "p", transcribe.TranscriptParams{AudioURL: u, SpeakerLabels: transcribe.Ptr(true)})
	if done := e.wait(t, "p", tr.ID); done.Status != transcribe.StatusError || *done.Error != "too few speakers" {
		t.Fatalf("failing stage: %s %v", done.Status, done.Error)
	}
}

func TestRedactedAudio(t *testing.T) {
	e := newEnv(t, func(c *transcribe.Config) {
		c.Stages = []transcribe.Stage{transcribe.StageFunc{StageName: "redact", When: func(p *transcribe.TranscriptParams) bool { return transcribe.IsTrue(p.RedactPIIAudio) },
			Run: func(ctx context.Context, j *transcribe.Job) error {
				return j.StoreArtifact(ctx, transcribe.ArtifactRedactedAudio, "wav", strings.NewReader("RIFF...."))
			}}}
	})
	ctx := context.Background()
	u := e.upload(t, "p", media(1, 1))
	tr, _ := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: u, RedactPII: transcribe.Ptr(true), RedactPIIAudio: transcribe.Ptr(true),
		RedactPIIPolicies: []string{"person_name"}, WebhookURL: transcribe.Ptr("https://h.test/")})
	e.wait(t, "p", tr.ID)
	<-e.notes
	n := <-e.notes
	if n.Event != transcribe.EventRedactedAudio || n.TranscriptID != tr.ID {
		t.Fatalf("redacted-audio notification %+v", n)
	}
	ra, err := e.svc.RedactedAudio(ctx, "p", tr.ID)
	if err != nil || ra.Format != "wav" || !ra.Expires.Equal(ra.Ready.Add(24*time.Hour)) {
		t.Fatalf("RedactedAudio = %+v, %v", ra, err)
	}
	if _, err := e.svc.RedactedAudio(ctx, "other", tr.ID); !errors.Is(err, transcribe.ErrNotFound) {
		t.Errorf("another project: %v", err)
	}
	rc, info, err := e.svc.OpenRedactedAudio(ctx, tr.ID)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(rc)
	rc.Close()
	if string(b) != "RIFF...." || info.Format != "wav" {
		t.Fatalf("got %q %+v", b, info)
	}
	e.now.Add(25 * time.Hour)
	if _, err := e.svc.RedactedAudio(ctx, "p", tr.ID); !errors.Is(err, transcribe.ErrNotReady) {
		t.Errorf("expired: %v", err)
	}
	if _, _, err := e.svc.OpenRedactedAudio(ctx, tr.ID); !errors.Is(err, transcribe.ErrNotReady) {
		t.Errorf("expired: %v", err)
	}
	if e.blobs.Len() != 0 {
		t.Errorf("expired redacted audio not deleted: %v", e.blobs.Keys())
	}
	// Not requested: ErrNotReady.
	u = e.upload(t, "p", media(1, 1))
	tr2, _ := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: u})
	e.wait(t, "p", tr2.ID)
	if _, err := e.svc.RedactedAudio(ctx, "p", tr2.ID); !errors.Is(err, transcribe.ErrNotReady) {
		t.Errorf("not requested: %v", err)
	}
}

// TestArtifactsDeletedWithTranscript: the Service deletes what stages
// recorded, whatever the keys.
func TestArtifactsDeletedWithTranscript(t *testing.T) {
	e := newEnv(t, func(c *transcribe.Config) {
		c.Stages = []transcribe.Stage{transcribe.StageFunc{StageName: "two files", Run: func(ctx context.Context, j *transcribe.Job) error {
			if err := j.StoreArtifact(ctx, "thing", "bin", strings.NewReader("a")); err != nil {
				return err
			}
			return j.StoreArtifact(ctx, transcribe.ArtifactRedactedAudio, "mp3", strings.NewReader("b"))
		}}}
	})
	ctx := context.Background()
	tr, _ := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: e.upload(t, "p", media(1, 1))})
	e.wait(t, "p", tr.ID)
	if e.blobs.Len() != 2 {
		t.Fatalf("blobs after completion: %v", e.blobs.Keys())
	}
	if _, err := e.svc.Delete(ctx, "p", tr.ID); err != nil {
		t.Fatal(err)
	}
	if e.blobs.Len() != 0 {
		t.Errorf("blobs after delete: %v", e.blobs.Keys())
	}
}

func TestPanickingStageFailsTheJobOnly(t *testing.T) {
	boom := transcribe.StageFunc{StageName: "boom", Run: func(context.Context, *transcribe.Job) error { panic("stage bug") }}
	e := newEnv(t, func(c *transcribe.Config) { c.Stages = []transcribe.Stage{boom} })
	u := e.upload(t, "p", media(1, 1))
	tr, _ := e.submit(context.Background(), "p", transcribe.TranscriptParams{AudioURL: u})
	if done := e.wait(t, "p", tr.ID); done.Status != transcribe.StatusError || strings.Contains(*done.Error, "stage bug") {
		t.Fatalf("status %s error %v", done.Status, done.Error)
	}
	// The workers are still alive.
	u = e.upload(t, "p", media(1, 1))
	e.submit(context.Background(), "p", transcribe.TranscriptParams{AudioURL: u, SpeakerLabels: transcribe.Ptr(true)})
}

// fallible is a FallibleStage and PendingStage over sentiment results.
type fallible struct{ fail bool }

func (fallible) Name() string { return "fallible" }

func (fallible) Enabled(p *transcribe.TranscriptParams) bool {
	return transcribe.IsTrue(p.SentimentAnalysis)
}

func (fallible) Pending(t *transcribe.Transcript) { t.Summary = transcribe.Ptr("pending") }

func (fallible) Unavailable(t *transcribe.Transcript) { t.Summary = transcribe.Ptr("unavailable") }

func (f fallible) Apply(ctx context.Context, j *transcribe.Job) error {
	if f.fail {
		panic("analysis bug")
	}
	j.Transcript.Summary = transcribe.Ptr("done")
	return nil
}

// TestOptionalStages: PendingStage shapes what a queued transcript shows;
// a FallibleStage that fails (here: panics) marks its result unavailable
// and the transcript still completes.
func TestOptionalStages(t *testing.T) {
	for _, fail := range []bool{false, true} {
		e := newEnv(t, func(c *transcribe.Config) { c.Stages = []transcribe.Stage{fallible{fail: fail}} })
		ctx := context.Background()
		tr, err := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: e.upload(t, "p", media(1, 1)), SentimentAnalysis: transcribe.Ptr(true)})
		if err != nil || tr.Summary == nil || *tr.Summary != "pending" {
			t.Fatalf("queued transcript: %v %v", err, tr.Summary)
		}
		done := e.wait(t, "p", tr.ID)
		want := "done"
		if fail {
			want = "unavailable"
		}
		if done.Status != transcribe.StatusCompleted || *done.Summary != want {
			t.Errorf("fail=%v: status %s summary %q, want completed %q", fail, done.Status, *done.Summary, want)
		}
		off, _ := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: e.upload(t, "p", media(1, 1))})
		if off.Summary != nil {
			t.Errorf("a disabled stage's Pending ran: %v", *off.Summary)
		}
	}
}
