package httpapi_test

import (
	"fmt"
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

// Example_regions serves the EU region beside the default one: a second
// API over a second Service with its own store and blobs, mounted on a
// listener of its own (the Go SDK drops path prefixes), with the same
// keys. Each region refuses the other's upload URLs, and ids of one are
// unknown to the other.
func Example_regions() {
	auth := httpapi.Keys{"a-long-secret-api-key": "project-1"}
	region := func(origin string, endpoints httpapi.Endpoints, others []*httpapi.URLs) (*httpapi.API, *httpapi.URLs) {
		dec, _ := media.NewDecoder(media.Config{})
		svc, err := transcribe.NewService(transcribe.Config{
			Store: memory.New(), Blobs: memory.NewBlobStore(), // the region's own storage
			Decoder: dec, Key: transcribe.NewKey(),
			Recognizer: &transcribetest.FakeRecognizer{Text: "hi"}, Workers: -1,
			Logger: slog.New(slog.DiscardHandler),
		})
		if err != nil {
			panic(err)
		}
		urls, err := httpapi.NewURLs(origin, nil)
		if err != nil {
			panic(err)
		}
		api, err := httpapi.New(httpapi.Config{Service: svc, Auth: auth, URLs: urls, Endpoints: endpoints, OtherRegions: others})
		if err != nil {
			panic(err)
		}
		return api, urls
	}
	others := make([]*httpapi.URLs, 2)
	us, usURLs := region("https://api.example.com", httpapi.EndpointsAll, others[1:])
	eu, euURLs := region("https://api.eu.example.com", httpapi.EndpointsEU, others[:1])
	others[0], others[1] = usURLs, euURLs
	// In a server: go http.Serve(usListener, us); go http.Serve(euListener, eu)

	do := func(h http.Handler, method, path, body string) string {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Authorization", "a-long-secret-api-key")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return fmt.Sprint(rec.Code, " ", strings.TrimSpace(rec.Body.String()))
	}
	euUpload := do(eu, "POST", "/v2/upload", "RIFF....")
	fmt.Println(euUpload[:56])
	uploadURL := strings.Split(euUpload, `"`)[3]
	fmt.Println(do(us, "POST", "/v2/transcript", `{"audio_url":"`+uploadURL+`"}`)[:60])
	fmt.Println(do(eu, "GET", "/v2/transcript/0a4d1a6e-1b2c-4d5e-8f90-123456789abc/sentences", ""))
	fmt.Println(do(eu, "POST", "/v2/realtime/token", `{"expires_in":60}`))
	// Output:
	// 200 {"upload_url":"https://api.eu.example.com/v2/upload/
	// 400 {"error":"audio_url: this upload_url was made by another
	// 404 {"error":"no endpoint GET /v2/transcript/0a4d1a6e-1b2c-4d5e-8f90-123456789abc/sentences"}
	// 404 {"error":"no endpoint POST /v2/realtime/token"}
}
