package openapi

import (
	_ "embed"
	"encoding/json"
	"net/http"
	"strconv"
)

//go:embed openapi.json
var document []byte

// Path is where the document is served: httpapi mounts Handler at
// GET /openapi.json.
const Path = "/openapi.json"

// JSON returns the OpenAPI 3.1 document of Earshot's API. The slice is a
// copy: callers may change it.
func JSON() []byte {
	return append([]byte(nil), document...)
}

// Handler returns an http.Handler that serves the document with
// Content-Type application/json to GET and HEAD requests, without
// authentication, and answers other methods with 405
// {"error": "method M is not allowed on /openapi.json"} and Allow: GET, HEAD.
// It is safe for concurrent use.
func Handler() http.Handler {
	size := strconv.Itoa(len(document))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			b, _ := json.Marshal(struct {
				Error string `json:"error"`
			}{"method " + r.Method + " is not allowed on " + Path})
			w.Header().Set("Allow", "GET, HEAD")
			w.WriteHeader(http.StatusMethodNotAllowed)
			_, _ = w.Write(b)
			return
		}
		w.Header().Set("Content-Length", size)
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			_, _ = w.Write(document)
		}
	})
}
