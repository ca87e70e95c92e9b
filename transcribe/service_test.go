package transcribe_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
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
	p.Format = "raw"
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
	key   []byte
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
		now: &clock{t: time.Now()}, key: transcribe.NewKey()}
	cfg := transcribe.Config{
		Store: e.store, Blobs: e.blobs, Recognizer: e.rec, Decoder: rawDecoder{}, Key: e.key,
		Workers: 2, PollInterval: 10 * time.Millisecond,
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
	return uploadRef + u.ID
}

// uploadRef marks an audio_url that names an upload by id (what httpapi
// makes of its own upload URLs).
const uploadRef = "upload:"

// submit submits p, taking an audio_url of uploadRef+id as that upload.
func (e *env) submit(ctx context.Context, project string, p transcribe.TranscriptParams) (*transcribe.Transcript, error) {
	req := transcribe.SubmitRequest{Params: p}
	if id, ok := strings.CutPrefix(p.AudioURL, uploadRef); ok {
		req.UploadID, req.Params.AudioURL = id, "https://earshot.test/v2/upload/"+id
	}
	return e.svc.Submit(ctx, project, req)
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
	tr, err := e.submit(ctx, "p1", transcribe.TranscriptParams{AudioURL: u,
		WebhookURL: transcribe.Ptr("https://hooks.test/x?a=1"), WebhookAuthHeaderName: transcribe.Ptr("X-Secret"), WebhookAuthHeaderValue: transcribe.Ptr("v")})
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
	if _, err := e.submit(ctx, "p1", transcribe.TranscriptParams{AudioURL: u}); err == nil {
		t.Error("deleted upload accepted")
	}
	// Stored data is sealed.
	rec, _ := e.store.Get(ctx, tr.ID)
	if bytes.Contains(rec.Data, []byte("word")) || bytes.Contains(rec.Data, []byte("hooks.test")) {
		t.Error("record data not encrypted")
	}
}

func TestProjectIsolation(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := e.upload(t, "p1", media(1, 1))
	if _, err := e.submit(ctx, "p2", transcribe.TranscriptParams{AudioURL: u}); !errors.Is(err, transcribe.ErrForbidden) {
		t.Fatalf("cross-project upload: %v", err)
	}
	tr, err := e.submit(ctx, "p1", transcribe.TranscriptParams{AudioURL: u})
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
	if err != nil || len(page.Entries) != 0 || page.Entries == nil {
		t.Errorf("p2 list: %v %+v", err, page)
	}
}

func TestAudioRange(t *testing.T) {
	e := newEnv(t)
	u := e.upload(t, "p", media(1, 4))
	tr, err := e.submit(context.Background(), "p", transcribe.TranscriptParams{AudioURL: u,
		AudioStartFrom: transcribe.Ptr(int64(1000)), AudioEndAt: transcribe.Ptr(int64(3000))})
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
	tr, _ = e.submit(context.Background(), "p", transcribe.TranscriptParams{AudioURL: u, AudioStartFrom: transcribe.Ptr(int64(5000))})
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
		tr, err := e.submit(context.Background(), "p", transcribe.TranscriptParams{AudioURL: u})
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
	tr, _ := e.submit(context.Background(), "p", transcribe.TranscriptParams{AudioURL: u})
	done := e.wait(t, "p", tr.ID)
	if done.Status != transcribe.StatusError || strings.Contains(*done.Error, "secret") {
		t.Fatalf("status %s error %q", done.Status, *done.Error)
	}
}

func TestMultichannel(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := e.upload(t, "p", media(2, 1, false, true)) // channel 2 silent
	tr, _ := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: u, DualChannel: transcribe.Ptr(true)})
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
	tr, _ = e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: u, Multichannel: transcribe.Ptr(true)})
	if done := e.wait(t, "p", tr.ID); done.Status != transcribe.StatusError || !strings.Contains(*done.Error, "mono") {
		t.Errorf("mono multichannel: %s %v", done.Status, done.Error)
	}
}

