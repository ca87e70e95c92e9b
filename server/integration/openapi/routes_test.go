package openapi_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// route is a pattern registered on httpapi's mux and the methods its
// handler serves (nil when the handler decides, like the WebSocket and
// token handlers).
type route struct {
	path    string
	methods []string
}

// httpapiRoutes reads httpapi's source and returns every pattern it
// registers with Handle or HandleFunc and a literal pattern ("/path" or
// "METHOD /path"): the pattern's method, or the keys of the
// a.method(map[string]handler{...}) it is given. The catch-all "/" is left
// out. A route registered with a computed pattern is not seen here (nor
// by TestRoutesMatchDocument, which starts from the document).
func httpapiRoutes(t *testing.T) []route {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "httpapi", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []route
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 2 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || (sel.Sel.Name != "Handle" && sel.Sel.Name != "HandleFunc") {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true // not a mux registration (slog.Handler.Handle, say)
			}
			pattern, _ := strconv.Unquote(lit.Value)
			if _, p, ok := strings.Cut(pattern, " "); !strings.HasPrefix(pattern, "/") && !(ok && strings.HasPrefix(p, "/")) {
				return true
			}
			r := route{path: pattern}
			if m, p, ok := strings.Cut(pattern, " "); ok {
				r.path, r.methods = p, []string{m}
			}
			ast.Inspect(call.Args[1], func(n ast.Node) bool {
				cl, ok := n.(*ast.CompositeLit)
				if !ok {
					return true
				}
				if _, isMap := cl.Type.(*ast.MapType); !isMap {
					return true
				}
				for _, e := range cl.Elts {
					if kv, ok := e.(*ast.KeyValueExpr); ok {
						if k, ok := kv.Key.(*ast.BasicLit); ok {
							m, _ := strconv.Unquote(k.Value)
							r.methods = append(r.methods, m)
						}
					}
				}
				return false
			})
			sort.Strings(r.methods)
			if r.path != "/" {
				out = append(out, r)
			}
			return true
		})
	}
	if len(out) < 10 {
		t.Fatalf("found only %d routes in httpapi; the source changed shape, teach this test to read it", len(out))
	}
	return out
}

// TestHTTPAPIRoutesAreDocumented checks that every route httpapi registers
// is a path of the document with the same methods, and that every path of
// the document is a route of httpapi (/openapi.json included once httpapi
// mounts it).
func TestHTTPAPIRoutesAreDocumented(t *testing.T) {
	t.Parallel()
	s := loadSpec(t)
	routes := httpapiRoutes(t)
	registered := map[string]bool{}
	for _, r := range routes {
		registered[r.path] = true
		item, ok := s.model.Paths.PathItems.Get(r.path)
		if !ok {
			t.Errorf("httpapi serves %s %v; the document does not describe it", r.path, r.methods)
			continue
		}
		var doc []string
		for m := range item.GetOperations().KeysFromOldest() {
			doc = append(doc, strings.ToUpper(m))
		}
		sort.Strings(doc)
		if r.methods != nil && !slices.Equal(r.methods, doc) {
			t.Errorf("%s: httpapi serves %v, the document describes %v", r.path, r.methods, doc)
		}
	}
	for path := range s.model.Paths.PathItems.KeysFromOldest() {
		if registered[path] {
			continue
		}
		t.Errorf("the document describes %s; httpapi does not register it", path)
	}
}

// TestRoutesMatchDocument checks that every method the document lists on
// each path is served (not the unknown-path 404, not 405), and that every
// other method gets what the path's x-earshot-other-methods says: 405 with
// an Allow header naming exactly the documented methods, or the 404 or 426
// it names. An unknown path is the documented 404.
func TestRoutesMatchDocument(t *testing.T) {
	t.Parallel()
	s := loadSpec(t)
	srv := newServer(t, serverOptions{})
	methods := []string{"GET", "POST", "PUT", "PATCH", "DELETE"}
	for path, item := range s.model.Paths.PathItems.FromOldest() {
		target := strings.NewReplacer("{id}", "6f1c2c1e-8d7f-4f59-9a57-1b1a5b0d1d1d", "{format}", "srt", "{sig}", "00",
			"{session_id}", "6f1c2c1e-8d7f-4f59-9a57-1b1a5b0d1d1e").Replace(path)
		var documented []string
		for m := range item.GetOperations().KeysFromOldest() {
			documented = append(documented, strings.ToUpper(m))
		}
		sort.Strings(documented)
		other, _ := s.raw["paths"].(map[string]any)[path].(map[string]any)["x-earshot-other-methods"].(map[string]any)
		for _, m := range methods {
			r, _ := http.NewRequest(m, srv.url+target, strings.NewReader("{}"))
			r.Header.Set("Authorization", key1)
			res, err := http.DefaultClient.Do(r)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if slices.Contains(documented, m) {
				if res.StatusCode == 405 || (res.StatusCode == 404 && strings.Contains(string(body), "no endpoint")) {
					t.Errorf("%s %s is documented but not served: %d %s", m, path, res.StatusCode, body)
				}
				continue
			}
			if other == nil {
				t.Errorf("%s %s: %d, and the path has no x-earshot-other-methods", m, path, res.StatusCode)
				continue
			}
			want := int(other["status"].(float64))
			if res.StatusCode != want {
				t.Errorf("%s %s: %d %s, x-earshot-other-methods says %d", m, path, res.StatusCode, body, want)
				continue
			}
			if want == 426 {
				continue // text/plain from the WebSocket library
			}
			s.schemaCheck(t, "Error", body)
			if res.Header.Get("Content-Type") != "application/json" {
				t.Errorf("%s %s: %d with Content-Type %q", m, path, want, res.Header.Get("Content-Type"))
			}
			if want == 405 {
				allow := strings.Split(res.Header.Get("Allow"), ", ")
				sort.Strings(allow)
				var doc []string
				for _, a := range other["allow"].([]any) {
					doc = append(doc, a.(string))
				}
				if !slices.Equal(allow, documented) || !slices.Equal(doc, documented) {
					t.Errorf("%s %s: Allow %v, x-earshot-other-methods allow %v, documented operations %v", m, path, allow, doc, documented)
				}
			}
		}
	}
	for _, key := range []string{"", key1} {
		r, _ := http.NewRequest("GET", srv.url+"/v2/nothing/here", nil)
		if key != "" {
			r.Header.Set("Authorization", key)
		}
		res, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		want := int(s.raw["x-earshot-unknown-path"].(map[string]any)["status"].(float64))
		if res.StatusCode != want || res.Header.Get("Content-Type") != "application/json" {
			t.Errorf("unknown path: %d %q", res.StatusCode, res.Header.Get("Content-Type"))
		}
		s.schemaCheck(t, "Error", body)
	}
}
