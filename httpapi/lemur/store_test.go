package lemur_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"

	"github.com/earshot-dev/earshot/httpapi"
	"github.com/earshot-dev/earshot/httpapi/lemur"
	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// TestRedactedTranscript: a transcript made with redact_pii reaches the
// model only redacted (the stored text is the redacted text).
func TestRedactedTranscript(t *testing.T) {
	t.Parallel()
	chat := newChat(t, func(chatRequest) recording {
		return answer(t, "llamacpp-bullets.json", "Someone paid for tickets.", true)
	})
	e := newEnv(t, chat, nil)
	id := e.transcript(t, e.client, 3, &aai.TranscriptOptionalParams{RedactPII: aai.Bool(true),
		RedactPIIPolicies: []aai.PIIPolicy{"person_name", "money_amount"}, SpeakerLabels: aai.Bool(true)})
	if _, err := e.client.LeMUR.Summarize(context.Background(), aai.LeMURSummaryParams{LeMURBaseParams: aai.LeMURBaseParams{TranscriptIDs: []string{id}}}); err != nil {
		t.Fatal(err)
	}
	u := strings.ToLower(chat.requests()[0].user())
	if strings.Contains(u, "sarah") || strings.Contains(u, "twenty") || strings.Contains(u, "$25") || !strings.Contains(u, "####") ||
		!strings.Contains(u, "speaker a:") || !strings.Contains(u, "book the hotel") {
		t.Errorf("the model got %q", u)
	}
}

// recordingStore keeps what is stored, to look at it.
type recordingStore struct {
	driver.LeMURStore
	data [][]byte
}

func (s *recordingStore) PutLeMUR(ctx context.Context, r *driver.LeMURRecord) error {
	s.data = append(s.data, bytes.Clone(r.Data))
	return s.LeMURStore.PutLeMUR(ctx, r)
}

// TestAnswersSharedAndSealed: an answer made by one server is read and
// purged through another sharing the store and the key; the store holds
// it sealed, never the answer or transcript text. (The SQLite and
// PostgreSQL stores pass transcribetest's LeMUR conformance suite, which
// checks they keep what they are given across connections.)
func TestAnswersSharedAndSealed(t *testing.T) {
	t.Parallel()
	db := memory.NewLeMURStore()
	key := transcribe.NewKey()
	store := &recordingStore{LeMURStore: db}
	chat := newChat(t, func(chatRequest) recording {
		return answer(t, "llamacpp-bullets.json", "Tom books the hotel by Friday.", true)
	})
	e := newEnv(t, chat, func(c *lemur.Config) { c.Store, c.Key = store, key })
	id := e.transcript(t, e.client, 3, nil)
	res, err := e.client.LeMUR.Task(context.Background(), aai.LeMURTaskParams{Prompt: aai.String("Who books?"),
		LeMURBaseParams: aai.LeMURBaseParams{TranscriptIDs: []string{id}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(store.data) != 1 || bytes.Contains(store.data[0], []byte("hotel")) || bytes.Contains(store.data[0], []byte(*res.RequestID)) {
		t.Fatalf("stored %q", store.data)
	}

	// A second server: its own API and LeMUR handler on the same store.
	h, err := lemur.New(lemur.Config{Service: e.svc, BaseURL: chat.URL + "/v1", Model: "test-model", Store: db, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	urls, _ := httpapi.NewURLs("http://127.0.0.1", nil)
	api, err := httpapi.New(httpapi.Config{Service: e.svc, Auth: httpapi.Keys{key1: "p1"}, URLs: urls, LeMUR: h})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api)
	defer srv.Close()
	c2 := aai.NewClientWithOptions(aai.WithAPIKey(key1), aai.WithBaseURL(srv.URL))
	var got aai.LeMURTaskResponse
	if err := c2.LeMUR.GetResponseData(context.Background(), *res.RequestID, &got); err != nil || *got.Response != *res.Response {
		t.Fatalf("read through the other process: %+v, %v", got, err)
	}
	if p, err := c2.LeMUR.PurgeRequestData(context.Background(), *res.RequestID); err != nil || !*p.Deleted {
		t.Fatalf("purge through the other process: %+v, %v", p, err)
	}
	if err := e.client.LeMUR.GetResponseData(context.Background(), *res.RequestID, &got); err == nil {
		t.Fatal("the purged answer is still served by the first process")
	}
}
