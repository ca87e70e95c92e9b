package openaiapi_test

import (
	"context"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/httpapi"
	"github.com/earshot-dev/earshot/httpapi/openaiapi"
	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/storage/localfs"
	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/media"
)

// TestUploadStreams sends a 64 MiB file (chunked, never whole in the
// client either) to a Service that stores uploads on disk, and checks
// that the process allocated far less than the file while the handler
// read it: the file streams from the socket to the BlobStore. Not
// parallel, so that other tests' allocations do not count.
func TestUploadStreams(t *testing.T) {
	const size = 64 << 20
	dec, err := media.NewDecoder(media.Config{})
	if err != nil {
		t.Fatal(err)
	}
	blobs, err := localfs.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	engines := []transcribe.Engine{{Name: "pocketsphinx", Recognizer: recognizer(t)}}
	svc, err := transcribe.NewService(transcribe.Config{Store: memory.New(), Blobs: blobs, Engines: engines, Decoder: dec,
		Key: transcribe.NewKey(), Workers: -1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	// No workers, and a short timeout: the request ends with 504 right
	// after the upload and the submit.
	h, err := openaiapi.New(openaiapi.Config{Service: svc, Engines: engines, Auth: httpapi.Keys{key1: project1},
		Timeout: 50 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer h.Close(context.Background())

	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		mw.WriteField("model", "whisper-1")
		w, _ := mw.CreateFormFile("file", "big.wav")
		chunk := make([]byte, 64<<10)
		for i := 0; i < size/len(chunk); i++ {
			chunk[0] = byte(i)
			w.Write(chunk)
		}
		mw.Close()
		pw.Close()
	}()
	req, _ := http.NewRequest("POST", srv.URL+"/v1/audio/transcriptions", pr)
	req.Header.Set("Authorization", "Bearer "+key1)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	runtime.ReadMemStats(&after)
	if res.StatusCode != http.StatusGatewayTimeout {
		t.Fatalf("status %d: %s", res.StatusCode, body)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %.1f MiB while sending and storing a %d MiB file", float64(alloc)/(1<<20), size>>20)
	if alloc > size/4 {
		t.Errorf("allocated %d bytes for a %d-byte file: the file is not streamed", alloc, size)
	}
	list, err := svc.List(context.Background(), jobs1, transcribe.ListOptions{})
	if err != nil || len(list.Entries) != 1 {
		t.Fatalf("%v %v", list, err)
	}
}

// TestSilence: silent audio is an empty transcription, as on OpenAI, when
// the language is left to detection; with a language given, the Service
// reports that no speech was found (a 400 naming the file).
func TestSilence(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	silence, err := os.ReadFile(testaudio.SoxEffects(t, "wav", []string{"-n", "-r", "16000", "-c", "1", "-b", "16"}, "trim", "0", "2"))
	if err != nil {
		t.Fatal(err)
	}
	r := f.transcribe(t, field{"model", "whisper-1"}, field{"response_format", "verbose_json"}, field{"file", string(silence)})
	if want := `{"task":"transcribe","language":"english","duration":2,"text":"","segments":[],"usage":{"type":"duration","seconds":2}}`; r.status != 200 || string(r.body) != want {
		t.Errorf("%d %s\nwant %s", r.status, r.body, want)
	}
	r = f.transcribe(t, field{"model", "whisper-1"}, field{"language", "en"}, field{"file", string(silence)})
	expectError(t, r, 400, "invalid_request_error", "file", "", "no speech")
	f.expectNothingKept(t)
}
