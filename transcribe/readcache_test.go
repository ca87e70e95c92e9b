package transcribe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe/driver"
)

// readMapStore is a ReadStore over a map, shared by the Services of the
// tests as a database is by processes; it counts the reads that sent the
// sealed Data.
type readMapStore struct {
	driver.Store
	mu        sync.Mutex
	recs      map[string]*driver.Record
	dataReads int
}

func (m *readMapStore) Get(ctx context.Context, id string) (*driver.Record, error) {
	return m.GetUnlessSummary(ctx, id, nil)
}

func (m *readMapStore) GetUnlessSummary(_ context.Context, id string, summary []byte) (*driver.Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.recs[id]
	if !ok {
		return nil, fmt.Errorf("record %s: %w", id, ErrNotFound)
	}
	c := *r
	c.Summary = bytes.Clone(r.Summary)
	if len(summary) > 0 && bytes.Equal(summary, r.Summary) {
		c.Data = nil
	} else {
		c.Data = bytes.Clone(r.Data)
		m.dataReads++
	}
	return &c, nil
}

func (m *readMapStore) Update(_ context.Context, r *driver.Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.recs[r.ID]; !ok {
		return ErrNotFound
	}
	c := *r
	c.Data, c.Summary = bytes.Clone(r.Data), bytes.Clone(r.Summary)
	m.recs[r.ID] = &c
	return nil
}

func (m *readMapStore) put(r *driver.Record) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recs[r.ID] = r
}

func (m *readMapStore) erase(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.recs, id)
}

func (m *readMapStore) reads() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.dataReads
}

