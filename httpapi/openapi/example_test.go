package openapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/earshot-dev/earshot/httpapi/openapi"
)

func ExampleJSON() {
	var doc struct {
		OpenAPI string `json:"openapi"`
		Info    struct {
			Title string `json:"title"`
		} `json:"info"`
		Paths map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(openapi.JSON(), &doc); err != nil {
		panic(err)
	}
	_, ok := doc.Paths["/v2/transcript/{id}"]
	fmt.Println(doc.OpenAPI, doc.Info.Title, ok)
	// Output: 3.1.0 Earshot API true
}

func ExampleHandler() {
	mux := http.NewServeMux()
	mux.Handle("GET "+openapi.Path, openapi.Handler())

	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("GET", "/openapi.json", nil))
	fmt.Println(rec.Code, rec.Header().Get("Content-Type"), rec.Body.Len() == len(openapi.JSON()))
	// Output: 200 application/json true
}
