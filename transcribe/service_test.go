package transcribe_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
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
	if _, err := e.submit(ctx, "p1", transcribe.TranscriptParams{AudioURL: u}); err == nil {
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

// stallReader yields head, then waits for release and fails with err: a
// client whose upload is in flight, then cut off.
type stallReader struct {
	head    []byte
	started chan struct{}
	release chan struct{}
	err     error
}

func (r *stallReader) Read(p []byte) (int, error) {
	if len(r.head) > 0 {
		n := copy(p, r.head)
		r.head = r.head[n:]
		return n, nil
	}
	close(r.started)
	<-r.release
	return 0, r.err
}

// TestUploadRecordedBeforeItsBytes: while an upload's bytes stream in, its
// record already exists (a process killed now leaves a record the janitor
// sweeps, never a blob nothing points to); a cut-off upload leaves neither.
func TestUploadRecordedBeforeItsBytes(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	r := &stallReader{head: make([]byte, 1000), started: make(chan struct{}), release: make(chan struct{}), err: io.ErrUnexpectedEOF}
	done := make(chan error, 1)
	go func() { _, err := e.svc.Upload(ctx, "p", r); done <- err }()
	<-r.started
	us, err := e.store.ListUploads(ctx, transcribe.UploadQuery{})
	if err != nil || len(us) != 1 || us[0].ProjectID != "p" || us[0].TranscriptID != "" {
		t.Fatalf("no record while the bytes stream in: %+v, %v", us, err)
	}
	close(r.release)
	var re *transcribe.ReadError
	if err := <-done; !errors.As(err, &re) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("cut-off upload: %v", err)
	}
	if us, err := e.store.ListUploads(ctx, transcribe.UploadQuery{}); err != nil || len(us) != 0 {
		t.Errorf("cut-off upload left records: %+v, %v", us, err)
	}
	if e.blobs.Len() != 0 {
		t.Errorf("cut-off upload left blobs: %v", e.blobs.Keys())
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
	tr, _ = e.submit(context.Background(), "p", transcribe.TranscriptParams{AudioURL: u, AudioStartFrom: transcribe.Int64(5000)})
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
	tr, _ := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: u, DualChannel: transcribe.Bool(true)})
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
	tr, _ = e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: u, Multichannel: transcribe.Bool(true)})
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
	tr, _ := e.submit(context.Background(), "p", transcribe.TranscriptParams{AudioURL: u})
	done := e.wait(t, "p", tr.ID)
	if *done.Text != "wordab wordab" || strings.Join(order, ",") != "a,b" {
		t.Fatalf("text %q order %v", *done.Text, order)
	}
	u = e.upload(t, "p", media(1, 1))
	tr, _ = e.submit(context.Background(), "p", transcribe.TranscriptParams{AudioURL: u, SpeakerLabels: transcribe.Bool(true)})
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
	if _, err := store.ClaimJob(ctx, transcribe.Claim{Owner: "dead-worker", Now: time.Now(), Lease: 300 * time.Millisecond}); err != nil {
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
		tr, err := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: fmt.Sprintf("https://media.test/%d.wav", i)})
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
	if len(page.Entries) != 2 || page.Entries[0].ID != ids[4] || page.Entries[1].ID != ids[3] {
		t.Fatalf("first page %+v", page.Entries)
	}
	if page.Limit != 2 || page.Older != ids[3] || page.Newer != ids[4] {
		t.Fatalf("cursors %+v", page)
	}
	if it := page.Entries[0]; it.AudioURL != "https://media.test/4.wav" || !it.Completed.IsZero() || it.Status != transcribe.StatusQueued || it.Error != nil {
		t.Errorf("entry %+v", it)
	}
	older, _ := e.svc.List(ctx, "p", transcribe.ListOptions{Limit: 2, BeforeID: ids[3]})
	if len(older.Entries) != 2 || older.Entries[0].ID != ids[2] || older.Older != ids[1] {
		t.Fatalf("older page %+v", older)
	}
	oldest, _ := e.svc.List(ctx, "p", transcribe.ListOptions{Limit: 2, BeforeID: ids[1]})
	if len(oldest.Entries) != 1 || oldest.Older != "" {
		t.Fatalf("oldest page %+v", oldest)
	}
	newer, _ := e.svc.List(ctx, "p", transcribe.ListOptions{Limit: 2, AfterID: ids[0]})
	if len(newer.Entries) != 2 || newer.Entries[0].ID != ids[2] || newer.Entries[1].ID != ids[1] || newer.Older != ids[1] {
		t.Fatalf("newer page %+v", newer.Entries)
	}
	// Retention: 48 h; the clock is now 5 h after the first. Move 45 h on.
	e.now.Add(45 * time.Hour)
	kept, _ := e.svc.List(ctx, "p", transcribe.ListOptions{Limit: 10})
	if len(kept.Entries) != 3 {
		t.Fatalf("retention kept %d, want 3", len(kept.Entries))
	}
	for _, bad := range []transcribe.ListOptions{{Limit: 201}, {Limit: -1}, {Status: "done"}, {BeforeID: "nope"},
		{AfterID: "6f1c2c1e-8d7f-4f59-9a57-1b1a5b0d1d1d"}, {BeforeID: ids[4], AfterID: "6f1c2c1e-8d7f-4f59-9a57-1b1a5b0d1d1d"}} {
		var pe *transcribe.ParamError
		if _, err := e.svc.List(ctx, "p", bad); !errors.As(err, &pe) {
			t.Errorf("%+v: want ParamError, got %v", bad, err)
		}
	}
	// Another project's transcript is not a cursor.
	if _, err := e.svc.List(ctx, "other", transcribe.ListOptions{BeforeID: ids[4]}); err == nil {
		t.Error("another project's id was accepted as a cursor")
	}
	today := e.now.Now().UTC()
	byDay, err := e.svc.List(ctx, "p", transcribe.ListOptions{CreatedOn: today})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range byDay.Entries {
		if it.Created.UTC().Format("2006-01-02") != today.Format("2006-01-02") {
			t.Errorf("created_on %s returned %s", today, it.Created)
		}
	}
	thr, _ := e.svc.List(ctx, "p", transcribe.ListOptions{ThrottledOnly: true})
	if len(thr.Entries) != 0 || thr.Entries == nil {
		t.Errorf("throttled_only returned %v", thr.Entries)
	}
}

