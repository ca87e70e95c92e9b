package enginetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

// Exchange is one recorded (or source-derived) HTTP exchange with a
// transcription server, as stored in testdata.
type Exchange struct {
	Engine  string `json:"engine"` // recorded from this server ...
	Source  string `json:"source"` // ... or written from this source
	Server  string `json:"server"`
	Note    string `json:"note"`
	Request struct {
		Method string   `json:"method"`
		Path   string   `json:"path"`
		Fields []string `json:"fields"` // "name=value"
		File   *struct {
			Name    string `json:"name"`
			Content string `json:"content"`
		} `json:"file"`
	} `json:"request"`
	Status      int               `json:"status"`
	ContentType string            `json:"content_type"`
	Headers     map[string]string `json:"headers"`
	Body        string            `json:"body"`
}

// LoadExchange reads testdata/name (relative to the test's package).
func LoadExchange(t testing.TB, name string) *Exchange {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var ex Exchange
	if err := json.Unmarshal(b, &ex); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if ex.Status == 0 {
		t.Fatalf("%s: no status", name)
	}
	return &ex
}

// Replayer serves one Exchange.
type Replayer struct {
	URL string
	ex  *Exchange

	mu    sync.Mutex
	calls int
	errs  []string
}

// Replay serves ex at its path: every POST gets the recorded status,
// headers and body. With checkFields, a request whose fields differ from
// the recorded ones (as a multiset) or that has no file is answered 418
// and noted for Err.
func Replay(t testing.TB, ex *Exchange, checkFields bool) *Replayer {
	rp := &Replayer{ex: ex}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rp.mu.Lock()
		rp.calls++
		rp.mu.Unlock()
		if r.URL.Path != ex.Request.Path {
			http.Error(w, "File Not Found ("+r.URL.Path+")", http.StatusNotFound)
			return
		}
		if checkFields {
			form, _, err := ReadRequest(r)
			if err == nil {
				var got []string
				for k, vs := range form {
					for _, v := range vs {
						got = append(got, k+"="+v)
					}
				}
				want := slices.Clone(ex.Request.Fields)
				sort.Strings(got)
				sort.Strings(want)
				if !slices.Equal(got, want) {
					err = fmt.Errorf("fields %q, recorded %q", got, want)
				}
			}
			if err != nil {
				rp.mu.Lock()
				rp.errs = append(rp.errs, err.Error())
				rp.mu.Unlock()
				http.Error(w, err.Error(), http.StatusTeapot)
				return
			}
		}
		for k, v := range ex.Headers {
			w.Header().Set(k, v)
		}
		if ex.ContentType != "" {
			w.Header().Set("Content-Type", ex.ContentType)
		}
		w.WriteHeader(ex.Status)
		_, _ = io.WriteString(w, ex.Body)
	}))
	t.Cleanup(srv.Close)
	rp.URL = srv.URL
	return rp
}

// Calls returns how many requests were served.
func (rp *Replayer) Calls() int {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return rp.calls
}

// Err reports requests that did not match the recording.
func (rp *Replayer) Err() error {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if len(rp.errs) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(rp.errs, "; "))
}

// Structure lists the JSON paths of body with their value types
// ("segments[].words[].probability number"), sorted and without
// duplicates: two bodies of one server's shape have the same structure
// whatever the words. Keys of language_probabilities (language codes) are
// collapsed to "*".
func Structure(body []byte) ([]string, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	set := map[string]bool{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			set[path+" object"] = true
			for k, e := range x {
				if strings.HasSuffix(path, "language_probabilities") {
					k = "*"
				}
				walk(strings.TrimPrefix(path+"."+k, "."), e)
			}
		case []any:
			set[path+" array"] = true
			for _, e := range x {
				walk(path+"[]", e)
			}
		case string:
			set[path+" string"] = true
		case json.Number:
			set[path+" number"] = true
		case bool:
			set[path+" bool"] = true
		case nil:
			set[path+" null"] = true
		}
	}
	walk("", v)
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, strings.TrimSpace(k))
	}
	sort.Strings(out)
	return out, nil
}
