package openapi_test

import (
	"go/ast"
	"go/parser"
	"go/token"
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