// TestListReadsNoTranscripts: a page never unseals a transcript's content
// (only its small list entry), so its cost does not grow with what the
// transcripts hold. The store counts Gets; List must make none.
func TestListReadsNoTranscripts(t *testing.T) {
	e := newEnv(t, func(c *transcribe.Config) { c.Workers = -1 })
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if _, err := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: "https://media.test/a.wav"}); err != nil {
			t.Fatal(err)
		}
	}
	counting := &countingStore{Store: e.store}
	svc, err := transcribe.NewService(transcribe.Config{Store: counting, Uploads: e.store, Blobs: e.blobs, Recognizer: e.rec,
		Decoder: rawDecoder{}, Key: e.key, Workers: -1})
	if err != nil {
		t.Fatal(err)
	}
	page, err := svc.List(ctx, "p", transcribe.ListOptions{})
	if err != nil || len(page.Entries) != 3 || page.Entries[0].AudioURL != "https://media.test/a.wav" {
		t.Fatalf("List = %+v, %v", page, err)
	}
	if counting.gets != 0 {
		t.Errorf("List made %d Store.Get calls, want 0", counting.gets)
	}
}

type countingStore struct {
	transcribe.Store
	gets int
}

func (c *countingStore) Get(ctx context.Context, id string) (*transcribe.Record, error) {
	c.gets++
	return c.Store.Get(ctx, id)
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
	tr, _ := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: u, RedactPII: transcribe.Bool(true), RedactPIIAudio: transcribe.Bool(true),
		RedactPIIPolicies: []string{"person_name"}, WebhookURL: transcribe.String("https://h.test/")})
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

