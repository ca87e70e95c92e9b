package httpapi_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"
)

func (f *fixture) doKey(t testing.TB, method, path, key, idem string, body []byte) resp {
	t.Helper()
	req, err := http.NewRequest(method, f.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", key)
	if idem != "" {
		req.Header.Set("Idempotency-Key", idem)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(res.Body)
	return resp{status: res.StatusCode, ctype: res.Header.Get("Content-Type"), body: b.Bytes(), header: res.Header}
}

// TestIdempotencyKey: the same key and body give the same transcript (one
// job), a different body under the key is 422, keys are per project, and
// a create whose answer was lost after it committed is answered, on the
// retry, with the transcript it made — also when it used an upload, which
// a plain retry finds already taken.
func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	f, store, _ := faultyFixture(t)
	body := []byte(`{"audio_url":"https://example.com/a.wav","punctuate":true}`)
	first := f.doKey(t, "POST", "/v2/transcript", "k1", "key-1", body)
	if first.status != 200 {
		t.Fatalf("create: %d %s", first.status, first.body)
	}
	id := first.json(t)["id"].(string)
	again := f.doKey(t, "POST", "/v2/transcript", "k1", "key-1", []byte(` {"punctuate":true, "audio_url":"https://example.com/a.wav"}`))
	if again.status != 200 || again.json(t)["id"] != id || again.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retry: %d %s (replayed %q), want id %s", again.status, again.body, again.header.Get("Idempotent-Replayed"), id)
	}
	expectError(t, f.doKey(t, "POST", "/v2/transcript", "k1", "key-1", []byte(`{"audio_url":"https://example.com/b.wav"}`)), 422, "different request body")
	other := f.doKey(t, "POST", "/v2/transcript", "k2", "key-1", body)
	if other.status != 200 || other.json(t)["id"] == id {
		t.Fatalf("another project's key: %d %s", other.status, other.body)
	}
	expectError(t, f.doKey(t, "POST", "/v2/transcript", "k1", strings.Repeat("x", 256), body), 400, "Idempotency-Key")
	if a, b := f.doKey(t, "POST", "/v2/transcript", "k1", "", body), f.doKey(t, "POST", "/v2/transcript", "k1", "", body); a.json(t)["id"] == b.json(t)["id"] {
		t.Fatal("creates without a key got one id")
	}

	// An upload-based create, retried.
	up := f.doKey(t, "POST", "/v2/upload", "k1", "up-1", f.wav)
	upURL := up.json(t)["upload_url"].(string)
	if r := f.doKey(t, "POST", "/v2/upload", "k1", "up-1", f.wav); r.status != 200 || r.json(t)["upload_url"] != upURL {
		t.Fatalf("upload retry: %d %s, want %s", r.status, r.body, upURL)
	}
	expectError(t, f.doKey(t, "POST", "/v2/upload", "k1", "up-1", f.wav[:len(f.wav)/2]), 422, "different file")
	create := []byte(`{"audio_url":"` + upURL + `"}`)
	// The store commits the create but its answer is lost: without a key
	// the outcome is unknown to the server too (503); with one, the
	// server reads the reserved id back and answers the transcript.
	store.mode.Store(lostAck)
	expectOutage(t, f.doKey(t, "POST", "/v2/transcript", "k1", "", body), "storage is not answering")
	lost := f.doKey(t, "POST", "/v2/transcript", "k1", "key-2", create)
	store.mode.Store(healthy)
	if lost.status != 200 {
		t.Fatalf("a create whose commit was not acknowledged: %d %s", lost.status, lost.body)
	}
	made := lost.json(t)["id"].(string)
	before := len(f.do(t, "GET", "/v2/transcript?limit=100", "k1", nil).json(t)["transcripts"].([]any))
	// The client never saw that answer either and retries once the job
	// is done and its upload deleted.
	deadline := time.Now().Add(10 * time.Second)
	for f.do(t, "GET", "/v2/transcript/"+made, "k1", nil).json(t)["status"] != "completed" && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	retry := f.doKey(t, "POST", "/v2/transcript", "k1", "key-2", create)
	if retry.status != 200 || retry.json(t)["id"] != made {
		t.Fatalf("retry after the lost answer: %d %s, want the transcript %s", retry.status, retry.body, made)
	}
	if n := len(f.do(t, "GET", "/v2/transcript?limit=100", "k1", nil).json(t)["transcripts"].([]any)); n != before {
		t.Fatalf("the retry made another transcript: %d, then %d", before, n)
	}
	expectError(t, f.do(t, "POST", "/v2/transcript", "k1", bytes.NewReader(create)), 400, "upload")
}
