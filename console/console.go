package console

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"
)

// Prefix is the path the console is served under. Handler answers only
// requests below it; mount it there on the server's mux.
const Prefix = "/console/"

// CSP is the Content-Security-Policy sent with every response: scripts,
// styles, workers and connections (fetch, XMLHttpRequest, WebSocket) only
// from the page's own origin; media also from blob: URLs (the user's own
// file, played locally) and from http(s) URLs (a transcript's audio_url on
// another host); no plugins, no framing, no inline code.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
	"font-src 'self'; connect-src 'self'; worker-src 'self'; manifest-src 'self'; " +
	"media-src 'self' blob: http: https:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'; object-src 'none'"

//go:embed assets
var embedded embed.FS

// Assets returns the console's files (index.html, the ES modules, the
// style sheet, the audio worklet), rooted at the directory that Prefix
// maps to.
func Assets() fs.FS {
	sub, err := fs.Sub(embedded, "assets")
	if err != nil {
		panic(err) // the embedded tree always has assets/
	}
	return sub
}

// contentTypes maps the extensions the console uses to their media types.
// A fixed table rather than mime.TypeByExtension: that consults the host's
// mime.types, which on some systems maps .js to text/plain, and a module
// script served as text/plain does not run.
var contentTypes = map[string]string{
	".html":  "text/html; charset=utf-8",
	".js":    "text/javascript; charset=utf-8",
	".css":   "text/css; charset=utf-8",
	".svg":   "image/svg+xml",
	".png":   "image/png",
	".json":  "application/json",
	".txt":   "text/plain; charset=utf-8",
	".woff2": "font/woff2",
}

type asset struct {
	body  []byte
	ctype string
	etag  string
}

var (
	loadOnce sync.Once
	assets   map[string]*asset // by path below Prefix ("" is index.html)
)

func load() {
	assets = map[string]*asset{}
	_ = fs.WalkDir(Assets(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(Assets(), p)
		if err != nil {
			return err
		}
		ct, ok := contentTypes[path.Ext(p)]
		if !ok {
			ct = "application/octet-stream"
		}
		sum := sha256.Sum256(b)
		a := &asset{body: b, ctype: ct, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
		assets[p] = a
		if p == "index.html" {
			assets[""] = a
		}
		return nil
	})
}

// Handler returns the http.Handler that serves the console's embedded
// files under Prefix:
//
//	mux.Handle(console.Prefix, console.Handler()) // net/http redirects /console to /console/
//	mux.Handle("/", api)                          // the v2 API at the root
//
// GET and HEAD of /console/ return index.html, /console/<file> the
// embedded file with its media type; anything else under the prefix is 404
// and other methods 405. Every response carries CSP, nosniff, no-referrer
// and a frame-ancestors/X-Frame-Options denial. Files are sent with a
// strong ETag and "Cache-Control: no-cache": browsers keep them and
// revalidate (304) on each load, so a new server binary is picked up at
// once without fingerprinted file names (there is no build step).
//
// The console talks to the v2 API on the same origin, so the API must be
// served at the root of the same host. The handler needs no configuration
// and is safe for concurrent use.
func Handler() http.Handler {
	loadOnce.Do(load)
	return http.HandlerFunc(serve)
}

func serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", CSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Permissions-Policy", "microphone=(self), camera=(), geolocation=()")
	name, ok := strings.CutPrefix(r.URL.Path, Prefix)
	if !ok {
		if r.URL.Path == strings.TrimSuffix(Prefix, "/") {
			http.Redirect(w, r, Prefix, http.StatusMovedPermanently)
			return
		}
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	a, ok := assets[name]
	if !ok {
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	h.Set("Content-Type", a.ctype)
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", a.etag)
	// ServeContent answers If-None-Match (304), Range and HEAD.
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(a.body))
}