func TestDeleteWhileProcessing(t *testing.T) {
	e := newEnv(t)
	block := make(chan struct{})
	e.rec.block = block
	ctx := context.Background()
	u := e.upload(t, "p", media(1, 1))
	tr, _ := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: u})
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
		Workers: 1, PollInterval: 10 * time.Millisecond, Lease: 300 * time.Millisecond}
	dead, _ := transcribe.NewService(cfg) // never started: plays the dead process
	ctx := context.Background()
	u, _ := dead.Upload(ctx, "p", bytes.NewReader(media(1, 1)))
	tr, _ := dead.Submit(ctx, "p", transcribe.SubmitRequest{UploadID: u.ID})
	if _, err := store.ClaimJob(ctx, driver.Claim{Owner: "dead-worker", Now: time.Now(), Lease: 300 * time.Millisecond}); err != nil {
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

func TestHugeAudioStartDoesNotCrash(t *testing.T) {
	e := newEnv(t)
	u := e.upload(t, "p", media(1, 1))
	tr, err := e.submit(context.Background(), "p", transcribe.TranscriptParams{AudioURL: u, AudioStartFrom: transcribe.Ptr(int64(576460752303424))})
	if err != nil {
		t.Fatal(err)
	}
	if done := e.wait(t, "p", tr.ID); done.Status != transcribe.StatusError || !strings.Contains(*done.Error, "audio_start_from") {
		t.Fatalf("status %s error %v", done.Status, done.Error)
	}
}

func TestDeleteQueuedEndsInError(t *testing.T) {
	e := newEnv(t, func(c *transcribe.Config) { c.Workers = -1 })
	ctx := context.Background()
	tr, _ := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: "https://media.test/a.wav"})
	del, err := e.svc.Delete(ctx, "p", tr.ID)
	if err != nil {
		t.Fatal(err)
	}
	if del.Status != transcribe.StatusError || *del.Error != transcribe.DeletedText || !del.IsDeleted {
		t.Fatalf("deleted queued transcript: %s %v", del.Status, del.Error)
	}
	if _, err := e.store.ClaimJob(ctx, driver.Claim{Owner: "w", Now: time.Now(), Lease: time.Minute}); !errors.Is(err, transcribe.ErrNoJob) {
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

// TestStatusChangesGoThroughTheTable: every status change the Service
// makes on its paths (claim, completion, failure, deletion of an
// unfinished transcript) is one the transition table allows, and is seen
// by the table's hook.
func TestStatusChangesGoThroughTheTable(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	restore := transcribe.SetTransitionHook(func(from, to transcribe.Status) {
		if !transcribe.CanTransition(from, to) {
			t.Errorf("status change %s → %s not in the table", from, to)
		}
		mu.Lock()
		seen = append(seen, string(from)+">"+string(to))
		mu.Unlock()
	})
	defer restore()
	got := func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := seen
		seen = nil
		return out
	}
	e := newEnv(t, func(c *transcribe.Config) { c.Workers = 1 })
	ctx := context.Background()
	tr, _ := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: e.upload(t, "p", media(1, 1))})
	e.wait(t, "p", tr.ID)
	if g := got(); !slices.Equal(g, []string{"queued>processing", "processing>completed"}) {
		t.Errorf("completed job: %v", g)
	}
	tr, _ = e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: e.upload(t, "p", []byte("BAD media"))})
	e.wait(t, "p", tr.ID)
	if g := got(); !slices.Equal(g, []string{"queued>processing", "processing>error"}) {
		t.Errorf("failed job: %v", g)
	}
	if _, err := e.svc.Delete(ctx, "p", tr.ID); err != nil {
		t.Fatal(err)
	}
	if g := got(); len(g) != 0 {
		t.Errorf("deleting a finished transcript changed its status: %v", g)
	}
	e2 := newEnv(t, func(c *transcribe.Config) { c.Workers = -1 })
	tr, _ = e2.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: "https://media.test/a.wav"})
	if _, err := e2.svc.Delete(ctx, "p", tr.ID); err != nil {
		t.Fatal(err)
	}
	if g := got(); !slices.Equal(g, []string{"queued>error"}) {
		t.Errorf("deleted queued transcript: %v", g)
	}
}

// TestStaleTempRemovedAtStart: media files a crashed run left in the
// Service's own TempDir are deleted by Start; other files are kept.
func TestStaleTempRemovedAtStart(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, "earshot-media-123")
	other := filepath.Join(dir, "keep.txt")
	for _, f := range []string{stale, other} {
		if err := os.WriteFile(f, []byte("plaintext media"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	newEnv(t, func(c *transcribe.Config) { c.TempDir = dir })
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale media survived Start: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("an unrelated file was removed: %v", err)
	}
}