func TestHugeAudioStartDoesNotCrash(t *testing.T) {
	e := newEnv(t)
	u := e.upload(t, "p", media(1, 1))
	tr, err := e.submit(context.Background(), "p", transcribe.TranscriptParams{AudioURL: u, AudioStartFrom: transcribe.Int64(576460752303424)})
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
	tr, _ := e.submit(context.Background(), "p", transcribe.TranscriptParams{AudioURL: u})
	if done := e.wait(t, "p", tr.ID); done.Status != transcribe.StatusError || strings.Contains(*done.Error, "stage bug") {
		t.Fatalf("status %s error %v", done.Status, done.Error)
	}
	// The workers are still alive.
	u = e.upload(t, "p", media(1, 1))
	e.submit(context.Background(), "p", transcribe.TranscriptParams{AudioURL: u, SpeakerLabels: transcribe.Bool(true)})
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
	if _, err := e.store.ClaimJob(ctx, transcribe.Claim{Owner: "w", Now: time.Now(), Lease: time.Minute}); !errors.Is(err, transcribe.ErrNoJob) {
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
	block := make(chan struct{})
	defer close(block)
	e.rec.mu.Lock()
	e.rec.block = block
	e.rec.mu.Unlock()
	ctx := context.Background()
	id := func(u string) string { return strings.TrimPrefix(u, uploadRef) }
	unused := e.upload(t, "p", media(1, 1))
	processing := e.upload(t, "p", media(1, 1))
	queued := e.upload(t, "p", media(1, 1))
	var trs []string
	for _, u := range []string{processing, queued} {
		tr, err := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: u})
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
	if _, err := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: unused}); err == nil {
		t.Error("Submit with an expired upload succeeded")
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

// crashingRecognizer fails its first n calls with an engine crash.
type crashingRecognizer struct {
	fakeRecognizer
	mu      sync.Mutex
	crashes int
}

func (c *crashingRecognizer) Recognize(ctx context.Context, audio []int16, o transcribe.RecognizeOptions) (*transcribe.Recognition, error) {
	c.mu.Lock()
	crash := c.crashes > 0
	if crash {
		c.crashes--
	}
	c.mu.Unlock()
	if crash {
		return nil, fmt.Errorf("isolated engine: worker died (signal SIGSEGV): %w", transcribe.ErrEngineCrashed)
	}
	return c.fakeRecognizer.Recognize(ctx, audio, o)
}

// TestEngineCrashRetriedOnceThenError: a job that crashes its engine once
// is retried and completes; one that crashes it twice ends in error with a
// reason a user understands, and is never claimed again.
func TestEngineCrashRetriedOnceThenError(t *testing.T) {
	for _, c := range []struct {
		crashes    int
		wantStatus transcribe.Status
	}{{1, transcribe.StatusCompleted}, {2, transcribe.StatusError}} {
		rec := &crashingRecognizer{crashes: c.crashes}
		e := newEnv(t, func(cfg *transcribe.Config) { cfg.Recognizer = rec; cfg.Workers = 1 })
		ctx := context.Background()
		tr, _ := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: e.upload(t, "p", media(1, 1))})
		done := e.wait(t, "p", tr.ID)
		if done.Status != c.wantStatus {
			t.Fatalf("%d crashes: status %s (%v), want %s", c.crashes, done.Status, done.Error, c.wantStatus)
		}
		r, err := e.store.Get(ctx, tr.ID)
		if err != nil || r.Failures != c.crashes || r.Claims != c.crashes+boolInt(c.crashes < 2) {
			t.Errorf("%d crashes: record failures %d claims %d, %v", c.crashes, r.Failures, r.Claims, err)
		}
		if c.wantStatus == transcribe.StatusError {
			if !strings.Contains(*done.Error, "speech engine crashed 2 times") {
				t.Errorf("reason %q", *done.Error)
			}
			if _, err := e.store.ClaimJob(ctx, transcribe.Claim{Owner: "x", Now: time.Now().Add(time.Hour), Lease: time.Minute}); !errors.Is(err, transcribe.ErrNoJob) {
				t.Errorf("a twice-crashed job is claimable again: %v", err)
			}
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestInterruptionsDoNotCount: a job whose claims ran out without an
// outcome (its process was killed) is resumed without counting a failure,
// up to the backstop.
func TestInterruptionsDoNotCount(t *testing.T) {
	store := memory.New()
	blobs := memory.NewBlobStore()
	cfg := transcribe.Config{Store: store, Blobs: blobs, Recognizer: &fakeRecognizer{}, Decoder: rawDecoder{}, Key: transcribe.NewKey(),
		Workers: -1, PollInterval: 10 * time.Millisecond}
	api, _ := transcribe.NewService(cfg)
	ctx := context.Background()
	u, _ := api.Upload(ctx, "p", bytes.NewReader(media(1, 1)))
	tr, _ := api.Submit(ctx, "p", transcribe.SubmitRequest{UploadID: u.ID})
	// Three "kill -9"s: claimed, then the lease runs out.
	now := time.Now()
	for i := 0; i < 3; i++ {
		if _, err := store.ClaimJob(ctx, transcribe.Claim{Owner: fmt.Sprint("dead-", i), Now: now, Lease: time.Millisecond}); err != nil {
			t.Fatal(err)
		}
		now = now.Add(time.Second)
	}
	cfg.Workers = 1
	live, _ := transcribe.NewService(cfg)
	live.Start()
	defer live.Close(ctx)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		g, _ := live.Get(ctx, "p", tr.ID)
		if g.Status.Final() {
			if g.Status != transcribe.StatusCompleted {
				t.Fatalf("interrupted job ended %s: %v", g.Status, *g.Error)
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("interrupted job was not resumed")
}

// TestShutdownResumesLater: a job cut off by Close (or an engine closed
// under it) is given back and completes in the next process; it never
// fails with a media error.
func TestShutdownResumesLater(t *testing.T) {
	store := memory.New()
	blobs := memory.NewBlobStore()
	closed := &fakeRecognizer{err: fmt.Errorf("pocketsphinx: recognizer closed: %w", transcribe.ErrClosed)}
	cfg := transcribe.Config{Store: store, Blobs: blobs, Recognizer: closed, Decoder: rawDecoder{}, Key: transcribe.NewKey(),
		Workers: 1, PollInterval: 10 * time.Millisecond, Lease: time.Minute}
	first, _ := transcribe.NewService(cfg)
	first.Start()
	ctx := context.Background()
	u, _ := first.Upload(ctx, "p", bytes.NewReader(media(1, 1)))
	tr, _ := first.Submit(ctx, "p", transcribe.SubmitRequest{UploadID: u.ID})
	deadline := time.Now().Add(5 * time.Second)
	for {
		r, _ := store.Get(ctx, tr.ID)
		if r.Claims >= 1 && r.LeaseUntil.Before(time.Now()) {
			break // given back
		}
		if time.Now().After(deadline) {
			t.Fatalf("job not given back: %+v", r)
		}
		time.Sleep(5 * time.Millisecond)
	}
	first.Close(ctx)
	if g, _ := first.Get(ctx, "p", tr.ID); g.Status.Final() {
		t.Fatalf("closed engine ended the job: %s %v", g.Status, *g.Error)
	}
	cfg.Recognizer = &fakeRecognizer{}
	second, _ := transcribe.NewService(cfg)
	second.Start()
	defer second.Close(ctx)
	for time.Now().Before(deadline.Add(5 * time.Second)) {
		if g, _ := second.Get(ctx, "p", tr.ID); g.Status == transcribe.StatusCompleted {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("job was not resumed by the next process")
}

// fallible is a FallibleStage and PendingStage over sentiment results.
type fallible struct{ fail bool }

func (fallible) Name() string { return "fallible" }
func (fallible) Enabled(p *transcribe.TranscriptParams) bool {
	return transcribe.IsTrue(p.SentimentAnalysis)
}
func (fallible) Pending(t *transcribe.Transcript)     { t.Summary = transcribe.String("pending") }
func (fallible) Unavailable(t *transcribe.Transcript) { t.Summary = transcribe.String("unavailable") }
func (f fallible) Apply(ctx context.Context, j *transcribe.Job) error {
	if f.fail {
		panic("analysis bug")
	}
	j.Transcript.Summary = transcribe.String("done")
	return nil
}

// TestOptionalStages: PendingStage shapes what a queued transcript shows;
// a FallibleStage that fails (here: panics) marks its result unavailable
// and the transcript still completes.
func TestOptionalStages(t *testing.T) {
	for _, fail := range []bool{false, true} {
		e := newEnv(t, func(c *transcribe.Config) { c.Stages = []transcribe.Stage{fallible{fail: fail}} })
		ctx := context.Background()
		tr, err := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: e.upload(t, "p", media(1, 1)), SentimentAnalysis: transcribe.Bool(true)})
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

// TestUploadSubmittedTwice: an upload is transcribed once; a second
// submit is a 400 naming the reason, and the first transcript completes.
func TestUploadSubmittedTwice(t *testing.T) {
	block := make(chan struct{})
	e := newEnv(t, func(c *transcribe.Config) { c.Recognizer = &fakeRecognizer{block: block} })
	defer close(block)
	ctx := context.Background()
	u := e.upload(t, "p", media(1, 1))
	first, err := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: u})
	if err != nil {
		t.Fatal(err)
	}
	var pe *transcribe.ParamError
	if _, err := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: u}); !errors.As(err, &pe) || pe.Field != "audio_url" || !strings.Contains(pe.Reason, "already used") {
		t.Fatalf("second submit: %v", err)
	}
	if tr, err := e.svc.Get(ctx, "p", first.ID); err != nil || tr.Status.Final() {
		t.Fatalf("first transcript: %v %v", tr.Status, err)
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

// TestJanitorRemovesOrphanedUploads: an upload whose transcript finished
// or was deleted (its removal was cut off by a crash) is deleted by the
// janitor; the upload of a running job is kept.
func TestJanitorRemovesOrphanedUploads(t *testing.T) {
	e := newEnv(t, func(c *transcribe.Config) {
		c.Workers = -1
		c.UploadTTL = time.Hour
		c.UploadSweepInterval = 10 * time.Millisecond
	})
	ctx := context.Background()
	finished := &transcribe.Record{ID: "00000000-0000-4000-8000-000000000001", ProjectID: "p", Status: transcribe.StatusCompleted, Created: time.Now()}
	deleted := &transcribe.Record{ID: "00000000-0000-4000-8000-000000000002", ProjectID: "p", Status: transcribe.StatusQueued, Deleted: true, Created: time.Now()}
	running := &transcribe.Record{ID: "00000000-0000-4000-8000-000000000003", ProjectID: "p", Status: transcribe.StatusProcessing, Created: time.Now()}
	for _, r := range []*transcribe.Record{finished, deleted, running} {
		if err := e.store.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	mk := func(id, tr string) { // as Service.Upload does: the bytes first, then the record
		e.blobs.Put(ctx, "uploads/"+id, strings.NewReader("x"))
		if err := e.store.CreateUpload(ctx, &transcribe.Upload{ID: id, ProjectID: "p", Size: 1, Created: e.now.Now().Add(-10 * time.Minute), TranscriptID: tr}); err != nil {
			t.Fatal(err)
		}
	}
	mk("u-finished", finished.ID)
	mk("u-deleted", deleted.ID)
	mk("u-running", running.ID)
	mk("u-ghost", "00000000-0000-4000-8000-00000000dead")
	deadline := time.Now().Add(5 * time.Second)
	for e.blobs.Len() > 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if keys := e.blobs.Keys(); len(keys) != 1 || keys[0] != "uploads/u-running" {
		t.Fatalf("blobs left: %v", keys)
	}
	for _, id := range []string{"u-finished", "u-deleted", "u-ghost"} {
		if _, err := e.store.GetUpload(ctx, id); !errors.Is(err, transcribe.ErrNotFound) {
			t.Errorf("upload record %s kept: %v", id, err)
		}
	}
}
