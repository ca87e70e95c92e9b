package transcribe

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe/driver"
)

// mapStore is the smallest Store for seal tests: Get and Create only.
type mapStore struct {
	driver.Store
	recs map[string]*driver.Record
}

func (m *mapStore) Get(ctx context.Context, id string) (*driver.Record, error) {
	r, ok := m.recs[id]
	if !ok {
		return nil, ErrNotFound
	}
	c := *r
	c.Data, c.Summary = bytes.Clone(r.Data), bytes.Clone(r.Summary) // the caller's, as the contract says
	return &c, nil
}

// TestGetJSONMatchesGet: the pre-rendered wire form with the Store's
// status and webhook status spliced in equals the marshalled Get, in every
// state, and for records sealed in the version 1 format.
func TestGetJSONMatchesGet(t *testing.T) {
	ms := &mapStore{recs: map[string]*driver.Record{}}
	s, err := NewService(Config{Store: ms, Uploads: nopUploads{}, Blobs: nopBlobs{}, Recognizer: nopRec{}, Decoder: nopDec{}, Key: NewKey(), Workers: -1})
	if err != nil {
		t.Fatal(err)
	}
	text := `he said "hi", \ then ,"webhook_status_code":7 {}`
	conf, dur := 0.9, 3.0
	tr := &Transcript{ID: "0f0e0d0c-0b0a-4090-8070-605040302010", Status: StatusCompleted, ProjectID: "p",
		TranscriptParams: TranscriptParams{AudioURL: "https://x/a.wav", WebhookURL: Ptr("https://h/?a=1"),
			WebhookAuthHeaderName: Ptr("X-S"), WebhookAuthHeaderValue: Ptr("secret"), ContentSafety: Ptr(true), ContentSafetyConfidence: Ptr(int64(60)),
			// A parameter echoed as given, holding the key raw (it comes
			// before the real one).
			RemoveAudioTags: json.RawMessage(`{"a":1,"webhook_status_code":7,"status":"x"}`)},
		Text: &text, Words: []Word{{Text: text, Start: 1, End: 2, Confidence: 0.9}}, Confidence: &conf, AudioDuration: &dur,
		ContentSafetyLabels: &ContentSafetyLabelsResult{}, LanguageModel: "assemblyai_default", AcousticModel: "assemblyai_default"}
	rec := &driver.Record{ID: tr.ID, ProjectID: "p", Status: StatusQueued, Created: time.Now()}
	if err := s.seal(rec, &state{T: tr, UploadID: "u1", Engine: "best"}); err != nil {
		t.Fatal(err)
	}
	ms.recs[rec.ID] = rec
	check := func(name string) {
		t.Helper()
		got, err := s.GetJSON(context.Background(), "p", rec.ID)
		if err != nil {
			t.Fatalf("%s: GetJSON: %v", name, err)
		}
		typed, err := s.Get(context.Background(), "p", rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(typed)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: GetJSON\n%s\nwant\n%s", name, got, want)
		}
		if bytes.Contains(got, []byte("secret")) {
			t.Errorf("%s: the webhook auth header value leaks", name)
		}
	}
	check("queued")
	rec.Status, rec.WebhookStatus = StatusProcessing, 0
	check("processing (a claim, no reseal)")
	rec.Status, rec.WebhookStatus = StatusCompleted, 503
	check("completed with a webhook status")
	j, err := s.unseal(rec)
	if err != nil || *j.st.T.WebhookAuthHeaderValue != "secret" || *j.st.T.ContentSafetyConfidence != 60 || j.st.UploadID != "u1" || j.st.Engine != "best" {
		t.Fatalf("private fields lost: %+v %v", j.st, err)
	}
	if _, err := s.GetJSON(context.Background(), "other", rec.ID); err == nil {
		t.Error("another project's transcript was returned")
	}
	// A record sealed by an earlier version (plain JSON of the state).
	v1, _ := json.Marshal(stateV1{T: tr, UploadID: "u1"})
	old := &driver.Record{ID: "11111111-2222-4333-8444-555555555555", ProjectID: "p", Status: StatusCompleted, Data: s.cipher.Seal("11111111-2222-4333-8444-555555555555", v1)}
	ms.recs[old.ID] = old
	rec = old
	check("version 1 record")
}

type nopUploads struct{ driver.UploadStore }
type nopBlobs struct{ driver.BlobStore }
type nopDec struct{ Decoder }
type nopRec struct{ Recognizer }

func (nopRec) Features() RecognizerFeatures {
	return RecognizerFeatures{SampleRate: 16000, Languages: []string{"en"}}
}

// TestSummaryEncoding: the binary list entry reads back, with and without
// an error, and summaries written as JSON by earlier versions still read.
func TestSummaryEncoding(t *testing.T) {
	e := "boom \x00 \u00e9"
	for _, m := range []summary{{}, {AudioURL: "https://x/a.wav"}, {AudioURL: "u", Error: &e}, {Error: Ptr("")}} {
		var got summary
		if err := got.decode(m.encode()); err != nil {
			t.Fatalf("%+v: %v", m, err)
		}
		if got.AudioURL != m.AudioURL || (got.Error == nil) != (m.Error == nil) || (got.Error != nil && *got.Error != *m.Error) {
			t.Errorf("round trip of %+v gave %+v", m, got)
		}
		enc := m.encode()
		for i := range enc {
			if err := new(summary).decode(enc[:i]); err == nil {
				t.Errorf("%+v cut to %d bytes decoded without error", m, i)
			}
		}
	}
	var old summary
	if err := old.decode([]byte(`{"a":"https://x/b.mp3","e":"bad media"}`)); err != nil || old.AudioURL != "https://x/b.mp3" || *old.Error != "bad media" {
		t.Errorf("JSON summary: %+v, %v", old, err)
	}
	if err := new(summary).decode([]byte{9, 0}); err == nil {
		t.Error("an unknown version decoded")
	}
}
