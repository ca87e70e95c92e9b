package console

import (
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
)

func get(t *testing.T, h http.Handler, method, target string, hdr map[string]string) *http.Response {
	t.Helper()
	r := httptest.NewRequest(method, target, nil)
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Result()
}

func body(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestIndex(t *testing.T) {
	t.Parallel()
	resp := get(t, Handler(), "GET", "/console/", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("GET /console/: %d", resp.StatusCode)
	}
	want := map[string]string{
		"Content-Type":            "text/html; charset=utf-8",
		"Content-Security-Policy": CSP,
		"X-Content-Type-Options":  "nosniff",
		"Cache-Control":           "no-cache",
		"Referrer-Policy":         "no-referrer",
		"X-Frame-Options":         "DENY",
	}
	for k, v := range want {
		if got := resp.Header.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if !regexp.MustCompile(`^"[0-9a-f]{24}"$`).MatchString(resp.Header.Get("ETag")) {
		t.Errorf("ETag %q is not a strong hash tag", resp.Header.Get("ETag"))
	}
	b := body(t, resp)
	index, _ := fs.ReadFile(Assets(), "index.html")
	if b != string(index) {
		t.Error("GET /console/ is not index.html")
	}
	if !strings.Contains(b, `<script type="module" src="app.js"></script>`) {
		t.Error("index.html does not load app.js as a module")
	}
}

// The policy allows code and connections from the page's origin only.
func TestCSP(t *testing.T) {
	t.Parallel()
	dirs := map[string][]string{}
	for _, d := range strings.Split(CSP, ";") {
		f := strings.Fields(d)
		if len(f) > 0 {
			dirs[f[0]] = f[1:]
		}
	}
	for _, d := range []string{"script-src", "connect-src", "style-src", "worker-src"} {
		if !slices.Equal(dirs[d], []string{"'self'"}) {
			t.Errorf("%s = %v, want only 'self'", d, dirs[d])
		}
	}
	for _, d := range []string{"default-src", "object-src"} {
		if !slices.Equal(dirs[d], []string{"'none'"}) {
			t.Errorf("%s = %v, want 'none'", d, dirs[d])
		}
	}
	if !slices.Equal(dirs["frame-ancestors"], []string{"'none'"}) {
		t.Errorf("frame-ancestors = %v", dirs["frame-ancestors"])
	}
	if strings.Contains(CSP, "unsafe") {
		t.Error("CSP allows unsafe-*")
	}
}

func TestEveryFileAndType(t *testing.T) {
	t.Parallel()
	h := Handler()
	n := 0
	err := fs.WalkDir(Assets(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		resp := get(t, h, "GET", Prefix+p, nil)
		if resp.StatusCode != 200 {
			t.Errorf("GET %s: %d", p, resp.StatusCode)
			return nil
		}
		ct, ok := contentTypes[path.Ext(p)]
		if !ok {
			t.Errorf("%s: extension %q has no media type", p, path.Ext(p))
		}
		if got := resp.Header.Get("Content-Type"); got != ct {
			t.Errorf("%s: Content-Type %q, want %q", p, got, ct)
		}
		want, _ := fs.ReadFile(Assets(), p)
		if body(t, resp) != string(want) {
			t.Errorf("%s: body differs from the embedded file", p)
		}
		if resp.Header.Get("Content-Security-Policy") != CSP {
			t.Errorf("%s: no CSP", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 8 {
		t.Fatalf("only %d embedded files", n)
	}
}

func TestConditionalAndHead(t *testing.T) {
	t.Parallel()
	h := Handler()
	first := get(t, h, "GET", "/console/app.js", nil)
	etag := first.Header.Get("ETag")
	again := get(t, h, "GET", "/console/app.js", map[string]string{"If-None-Match": etag})
	if again.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match with the current ETag: %d, want 304", again.StatusCode)
	}
	other := get(t, h, "GET", "/console/app.js", map[string]string{"If-None-Match": `"stale"`})
	if other.StatusCode != 200 {
		t.Errorf("If-None-Match with an old ETag: %d, want 200", other.StatusCode)
	}
	if get(t, h, "GET", "/console/app.css", nil).Header.Get("ETag") == etag {
		t.Error("two files share an ETag")
	}
	head := get(t, h, "HEAD", "/console/", nil)
	if head.StatusCode != 200 || body(t, head) != "" || head.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Errorf("HEAD /console/: %d %q", head.StatusCode, head.Header.Get("Content-Type"))
	}
}

func TestNotFoundAndMethods(t *testing.T) {
	t.Parallel()
	h := Handler()
	for _, p := range []string{"/console/nope.js", "/console/index.htm", "/console/assets/app.js", "/console/app.js/",
		"/console//app.js", "/console/../go.mod", "/elsewhere", "/", "/consoleX"} {
		resp := get(t, h, "GET", p, nil)
		if resp.StatusCode != 404 {
			t.Errorf("GET %s: %d, want 404", p, resp.StatusCode)
		}
		if resp.Header.Get("Content-Security-Policy") != CSP {
			t.Errorf("GET %s: the 404 has no CSP", p)
		}
	}
	resp := get(t, h, "GET", "/console", nil)
	if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "/console/" {
		t.Errorf("GET /console: %d to %q, want 301 to /console/", resp.StatusCode, resp.Header.Get("Location"))
	}
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH"} {
		resp := get(t, h, m, "/console/", nil)
		if resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s /console/: %d Allow %q, want 405 GET, HEAD", m, resp.StatusCode, resp.Header.Get("Allow"))
		}
	}
}

// Behind a ServeMux, as the reference server mounts it: /console redirects.
func TestMounted(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.Handle(Prefix, Handler())
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "api", 404) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/console")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Request.URL.Path != "/console/" {
		t.Errorf("GET /console ended at %s with %d", resp.Request.URL.Path, resp.StatusCode)
	}
}

