package httpapi_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/earshot-dev/earshot/httpapi"
	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/media"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// Example mounts the AssemblyAI API at the root of a ServeMux beside an
// application's own routes. URLs renders upload_url, resource_url and the
// list's page_details on the public origin.
func Example() {
	dec, _ := media.NewDecoder(media.Config{})
	svc, err := transcribe.NewService(transcribe.Config{
		Store: memory.New(), Blobs: memory.NewBlobStore(), Decoder: dec, Key: transcribe.NewKey(),
		Recognizer: &transcribetest.FakeRecognizer{Text: "hi"}, Workers: -1, // API only
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		panic(err)
	}
	urls, err := httpapi.NewURLs("https://speech.example.com", nil)
	if err != nil {
		panic(err)
	}
	api, err := httpapi.New(httpapi.Config{Service: svc, URLs: urls, Auth: httpapi.Keys{"a-long-secret-api-key": "project-1"}})
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	mux.Handle("/", api) // the Go SDK drops path prefixes: mount at the root

	for _, req := range []*http.Request{
		httptest.NewRequest("POST", "/v2/upload", strings.NewReader("RIFF....")),
		httptest.NewRequest("GET", "/v2/transcript?limit=1", nil),
		httptest.NewRequest("GET", "/v2/transcript", nil),
	} {
		if req.URL.RawQuery != "" || req.Method == "POST" {
			req.Header.Set("Authorization", "a-long-secret-api-key")
		}
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		body := rec.Body.String()
		fmt.Println(rec.Code, body[:min(len(body), 52)])
	}
	// Output:
	// 200 {"upload_url":"https://speech.example.com/v2/upload/
	// 200 {"page_details":{"limit":1,"result_count":0,"current
	// 401 {"error":"Authentication error, API token missing/in
}