// readServices are two Services ("processes") on one readMapStore with
// one key, holding a completed transcript of project p whose text is text.
func readServices(t *testing.T, text string) (a, b *Service, ms *readMapStore, id string) {
	ms = &readMapStore{recs: map[string]*driver.Record{}}
	key := NewKey()
	svc := func() *Service {
		s, err := NewService(Config{Store: ms, Uploads: nopUploads{}, Blobs: nopBlobs{}, Recognizer: nopRec{}, Decoder: nopDec{}, Key: key, Workers: -1})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a, b = svc(), svc()
	id = "0f0e0d0c-0b0a-4090-8070-605040302010"
	rec := &driver.Record{ID: id, ProjectID: "p", Status: StatusCompleted, Created: time.Now().UTC()}
	if err := b.seal(rec, &state{T: completedTranscript(id, text)}); err != nil {
		t.Fatal(err)
	}
	ms.put(rec)
	return a, b, ms, id
}

func completedTranscript(id, text string) *Transcript {
	return &Transcript{ID: id, Status: StatusCompleted, ProjectID: "p", Text: &text,
		Words:            []Word{{Text: text, Start: 1, End: 2, Confidence: 0.9}},
		TranscriptParams: TranscriptParams{AudioURL: "https://x/a.wav", WebhookAuthHeaderName: Ptr("X-S"), WebhookAuthHeaderValue: Ptr("hook-secret")},
		LanguageModel:    "assemblyai_default", AcousticModel: "assemblyai_default"}
}

// readJSON is ReadJSON's bytes, or the error.
func readJSON(t *testing.T, s *Service, project, id string) ([]byte, error) {
	t.Helper()
	var out []byte
	calls := 0
	err := s.ReadJSON(t.Context(), project, id, func(b []byte) { out = bytes.Clone(b); calls++ })
	if err == nil && calls != 1 {
		t.Fatalf("write called %d times", calls)
	}
	if err != nil && calls != 0 {
		t.Fatalf("write called with an error (%v): %s", err, out)
	}
	return out, err
}

// TestReadCacheSeesOtherProcessWrites: a Service serving a transcript
// from its cache of opened records serves what another Service on the
// same Store wrote as soon as it is written (a new transcript, a
// deletion, the record erased), never the plaintext it kept.
func TestReadCacheSeesOtherProcessWrites(t *testing.T) {
	a, b, ms, id := readServices(t, "first words")
	first, err := readJSON(t, a, "p", id)
	if err != nil || !bytes.Contains(first, []byte("first words")) {
		t.Fatalf("first read: %v %s", err, first)
	}
	before := ms.reads()
	for range 3 {
		if again, err := readJSON(t, a, "p", id); err != nil || !bytes.Equal(again, first) {
			t.Fatalf("read again: %v %s", err, again)
		}
	}
	if n := ms.reads() - before; n != 0 {
		t.Fatalf("confirmed reads sent the sealed data %d times; want them served from the cache", n)
	}

	// The other process writes a new transcript under the same id.
	rec, err := ms.GetUnlessSummary(t.Context(), id, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.seal(rec, &state{T: completedTranscript(id, "second words")}); err != nil {
		t.Fatal(err)
	}
	if err := ms.Update(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	got, err := readJSON(t, a, "p", id)
	if err != nil || bytes.Contains(got, []byte("first words")) || !bytes.Contains(got, []byte("second words")) {
		t.Fatalf("after the other process's write: %v %s", err, got)
	}
	want, _ := b.GetJSON(t.Context(), "p", id)
	if !bytes.Equal(got, want) {
		t.Fatalf("after the other process's write:\n%s\nwant what it serves:\n%s", got, want)
	}

	// It deletes it.
	if _, err := b.Delete(t.Context(), "p", id); err != nil {
		t.Fatal(err)
	}
	got, err = readJSON(t, a, "p", id)
	var m map[string]any
	if err != nil || json.Unmarshal(got, &m) != nil || m["is_deleted"] != true || m["words"] != nil || bytes.Contains(got, []byte("second words")) {
		t.Fatalf("after the other process's delete: %v %s", err, got)
	}
	if again, _ := readJSON(t, a, "p", id); !bytes.Equal(again, got) {
		t.Fatalf("deleted form read again: %s", again)
	}

	// It erases the record: not found, and nothing of it stays cached.
	ms.erase(id)
	if _, err := readJSON(t, a, "p", id); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after the record was erased: %v", err)
	}
	if e := a.reads.get(id); e != nil {
		t.Errorf("the erased record is still cached: %s", e.pub)
	}
}

// TestReadCacheKeepsProjectsApart: what one project's read put in the
// cache is never served to another project: the project check is made on
// the Store's record of every read, hit or miss.
func TestReadCacheKeepsProjectsApart(t *testing.T) {
	a, _, _, id := readServices(t, "private words")
	for range 3 {
		if got, err := readJSON(t, a, "p", id); err != nil || !bytes.Contains(got, []byte("private words")) {
			t.Fatalf("owner's read: %v %s", err, got)
		}
	}
	if a.reads.get(id) == nil {
		t.Fatal("the owner's reads left nothing in the cache: the test checks nothing")
	}
	for _, other := range []string{"q", "", "p "} {
		if got, err := readJSON(t, a, other, id); !errors.Is(err, ErrNotFound) || got != nil {
			t.Errorf("project %q read another project's cached transcript: %v %s", other, err, got)
		}
	}
	// And the first read of a record by another project caches nothing
	// it could be served from.
	a2, _, _, id2 := readServices(t, "other words")
	if _, err := readJSON(t, a2, "q", id2); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another project's first read: %v", err)
	}
	if e := a2.reads.get(id2); e != nil {
		t.Errorf("a refused read cached the record: %+v", e)
	}
}

// TestReadCacheHoldsNoSecrets: the cache keeps the wire form alone, not
// the private part of the sealed state (the webhook auth header value).
func TestReadCacheHoldsNoSecrets(t *testing.T) {
	a, _, _, id := readServices(t, "some words")
	if _, err := readJSON(t, a, "p", id); err != nil {
		t.Fatal(err)
	}
	e := a.reads.get(id)
	if e == nil || e.pub == nil {
		t.Fatalf("nothing cached: %+v", e)
	}
	if bytes.Contains(e.pub[:cap(e.pub)], []byte("hook-secret")) {
		t.Errorf("the cached wire form holds the webhook secret: %s", e.pub[:cap(e.pub)])
	}
}

// TestReadCacheBound: the cache stays within its budget and keeps no
// record over a sixteenth of it.
func TestReadCacheBound(t *testing.T) {
	c := newReadCache(64 << 10)
	for i := range 100 {
		c.put(&readEntry{id: fmt.Sprint(i), project: "p", summary: []byte("s"), pub: make([]byte, 3000)})
		if c.bytes() > 64<<10 {
			t.Fatalf("after %d entries the cache holds %d bytes", i+1, c.bytes())
		}
	}
	if c.get("99") == nil || c.get("0") != nil {
		t.Error("not least recently used out first")
	}
	c.put(&readEntry{id: "big", project: "p", summary: []byte("s"), pub: make([]byte, 5000)})
	if c.get("big") != nil {
		t.Error("an entry over a sixteenth of the budget was kept")
	}
	c.forget("99")
	if c.get("99") != nil {
		t.Error("forget kept the entry")
	}
}

// pageMapStore answers every page with the records in page, the same
// slice until the test replaces it (as a Store's cache of pages does).
type pageMapStore struct {
	driver.Store
	page []driver.Record
}

func (m *pageMapStore) ListPage(context.Context, driver.ListQuery) ([]driver.Record, error) {
	return m.page, nil
}

// TestReadListShared: ReadList answers the very records with the very
// result (nothing opened again), a new page with a new one; List's
// results are the caller's to modify.
func TestReadListShared(t *testing.T) {
	ms := &pageMapStore{}
	s, err := NewService(Config{Store: ms, Uploads: nopUploads{}, Blobs: nopBlobs{}, Recognizer: nopRec{}, Decoder: nopDec{}, Key: NewKey(), Workers: -1})
	if err != nil {
		t.Fatal(err)
	}
	entry := func(id, url string) driver.Record {
		return driver.Record{ID: id, Status: StatusCompleted, Created: s.utcNow(),
			Summary: s.cipher.Seal(summaryAAD(id), summary{AudioURL: url}.encode())}
	}
	ms.page = []driver.Record{entry("b", "https://x/b.wav"), entry("a", "https://x/a.wav")}
	ctx := t.Context()
	r1, err := s.ReadList(ctx, "p", ListOptions{})
	if err != nil || len(r1.Entries) != 2 || r1.Entries[0].AudioURL != "https://x/b.wav" {
		t.Fatalf("ReadList: %+v %v", r1, err)
	}
	if r2, _ := s.ReadList(ctx, "p", ListOptions{}); r2 != r1 {
		t.Error("the same records gave a new result")
	}
	if r3, _ := s.ReadList(ctx, "q", ListOptions{}); r3 == r1 {
		t.Error("another project got the first project's result")
	}
	l1, _ := s.List(ctx, "p", ListOptions{})
	l1.Entries[0].AudioURL = "changed"
	if l2, _ := s.List(ctx, "p", ListOptions{}); l2.Entries[0].AudioURL != "https://x/b.wav" || r1.Entries[0].AudioURL != "https://x/b.wav" {
		t.Error("a caller's change to List's result reached the shared one")
	}
	ms.page = []driver.Record{entry("c", "https://x/c.wav")}
	r4, _ := s.ReadList(ctx, "p", ListOptions{})
	if r4 == r1 || len(r4.Entries) != 1 || r4.Entries[0].AudioURL != "https://x/c.wav" {
		t.Errorf("a new page: %+v", r4)
	}
}
