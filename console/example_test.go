package console_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/earshot-dev/earshot/console"
)

// Mount the console beside the v2 API, as the reference server does: the
// console at /console/, the API (an *httpapi.API) at the root.
func ExampleHandler() {
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"stand-in for httpapi.API"}`, http.StatusNotFound)
	})
	mux := http.NewServeMux()
	mux.Handle(console.Prefix, console.Handler())
	mux.Handle("/", api)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	for _, p := range []string{"/console/", "/console/app.js", "/console/live-worklet.js", "/console/missing.js"} {
		resp, err := http.Get(srv.URL + p)
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
		fmt.Println(p, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	// Output:
	// /console/ 200 text/html; charset=utf-8
	// /console/app.js 200 text/javascript; charset=utf-8
	// /console/live-worklet.js 200 text/javascript; charset=utf-8
	// /console/missing.js 404 text/plain; charset=utf-8
}