var (
	htmlRef   = regexp.MustCompile(`(?:src|href)="([^"#]+)"`)
	moduleRef = regexp.MustCompile(`(?:from\s+|import\()\s*'([^']+)'|addModule\('([^']+)'\)`)
)

// Every file index.html and the modules reference is embedded, nothing is
// loaded from another origin, and no embedded file is unused.
func TestReferencesResolve(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{"index.html": true}
	queue := []string{"index.html"}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		b, err := fs.ReadFile(Assets(), name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var refs []string
		for _, m := range htmlRef.FindAllStringSubmatch(string(b), -1) {
			refs = append(refs, m[1])
		}
		if path.Ext(name) == ".js" {
			for _, m := range moduleRef.FindAllStringSubmatch(string(b), -1) {
				refs = append(refs, m[1]+m[2])
			}
		}
		for _, ref := range refs {
			if strings.Contains(ref, "//") || strings.HasPrefix(ref, "/") || strings.Contains(ref, ":") {
				t.Errorf("%s references %q: only relative same-origin files are allowed", name, ref)
				continue
			}
			target := path.Clean(path.Join(path.Dir(name), ref))
			if _, err := fs.Stat(Assets(), target); err != nil {
				t.Errorf("%s references %q, which is not embedded", name, ref)
				continue
			}
			if !seen[target] {
				seen[target] = true
				queue = append(queue, target)
			}
		}
	}
	_ = fs.WalkDir(Assets(), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !seen[p] {
			t.Errorf("%s is embedded but nothing references it", p)
		}
		return nil
	})
	for _, want := range []string{"app.js", "api.js", "live-worklet.js", "app.css", "favicon.svg"} {
		if !seen[want] {
			t.Errorf("%s is not reachable from index.html", want)
		}
	}
}

// The upload form offers exactly the service's PII policies.
func TestPIIPolicies(t *testing.T) {
	t.Parallel()
	b, err := fs.ReadFile(Assets(), "upload.js")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)export const PII_POLICIES = \[(.*?)\];`).FindSubmatch(b)
	if m == nil {
		t.Fatal("upload.js has no PII_POLICIES list")
	}
	var got []string
	for _, q := range regexp.MustCompile(`'([a-z_]+)'`).FindAllSubmatch(m[1], -1) {
		got = append(got, string(q[1]))
	}
	if want := transcribe.PIIPolicies(); !slices.Equal(got, want) {
		t.Errorf("upload.js PII_POLICIES = %v\nwant transcribe.PIIPolicies() = %v", got, want)
	}
}

// FuzzHandler: any method and path gets one of the handler's answers,
// never a panic, and always carries the CSP.
func FuzzHandler(f *testing.F) {
	for _, p := range []string{"/console/", "/console/app.js", "/console", "/console/../x", "/console/%2e%2e/go.mod", "/x", "/console/a/b/c.js"} {
		f.Add("GET", p)
	}
	f.Add("POST", "/console/")
	f.Add("HEAD", "/console/app.css")
	h := Handler()
	f.Fuzz(func(t *testing.T, method, p string) {
		if !strings.HasPrefix(p, "/") || strings.ContainsAny(p, " \t\r\n?#") || method == "" || strings.ContainsAny(method, " \t\r\n/") {
			return // not a request line net/http would accept
		}
		r, err := http.NewRequest(method, "http://example.com"+p, nil)
		if err != nil {
			return
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		switch w.Code {
		case 200, 301, 304, 404, 405:
		default:
			t.Fatalf("%s %q: status %d", method, p, w.Code)
		}
		if w.Header().Get("Content-Security-Policy") != CSP {
			t.Fatalf("%s %q: no CSP", method, p)
		}
		if w.Code == 200 {
			name := strings.TrimPrefix(r.URL.Path, Prefix)
			if name == "" {
				name = "index.html"
			}
			if _, err := fs.Stat(Assets(), name); err != nil || strings.Contains(name, "..") {
				t.Fatalf("%s %q served %q, which is not an embedded file", method, p, name)
			}
		}
	})
}
