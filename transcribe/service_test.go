package transcribe_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
)

// rawDecoder is a test Decoder: the "media" is raw little-endian int16
// samples, channel-interleaved, preceded by one byte giving the channel
// count. A file starting with "BAD" is undecodable.
type rawDecoder struct{}

func (rawDecoder) Decode(ctx context.Context, path string, rate int, keep bool) (*transcribe.PCM, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if bytes.HasPrefix(b, []byte("BAD")) {
		return nil, &transcribe.MediaError{Reason: "unsupported media format"}
	}
	nc := int(b[0])
	b = b[1:]
	n := len(b) / 2 / nc
	p := &transcribe.PCM{SampleRate: rate, Channels: make([][]int16, nc)}
	for c := range p.Channels {
		p.Channels[c] = make([]int16, n)
		for i := 0; i < n; i++ {
			p.Channels[c][i] = int16(binary.LittleEndian.Uint16(b[(i*nc+c)*2:]))
		}
	}
	if !keep && nc > 1 {
		p.Channels = [][]int16{p.Mono()}
	}
	return p, nil
}

// media builds rawDecoder input: seconds of a loud square wave per channel
// (channel c is silent when quiet[c]).
func media(channels int, seconds float64, quiet ...bool) []byte {
	n := int(seconds * 16000)
	var buf bytes.Buffer
	buf.WriteByte(byte(channels))
	for i := 0; i < n; i++ {
		for c := 0; c < channels; c++ {
			v := int16(8000)
			if (i/40)%2 == 0 {
				v = -8000
			}
			if c < len(quiet) && quiet[c] {
				v = 0
			}
			binary.Write(&buf, binary.LittleEndian, v)
		}
	}
	return buf.Bytes()
}

// fakeRecognizer returns one word per 500 ms of non-silent audio, named
// after the channel's first sample sign, and records what it was given.
type fakeRecognizer struct {
	mu      sync.Mutex
	lengths []int
	block   chan struct{}
	err     error
}

