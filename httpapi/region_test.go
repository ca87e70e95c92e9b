package httpapi_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/httpapi"
)

// TestEURegion serves two regions the way the reference server does:
// two APIs over two Services with their own stores, the same keys, each
// told the other's URLs.
func TestEURegion(t *testing.T) {
	t.Parallel()
	others := make([]*httpapi.URLs, 2) // filled once both exist
	us := newFixture(t, func(c *httpapi.Config) { others[0] = c.URLs; c.OtherRegions = others[1:] })
	eu := newFixture(t, func(c *httpapi.Config) {
		others[1] = c.URLs
		c.Endpoints = httpapi.EndpointsEU
		c.OtherRegions = others[:1]
	})

	// The EU endpoint set works.
	id := eu.completed(t, "k1")
	if r := eu.do(t, "GET", "/v2/transcript/"+id, "k1", nil); r.status != 200 || !strings.Contains(string(r.body), `"status":"completed"`) {
		t.Fatalf("GET on EU: %d %s", r.status, r.body)
	}
	if r := eu.do(t, "GET", "/v2/transcript/"+id+"/word-search?words=sarah", "k1", nil); r.status != 200 || !strings.Contains(string(r.body), `"total_count":1`) {
		t.Fatalf("word search on EU: %d %s", r.status, r.body)
	}
	if r := eu.do(t, "GET", "/v2/transcript?limit=10", "k1", nil); r.status != 200 || !strings.Contains(string(r.body), id) ||
		!strings.Contains(string(r.body), eu.srv.URL+"/v2/transcript?") {
		t.Fatalf("list on EU: %d %s", r.status, r.body)
	}
	// Everything else is the JSON 404 there, whatever the method.
	for _, p := range []string{"/sentences", "/paragraphs", "/srt", "/vtt"} {
		expectError(t, eu.do(t, "GET", "/v2/transcript/"+id+p, "k1", nil), 404, "no endpoint")
	}
	expectError(t, eu.do(t, "POST", "/v2/realtime/token", "k1", strings.NewReader(`{"expires_in":60}`)), 404, "no endpoint")
	expectError(t, eu.do(t, "GET", "/v2/realtime/ws", "k1", nil), 404, "no endpoint")
	expectError(t, eu.do(t, "GET", "/v1/models", "k1", nil), 404, "no endpoint")
	// The same routes exist in the US region.
	if r := us.do(t, "GET", "/v2/transcript/"+us.completed(t, "k1")+"/sentences", "k1", nil); r.status != 200 {
		t.Fatalf("sentences in the US region: %d %s", r.status, r.body)
	}

	// Nothing crosses: ids, lists, uploads.
	expectError(t, us.do(t, "GET", "/v2/transcript/"+id, "k1", nil), 404, "not found")
	expectError(t, us.do(t, "DELETE", "/v2/transcript/"+id, "k1", nil), 404, "not found")
	expectError(t, us.do(t, "GET", "/v2/transcript/"+id+"/word-search?words=sarah", "k1", nil), 404, "not found")
	if r := us.do(t, "GET", "/v2/transcript?limit=100", "k1", nil); strings.Contains(string(r.body), id) {
		t.Fatalf("the US list shows an EU transcript: %s", r.body)
	}
	for _, dir := range []struct {
		name     string
		from, to *fixture
	}{{"US upload to EU", us, eu}, {"EU upload to US", eu, us}} {
		up := dir.from.do(t, "POST", "/v2/upload", "k1", bytes.NewReader(dir.from.wav))
		u := up.json(t)["upload_url"].(string)
		r := dir.to.do(t, "POST", "/v2/transcript", "k1", strings.NewReader(`{"audio_url":"`+u+`"}`))
		expectError(t, r, 400, "another region")
		if list := dir.to.do(t, "GET", "/v2/transcript?limit=100", "k1", nil); strings.Count(string(list.body), `"id"`) != 1 {
			t.Fatalf("%s: a refused submit left a transcript: %s", dir.name, list.body)
		}
	}

	// Redacted audio: ready in its region, with a URL on its origin that
	// the other region does not serve.
	sub := eu.do(t, "POST", "/v2/transcript", "k1", strings.NewReader(`{"audio_url":"`+
		eu.do(t, "POST", "/v2/upload", "k1", bytes.NewReader(eu.wav)).json(t)["upload_url"].(string)+
		`","redact_pii":true,"redact_pii_policies":["person_name"],"redact_pii_audio":true}`))
	rid := sub.json(t)["id"].(string)
	var audioURL string
	for deadline := time.Now().Add(10 * time.Second); audioURL == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		r := eu.do(t, "GET", "/v2/transcript/"+rid+"/redacted-audio", "k1", nil)
		if r.status == 200 {
			audioURL = r.json(t)["redacted_audio_url"].(string)
		}
	}
	if !strings.HasPrefix(audioURL, eu.srv.URL+"/v2/redacted-audio/") {
		t.Fatalf("redacted audio URL %q", audioURL)
	}
	if res, err := http.Get(audioURL); err != nil || res.StatusCode != 200 {
		t.Fatalf("download in the EU region: %v %v", res, err)
	} else {
		res.Body.Close()
	}
	expectError(t, us.do(t, "GET", strings.TrimPrefix(audioURL, eu.srv.URL), "", nil), 404, "redacted audio not found")
	expectError(t, us.do(t, "GET", "/v2/transcript/"+rid+"/redacted-audio", "k1", nil), 404, "not found")
}

func TestEndpointsValidated(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	urls, _ := httpapi.NewURLs("https://eu.example.com", nil)
	for _, tc := range []struct {
		cfg  httpapi.Config
		want string
	}{
		{httpapi.Config{Service: f.svc, Auth: httpapi.Keys{}, URLs: urls, Endpoints: "us"}, `Config.Endpoints "us"`},
		{httpapi.Config{Service: f.svc, Auth: httpapi.Keys{}, URLs: urls, Endpoints: httpapi.EndpointsEU, RealtimeToken: http.NotFoundHandler()}, "no realtime endpoints"},
	} {
		if _, err := httpapi.New(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New: %v, want an error containing %q", err, tc.want)
		}
	}
}