func (f *fakeRecognizer) Recognize(ctx context.Context, audio []int16, o transcribe.RecognizeOptions) (*transcribe.Recognition, error) {
	f.mu.Lock()
	f.lengths = append(f.lengths, len(audio))
	block, err := f.block, f.err
	f.mu.Unlock()
	if block != nil {
		select {
		case <-block:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if err != nil {
		return nil, err
	}
	var ws []transcribe.Word
	for i := 0; i+8000 <= len(audio); i += 8000 {
		loud := false
		for _, v := range audio[i : i+8000] {
			if v != 0 {
				loud = true
				break
			}
		}
		if loud {
			ms := int64(i / 16)
			ws = append(ws, transcribe.Word{Text: "word", Start: ms, End: ms + 400, Confidence: 0.8})
		}
	}
	return &transcribe.Recognition{Words: ws, Model: "fake"}, nil
}

func (f *fakeRecognizer) Features() transcribe.RecognizerFeatures {
	return transcribe.RecognizerFeatures{SampleRate: 16000, WordTimestamps: true, Languages: []string{"en"}}
}
func (f *fakeRecognizer) Close() error { return nil }

type env struct {
	svc   *transcribe.Service
	store *memory.Store
	blobs *memory.BlobStore
	rec   *fakeRecognizer
	notes chan transcribe.Notification
	now   *clock
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

func newEnv(t *testing.T, mutate ...func(*transcribe.Config)) *env {
	t.Helper()
	e := &env{store: memory.New(), blobs: memory.NewBlobStore(), rec: &fakeRecognizer{}, notes: make(chan transcribe.Notification, 10),
		now: &clock{t: time.Now()}}
	cfg := transcribe.Config{
		Store: e.store, Blobs: e.blobs, Recognizer: e.rec, Decoder: rawDecoder{}, Key: transcribe.NewKey(),
		PublicURL: "http://earshot.test", Workers: 2, PollInterval: 10 * time.Millisecond,
		Notifier: transcribe.NotifierFunc(func(ctx context.Context, n transcribe.Notification) error { e.notes <- n; return nil }),
		Now:      e.now.Now,
	}
	for _, m := range mutate {
		m(&cfg)
	}
	svc, err := transcribe.NewService(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.svc = svc
	svc.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		svc.Close(ctx)
	})
	return e
}

func (e *env) upload(t *testing.T, project string, b []byte) string {
	t.Helper()
	u, err := e.svc.Upload(context.Background(), project, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return e.svc.UploadURL(u.ID)
}

func (e *env) wait(t *testing.T, project, id string) *transcribe.Transcript {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		tr, err := e.svc.Get(context.Background(), project, id)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Status.Final() {
			return tr
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("transcript %s did not finish", id)
	return nil
}

func TestSubmitProcessComplete(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := e.upload(t, "p1", media(1, 2))
	tr, err := e.svc.Submit(ctx, "p1", transcribe.TranscriptParams{AudioURL: u,
		WebhookURL: transcribe.String("https://hooks.test/x?a=1"), WebhookAuthHeaderName: transcribe.String("X-Secret"), WebhookAuthHeaderValue: transcribe.String("v")})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Status != transcribe.StatusQueued || tr.WebhookAuthHeaderValue != nil || !tr.WebhookAuth {
		t.Fatalf("submit returned %+v", tr)
	}
	done := e.wait(t, "p1", tr.ID)
	if done.Status != transcribe.StatusCompleted {
		t.Fatalf("status %s error %v", done.Status, *done.Error)
	}
	if len(done.Words) != 4 || *done.Text != "word word word word" || *done.Confidence != 0.8 || *done.AudioDuration != 2 {
		t.Fatalf("result %+v", done)
	}
	if *done.LanguageCode != "en" || *done.SpeechModelUsed != "fake" {
		t.Errorf("language %v model %v", *done.LanguageCode, *done.SpeechModelUsed)
	}
	n := <-e.notes
	if n.TranscriptID != tr.ID || n.Status != transcribe.StatusCompleted || n.URL != "https://hooks.test/x?a=1" || n.HeaderName != "X-Secret" || n.HeaderValue != "v" {
		t.Fatalf("notification %+v", n)
	}
	if e.blobs.Len() != 0 {
		t.Errorf("upload not deleted after transcription: %v", e.blobs.Keys())
	}
	// The upload cannot be used again.
	if _, err := e.svc.Submit(ctx, "p1", transcribe.TranscriptParams{AudioURL: u}); err == nil {
		t.Error("deleted upload accepted")
	}
	// Stored data is sealed.
	rec, _ := e.store.Get(ctx, tr.ID)
	if bytes.Contains(rec.Data, []byte("word")) || bytes.Contains(rec.Data, []byte("hooks.test")) {
		t.Error("record data not encrypted")
	}
}

func TestUploadErrors(t *testing.T) {
	e := newEnv(t, func(c *transcribe.Config) { c.MaxUploadBytes = 100 })
	ctx := context.Background()
	if _, err := e.svc.Upload(ctx, "p", bytes.NewReader(nil)); !errors.Is(err, transcribe.ErrEmptyUpload) {
		t.Errorf("empty: %v", err)
	}
	if _, err := e.svc.Upload(ctx, "p", bytes.NewReader(make([]byte, 101))); !errors.Is(err, transcribe.ErrTooLarge) {
		t.Errorf("too large: %v", err)
	}
	if _, err := e.svc.Upload(ctx, "p", bytes.NewReader(make([]byte, 100))); err != nil {
		t.Errorf("at limit: %v", err)
	}
	if e.blobs.Len() != 1 {
		t.Errorf("failed uploads left blobs: %v", e.blobs.Keys())
	}
}

func TestProjectIsolation(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := e.upload(t, "p1", media(1, 1))
	if _, err := e.svc.Submit(ctx, "p2", transcribe.TranscriptParams{AudioURL: u}); !errors.Is(err, transcribe.ErrForbidden) {
		t.Fatalf("cross-project upload: %v", err)
	}
	tr, err := e.svc.Submit(ctx, "p1", transcribe.TranscriptParams{AudioURL: u})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []func() error{
		func() error { _, err := e.svc.Get(ctx, "p2", tr.ID); return err },
		func() error { _, err := e.svc.Delete(ctx, "p2", tr.ID); return err },
	} {
		if err := f(); !errors.Is(err, transcribe.ErrNotFound) {
			t.Errorf("cross-project access: %v", err)
		}
	}
	page, err := e.svc.List(ctx, "p2", transcribe.ListOptions{})
	if err != nil || len(page.Transcripts) != 0 || page.Transcripts == nil {
		t.Errorf("p2 list: %v %+v", err, page)
	}
}

func TestAudioRange(t *testing.T) {
	e := newEnv(t)
	u := e.upload(t, "p", media(1, 4))
	tr, err := e.svc.Submit(context.Background(), "p", transcribe.TranscriptParams{AudioURL: u,
		AudioStartFrom: transcribe.Int64(1000), AudioEndAt: transcribe.Int64(3000)})
	if err != nil {
		t.Fatal(err)
	}
	done := e.wait(t, "p", tr.ID)
	if done.Status != transcribe.StatusCompleted {
		t.Fatal(*done.Error)
	}
	if got := e.rec.lengths[0]; got != 32000 {
		t.Errorf("recognizer got %d samples, want 32000", got)
	}
	if done.Words[0].Start != 1000 || done.Words[len(done.Words)-1].Start != 2500 {
		t.Errorf("word times not offset: %+v", done.Words)
	}
	// start past the end fails with a reason.
	u = e.upload(t, "p", media(1, 1))
	tr, _ = e.svc.Submit(context.Background(), "p", transcribe.TranscriptParams{AudioURL: u, AudioStartFrom: transcribe.Int64(5000)})
	if done := e.wait(t, "p", tr.ID); done.Status != transcribe.StatusError || !strings.Contains(*done.Error, "audio_start_from") {
		t.Errorf("start past end: %s %v", done.Status, done.Error)
	}
}

func TestMediaFailures(t *testing.T) {
	e := newEnv(t)
	cases := map[string][]byte{
		"unsupported media format": []byte("BAD stuff"),
		"silent":                   media(1, 1, true),
		"no audio":                 {1},
	}
	for want, b := range cases {
		u := e.upload(t, "p", b)
		tr, err := e.svc.Submit(context.Background(), "p", transcribe.TranscriptParams{AudioURL: u})
		if err != nil {
			t.Fatal(err)
		}
		done := e.wait(t, "p", tr.ID)
		if done.Status != transcribe.StatusError || done.Error == nil || !strings.Contains(*done.Error, want) {
			t.Errorf("%s: status %s error %v", want, done.Status, done.Error)
		}
		if done.Text != nil || done.Words != nil {
			t.Errorf("%s: failed transcript has results", want)
		}
		select {
		case n := <-e.notes:
			t.Errorf("notified without webhook_url: %+v", n)
		default:
		}
	}
}

func TestRecognizerErrorIsGeneric(t *testing.T) {
	e := newEnv(t)
	e.rec.err = errors.New("segfault-ish detail /secret/path")
	u := e.upload(t, "p", media(1, 1))
	tr, _ := e.svc.Submit(context.Background(), "p", transcribe.TranscriptParams{AudioURL: u})
	done := e.wait(t, "p", tr.ID)
	if done.Status != transcribe.StatusError || strings.Contains(*done.Error, "secret") {
		t.Fatalf("status %s error %q", done.Status, *done.Error)
	}
}

func TestMultichannel(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := e.upload(t, "p", media(2, 1, false, true)) // channel 2 silent
	tr, _ := e.svc.Submit(ctx, "p", transcribe.TranscriptParams{AudioURL: u, DualChannel: transcribe.Bool(true)})
	done := e.wait(t, "p", tr.ID)
	if done.Status != transcribe.StatusCompleted {
		t.Fatal(*done.Error)
	}
	for _, w := range done.Words {
		if w.Channel == nil || *w.Channel != "1" {
			t.Errorf("word channel %v", w.Channel)
		}
	}
	if *done.AudioChannels != 2 {
		t.Errorf("audio_channels %v", *done.AudioChannels)
	}
	u = e.upload(t, "p", media(1, 1))
	tr, _ = e.svc.Submit(ctx, "p", transcribe.TranscriptParams{AudioURL: u, Multichannel: transcribe.Bool(true)})
	if done := e.wait(t, "p", tr.ID); done.Status != transcribe.StatusError || !strings.Contains(*done.Error, "mono") {
		t.Errorf("mono multichannel: %s %v", done.Status, done.Error)
	}
}

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
	tr, _ := e.svc.Submit(context.Background(), "p", transcribe.TranscriptParams{AudioURL: u})
	done := e.wait(t, "p", tr.ID)
	if *done.Text != "wordab wordab" || strings.Join(order, ",") != "a,b" {
		t.Fatalf("text %q order %v", *done.Text, order)
	}
	u = e.upload(t, "p", media(1, 1))
	tr, _ = e.svc.Submit(context.Background(), "p", transcribe.TranscriptParams{AudioURL: u, SpeakerLabels: transcribe.Bool(true)})
	if done := e.wait(t, "p", tr.ID); done.Status != transcribe.StatusError || *done.Error != "too few speakers" {
		t.Fatalf("failing stage: %s %v", done.Status, done.Error)
	}
}

func TestDeleteWhileProcessing(t *testing.T) {
	e := newEnv(t)
	block := make(chan struct{})
	e.rec.block = block
	ctx := context.Background()
	u := e.upload(t, "p", media(1, 1))
	tr, _ := e.svc.Submit(ctx, "p", transcribe.TranscriptParams{AudioURL: u})
	for { // wait until it is processing
		g, _ := e.svc.Get(ctx, "p", tr.ID)
		if g.Status == transcribe.StatusProcessing {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	del, err := e.svc.Delete(ctx, "p", tr.ID)
	if err != nil || !del.IsDeleted || *del.Text != transcribe.DeletedText {
		t.Fatalf("delete: %v %+v", err, del)
	}
	close(block)
	time.Sleep(100 * time.Millisecond)
	g, _ := e.svc.Get(ctx, "p", tr.ID)
	if !g.IsDeleted || *g.Text != transcribe.DeletedText || g.Words != nil {
		t.Fatalf("deleted transcript was overwritten by its job: %+v", g)
	}
	if e.blobs.Len() != 0 {
		t.Errorf("upload kept after delete: %v", e.blobs.Keys())
	}
	if _, err := e.svc.GetCompleted(ctx, "p", tr.ID); !errors.Is(err, transcribe.ErrNotReady) {
		t.Errorf("export of deleted transcript: %v", err)
	}
}

// TestLeaseRecovery: a job claimed by a worker that died is resumed once
// its lease runs out.
func TestLeaseRecovery(t *testing.T) {
	store := memory.New()
	blobs := memory.NewBlobStore()
	key := transcribe.NewKey()
	cfg := transcribe.Config{Store: store, Blobs: blobs, Recognizer: &fakeRecognizer{}, Decoder: rawDecoder{}, Key: key,
		PublicURL: "http://earshot.test", Workers: 1, PollInterval: 10 * time.Millisecond, Lease: 300 * time.Millisecond}
	dead, _ := transcribe.NewService(cfg) // never started: plays the dead process
	ctx := context.Background()
	u, _ := dead.Upload(ctx, "p", bytes.NewReader(media(1, 1)))
	tr, _ := dead.Submit(ctx, "p", transcribe.TranscriptParams{AudioURL: dead.UploadURL(u.ID)})
	if _, err := store.ClaimJob(ctx, "dead-worker", time.Now(), 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	live, _ := transcribe.NewService(cfg)
	live.Start()
	defer live.Close(ctx)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		g, _ := live.Get(ctx, "p", tr.ID)
		if g.Status == transcribe.StatusCompleted {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("job of a dead worker was not resumed")
}

func TestList(t *testing.T) {
	e := newEnv(t, func(c *transcribe.Config) { c.Workers = -1; c.Retention = 48 * time.Hour })
	ctx := context.Background()
	var ids []string
	for i := 0; i < 5; i++ {
		tr, err := e.svc.Submit(ctx, "p", transcribe.TranscriptParams{AudioURL: "https://media.test/a.wav"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tr.ID)
		e.now.Add(time.Hour)
	}
	page, err := e.svc.List(ctx, "p", transcribe.ListOptions{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Transcripts) != 2 || page.Transcripts[0].ID != ids[4] || page.Transcripts[1].ID != ids[3] {
		t.Fatalf("first page %+v", page.Transcripts)
	}
	pd := page.PageDetails
	if pd.Limit != 2 || pd.ResultCount != 2 || pd.PrevURL == nil || !strings.Contains(*pd.PrevURL, "before_id="+ids[3]) ||
		!strings.HasPrefix(pd.CurrentURL, "http://earshot.test/v2/transcript?") || pd.NextURL == nil {
		t.Fatalf("page details %+v", pd)
	}
	if !strings.HasPrefix(page.Transcripts[0].ResourceURL, "http://earshot.test/v2/transcript/") || page.Transcripts[0].Completed != nil {
		t.Errorf("item %+v", page.Transcripts[0])
	}
	older, _ := e.svc.List(ctx, "p", transcribe.ListOptions{Limit: 2, BeforeID: ids[3]})
	if len(older.Transcripts) != 2 || older.Transcripts[0].ID != ids[2] || older.PageDetails.PrevURL == nil {
		t.Fatalf("older page %+v", older)
	}
	oldest, _ := e.svc.List(ctx, "p", transcribe.ListOptions{Limit: 2, BeforeID: ids[1]})
	if len(oldest.Transcripts) != 1 || oldest.PageDetails.PrevURL != nil {
		t.Fatalf("oldest page %+v", oldest)
	}
	newer, _ := e.svc.List(ctx, "p", transcribe.ListOptions{Limit: 2, AfterID: ids[0]})
	if len(newer.Transcripts) != 2 || newer.Transcripts[0].ID != ids[2] || newer.Transcripts[1].ID != ids[1] {
		t.Fatalf("newer page %+v", newer.Transcripts)
	}
	// Retention: 48 h; the clock is now 5 h after the first. Move 45 h on.
	e.now.Add(45 * time.Hour)
	kept, _ := e.svc.List(ctx, "p", transcribe.ListOptions{Limit: 10})
	if len(kept.Transcripts) != 3 {
		t.Fatalf("retention kept %d, want 3", len(kept.Transcripts))
	}
	for _, bad := range []transcribe.ListOptions{{Limit: 201}, {Limit: -1}, {Status: "done"}, {CreatedOn: "2024-13-01"}, {BeforeID: "nope"}, {AfterID: "6f1c2c1e-8d7f-4f59-9a57-1b1a5b0d1d1d"}} {
		var pe *transcribe.ParamError
		if _, err := e.svc.List(ctx, "p", bad); !errors.As(err, &pe) {
			t.Errorf("%+v: want ParamError, got %v", bad, err)
		}
	}
	today := e.now.Now().UTC().Format("2006-01-02")
	byDay, err := e.svc.List(ctx, "p", transcribe.ListOptions{CreatedOn: today})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range byDay.Transcripts {
		if !strings.HasPrefix(it.Created, today) {
			t.Errorf("created_on %s returned %s", today, it.Created)
		}
	}
	thr, _ := e.svc.List(ctx, "p", transcribe.ListOptions{ThrottledOnly: true})
	if len(thr.Transcripts) != 0 {
		t.Errorf("throttled_only returned %d", len(thr.Transcripts))
	}
}

func TestRedactedAudioURL(t *testing.T) {
	e := newEnv(t, func(c *transcribe.Config) {
		c.Stages = []transcribe.Stage{transcribe.StageFunc{StageName: "redact", When: func(p *transcribe.TranscriptParams) bool { return transcribe.IsTrue(p.RedactPIIAudio) },
			Run: func(ctx context.Context, j *transcribe.Job) error {
				key := transcribe.RedactedAudioKey(j.Transcript.ID, "wav")
				if _, err := j.Blobs.Put(ctx, key, strings.NewReader("RIFF....")); err != nil {
					return err
				}
				j.Transcript.RedactedKey = key
				return nil
			}}}
	})
	ctx := context.Background()
	u := e.upload(t, "p", media(1, 1))
	tr, _ := e.svc.Submit(ctx, "p", transcribe.TranscriptParams{AudioURL: u, RedactPII: transcribe.Bool(true), RedactPIIAudio: transcribe.Bool(true),
		RedactPIIPolicies: []string{"person_name"}, WebhookURL: transcribe.String("https://h.test/")})
	e.wait(t, "p", tr.ID)
	<-e.notes
	n := <-e.notes
	if n.Event != transcribe.EventRedactedAudio || n.RedactedAudioURL != e.svc.RedactedAudioURL(tr.ID) {
		t.Fatalf("redacted-audio notification %+v", n)
	}
	if _, _, err := e.svc.RedactedAudio(ctx, "p", tr.ID); err != nil {
		t.Fatal(err)
	}
	url := e.svc.RedactedAudioURL(tr.ID)
	sig := url[strings.LastIndex(url, "/")+1:]
	rc, name, err := e.svc.OpenRedactedAudio(ctx, tr.ID, sig, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(rc)
	rc.Close()
	if string(b) != "RIFF...." || !strings.HasSuffix(name, ".wav") {
		t.Fatalf("got %q %q", b, name)
	}
	if _, _, err := e.svc.OpenRedactedAudio(ctx, tr.ID, strings.Repeat("0", len(sig)), time.Hour); !errors.Is(err, transcribe.ErrNotFound) {
		t.Errorf("bad signature: %v", err)
	}
	e.now.Add(25 * time.Hour)
	if _, _, err := e.svc.OpenRedactedAudio(ctx, tr.ID, sig, 24*time.Hour); !errors.Is(err, transcribe.ErrNotFound) {
		t.Errorf("expired: %v", err)
	}
	if e.blobs.Len() != 0 {
		t.Errorf("expired redacted audio not deleted: %v", e.blobs.Keys())
	}
	// Not requested: ErrNotReady.
	u = e.upload(t, "p", media(1, 1))
	tr2, _ := e.svc.Submit(ctx, "p", transcribe.TranscriptParams{AudioURL: u})
	e.wait(t, "p", tr2.ID)
	if _, _, err := e.svc.RedactedAudio(ctx, "p", tr2.ID); !errors.Is(err, transcribe.ErrNotReady) {
		t.Errorf("not requested: %v", err)
	}
}

func TestHugeAudioStartDoesNotCrash(t *testing.T) {
	e := newEnv(t)
	u := e.upload(t, "p", media(1, 1))
	tr, err := e.svc.Submit(context.Background(), "p", transcribe.TranscriptParams{AudioURL: u, AudioStartFrom: transcribe.Int64(576460752303424)})
	if err != nil {
		t.Fatal(err)
	}
	if done := e.wait(t, "p", tr.ID); done.Status != transcribe.StatusError || !strings.Contains(*done.Error, "audio_start_from") {
		t.Fatalf("status %s error %v", done.Status, done.Error)
	}
}

func TestPanickingStageFailsTheJobOnly(t *testing.T) {
	boom := transcribe.StageFunc{StageName: "boom", Run: func(context.Context, *transcribe.Job) error { panic("stage bug") }}
	e := newEnv(t, func(c *transcribe.Config) { c.Stages = []transcribe.Stage{boom} })
	u := e.upload(t, "p", media(1, 1))
	tr, _ := e.svc.Submit(context.Background(), "p", transcribe.TranscriptParams{AudioURL: u})
	if done := e.wait(t, "p", tr.ID); done.Status != transcribe.StatusError || strings.Contains(*done.Error, "stage bug") {
		t.Fatalf("status %s error %v", done.Status, done.Error)
	}
	// The workers are still alive.
	u = e.upload(t, "p", media(1, 1))
	e.svc.Submit(context.Background(), "p", transcribe.TranscriptParams{AudioURL: u, SpeakerLabels: transcribe.Bool(true)})
}

func TestDeleteQueuedEndsInError(t *testing.T) {
	e := newEnv(t, func(c *transcribe.Config) { c.Workers = -1 })
	ctx := context.Background()
	tr, _ := e.svc.Submit(ctx, "p", transcribe.TranscriptParams{AudioURL: "https://media.test/a.wav"})
	del, err := e.svc.Delete(ctx, "p", tr.ID)
	if err != nil {
		t.Fatal(err)
	}
	if del.Status != transcribe.StatusError || *del.Error != transcribe.DeletedText || !del.IsDeleted {
		t.Fatalf("deleted queued transcript: %s %v", del.Status, del.Error)
	}
	if _, err := e.store.ClaimJob(ctx, "w", time.Now(), time.Minute); !errors.Is(err, transcribe.ErrNoJob) {
		t.Fatalf("deleted job still claimable: %v", err)
	}
}

func TestWordBoostDeduplicated(t *testing.T) {
	p := transcribe.TranscriptParams{AudioURL: "https://x/a", WordBoost: []string{"Earshot", "earshot", "EARSHOT!", "other"}}
	for i := 0; i < 5000; i++ {
		p.WordBoost = append(p.WordBoost, "other")
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	p.Normalize()
	if len(p.WordBoost) != 2 || p.WordBoost[0] != "Earshot" {
		t.Fatalf("word_boost %q", p.WordBoost)
	}
}

// TestUploadExpiry: the janitor deletes an upload no transcript used
// within UploadTTL (blob and record), and keeps a young unused upload and
// the uploads of a processing and of a queued transcript however old.
func TestUploadExpiry(t *testing.T) {
	e := newEnv(t, func(c *transcribe.Config) {
		c.Workers = 1
		c.UploadTTL = time.Hour
		c.UploadSweepInterval = 10 * time.Millisecond
	})
	if got := e.svc.Config().UploadTTL; got != time.Hour {
		t.Fatalf("UploadTTL = %v", got)
	}
	block := make(chan struct{})
	defer close(block)
	e.rec.mu.Lock()
	e.rec.block = block
	e.rec.mu.Unlock()
	ctx := context.Background()
	id := func(u string) string { return u[strings.LastIndex(u, "/")+1:] }
	unused := e.upload(t, "p", media(1, 1))
	processing := e.upload(t, "p", media(1, 1))
	queued := e.upload(t, "p", media(1, 1))
	var trs []string
	for _, u := range []string{processing, queued} {
		tr, err := e.svc.Submit(ctx, "p", transcribe.TranscriptParams{AudioURL: u})
		if err != nil {
			t.Fatal(err)
		}
		trs = append(trs, tr.ID)
		if up, err := e.store.GetUpload(ctx, id(u)); err != nil || up.TranscriptID != tr.ID {
			t.Fatalf("Submit did not attach the upload: %+v, %v", up, err)
		}
	}
	exists := func(u string) bool {
		t.Helper()
		_, err := e.store.GetUpload(ctx, id(u))
		_, berr := e.blobs.Open(ctx, "uploads/"+id(u))
		if (err == nil) != (berr == nil) {
			t.Fatalf("upload %s: record err %v but blob err %v", id(u), err, berr)
		}
		return err == nil
	}
	// Younger than the TTL: nothing expires.
	e.now.Add(59 * time.Minute)
	time.Sleep(50 * time.Millisecond)
	if !exists(unused) {
		t.Fatal("upload deleted before UploadTTL")
	}
	e.now.Add(2 * time.Minute)
	young := e.upload(t, "p", media(1, 1))
	deadline := time.Now().Add(5 * time.Second)
	for exists(unused) {
		if time.Now().After(deadline) {
			t.Fatal("unused upload older than UploadTTL was not deleted")
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // a few more sweeps
	for name, u := range map[string]string{"young": young, "processing": processing, "queued": queued} {
		if !exists(u) {
			t.Errorf("%s upload was deleted", name)
		}
	}
	// The test means something only while both transcripts are unfinished.
	for _, trID := range trs {
		if tr, err := e.svc.Get(ctx, "p", trID); err != nil || tr.Status.Final() {
			t.Fatalf("transcript %s: %v, %v; want unfinished", trID, tr.Status, err)
		}
	}
	if tr, _ := e.svc.Get(ctx, "p", trs[1]); tr.Status != transcribe.StatusQueued {
		t.Errorf("second transcript is %s, want queued", tr.Status)
	}
	if _, err := e.svc.Submit(ctx, "p", transcribe.TranscriptParams{AudioURL: unused}); err == nil {
		t.Error("Submit with an expired upload succeeded")
	}
}
