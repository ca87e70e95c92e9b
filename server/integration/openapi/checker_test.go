package openapi_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	liberrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/schema_validation"
)

// checker sends requests to a server and validates every exchange against
// the document: the request must be accepted by the document exactly when
// the test says so (the document must refuse what the server refuses,
// where its schemas can state the rule), and the response must match the
// documented status, content type, headers and body schema, in strict
// mode (no key the document does not declare). It records which
// documented responses were seen, for TestLiveResponsesMatchDocument's
// coverage check.
type checker struct {
	t     *testing.T
	spec  *spec
	reqV  validator.Validator // the document's own semantics: unknown request keys allowed
	base  string
	mu    sync.Mutex
	seen  map[string]bool // "METHOD /template STATUS"
	count int
}

var (
	reqVOnce sync.Once
	reqV     validator.Validator
)

func newChecker(t *testing.T, base string, seen map[string]bool) *checker {
	s := loadSpec(t)
	reqVOnce.Do(func() {
		// Request validation without strict mode: the document lets
		// clients send keys it does not list (the server ignores them).
		v, errs := validator.NewValidator(s.doc, config.WithFormatAssertions(), config.WithStandardBodyDecoders())
		if len(errs) > 0 {
			t.Fatalf("request validator: %v", errs)
		}
		reqV = v
	})
	return &checker{t: t, spec: s, reqV: reqV, base: base, seen: seen}
}

// req describes one request and what the test expects of it.
type req struct {
	method, target string // target is path?query
	key            string // authorization header; "" sends none
	body           []byte // nil sends no body
	ctype          string // Content-Type of the body; default application/json
	header         http.Header
	status         int  // expected status
	docRejects     bool // the document must refuse the request
}

// res is a response, its body read.
type res struct {
	status int
	header http.Header
	body   []byte
}

func (r res) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %q", r.body)
	}
	return m
}

func (r res) str(t testing.TB, key string) string {
	t.Helper()
	s, ok := r.json(t)[key].(string)
	if !ok {
		t.Fatalf("no string %q in %s", key, r.body)
	}
	return s
}

func (c *checker) newRequest(q req) *http.Request {
	c.t.Helper()
	var body io.Reader
	if q.body != nil {
		body = bytes.NewReader(q.body)
	}
	r, err := http.NewRequest(q.method, c.base+q.target, body)
	if err != nil {
		c.t.Fatal(err)
	}
	if q.key != "" {
		r.Header.Set("Authorization", q.key)
	}
	if q.body != nil {
		ct := q.ctype
		if ct == "" {
			ct = "application/json"
		}
		r.Header.Set("Content-Type", ct)
	}
	for k, vs := range q.header {
		r.Header[k] = vs
	}
	return r
}

// do sends q and checks the exchange.
func (c *checker) do(q req) res {
	c.t.Helper()
	r := c.newRequest(q)
	hres, err := http.DefaultClient.Do(r)
	if err != nil {
		c.t.Fatalf("%s %s: %v", q.method, q.target, err)
	}
	body, err := io.ReadAll(hres.Body)
	hres.Body.Close()
	if err != nil {
		c.t.Fatalf("%s %s: reading the body: %v", q.method, q.target, err)
	}
	out := res{status: hres.StatusCode, header: hres.Header, body: body}
	c.check(q, hres, out)
	return out
}

// check validates an exchange already made.
func (c *checker) check(q req, hres *http.Response, out res) {
	c.t.Helper()
	what := q.method + " " + q.target
	if out.status != q.status {
		c.t.Errorf("%s: status %d, want %d: %.300s\nrequest body: %.300s", what, out.status, q.status, out.body, q.body)
		return
	}
	tmpl := c.spec.template(q.target)
	if tmpl == "" {
		c.t.Errorf("%s: no path of the document matches", what)
		return
	}
	c.mu.Lock()
	c.seen[q.method+" "+tmpl+" "+strconv.Itoa(out.status)] = true
	c.count++
	c.mu.Unlock()

	// The request, as the document sees it.
	vr := c.newRequest(q)
	c.stripEmptyAllowed(vr, tmpl)
	ok, errs := c.reqV.ValidateHttpRequestSync(vr)
	if ok {
		errs = c.spec.contentParamErrors(vr, tmpl)
		ok = len(errs) == 0
	}
	switch {
	case q.docRejects && ok:
		c.t.Errorf("%s: the server answers %d but the document accepts the request (body %.200s)", what, out.status, q.body)
	case !q.docRejects && !ok:
		c.t.Errorf("%s: the document refuses a request the server handles (%d):%s", what, out.status, describe(errs))
	}

	// The response.
	vres := &http.Response{StatusCode: out.status, Header: out.header, Body: io.NopCloser(bytes.NewReader(out.body)), Request: vr}
	if hres != nil {
		vres.Proto, vres.ProtoMajor, vres.ProtoMinor = hres.Proto, hres.ProtoMajor, hres.ProtoMinor
	}
	v := c.spec.v
	if tmpl == "/openapi.json" {
		// The document's own keys are not all spelled out in its
		// response schema; TestHandler compares the body byte for byte.
		v = c.reqV
	}
	if ok, errs := v.ValidateHttpResponse(c.newRequest(q), vres); !ok {
		c.t.Errorf("%s: %d response does not match the document:%s\nbody: %.500s", what, out.status, describe(errs), out.body)
	}
}

// stripEmptyAllowed removes empty query values of parameters the document
// marks allowEmptyValue (the validator does not implement that keyword):
// the server treats them as absent.
func (c *checker) stripEmptyAllowed(r *http.Request, tmpl string) {
	q := r.URL.Query()
	changed := false
	for name, vs := range q {
		if len(vs) == 1 && vs[0] == "" && c.spec.allowsEmpty(tmpl, r.Method, name) {
			q.Del(name)
			changed = true
		}
	}
	if changed {
		r.URL.RawQuery = q.Encode()
	}
}

// contentParamErrors validates query parameters declared with content
// application/json (a JSON value in the query string), which the
// validator reads as plain strings: the value must parse and match the
// schema.
func (s *spec) contentParamErrors(r *http.Request, tmpl string) []*liberrors.ValidationError {
	item, _ := s.model.Paths.PathItems.Get(tmpl)
	if item == nil {
		return nil
	}
	op := item.GetOperations().GetOrZero(strings.ToLower(r.Method))
	if op == nil {
		return nil
	}
	var errs []*liberrors.ValidationError
	for _, p := range op.Parameters {
		if p.In != "query" || p.Content == nil {
			continue
		}
		mt, ok := p.Content.Get("application/json")
		if !ok {
			continue
		}
		raw, present := r.URL.Query()[p.Name]
		if !present {
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(raw[0]), &v); err != nil {
			errs = append(errs, &liberrors.ValidationError{Message: "query parameter " + p.Name + " is not JSON", Reason: err.Error()})
			continue
		}
		sv := schema_validation.NewSchemaValidator()
		if ok, e := sv.ValidateSchemaObjectWithVersion(mt.Schema.Schema(), v, 3.1); !ok {
			errs = append(errs, e...)
		}
	}
	return errs
}

// template returns the document's path template matching target's path:
// literal segments win over parameters, as OpenAPI specifies.
func (s *spec) template(target string) string {
	p := target
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p = p[:i]
	}
	segs := strings.Split(p, "/")
	best, bestParams := "", -1
	for tmpl := range s.model.Paths.PathItems.KeysFromOldest() {
		ts := strings.Split(tmpl, "/")
		if len(ts) != len(segs) {
			continue
		}
		params, ok := 0, true
		for i := range ts {
			if strings.HasPrefix(ts[i], "{") {
				params++
				if segs[i] == "" {
					ok = false
				}
			} else if ts[i] != segs[i] {
				ok = false
			}
		}
		if ok && (bestParams < 0 || params < bestParams) {
			best, bestParams = tmpl, params
		}
	}
	return best
}

func (s *spec) allowsEmpty(tmpl, method, name string) bool {
	item, _ := s.model.Paths.PathItems.Get(tmpl)
	if item == nil {
		return false
	}
	op := item.GetOperations().GetOrZero(strings.ToLower(method))
	if op == nil {
		return false
	}
	for _, p := range op.Parameters {
		if p.Name == name && p.In == "query" && p.AllowEmptyValue {
			return true
		}
	}
	return false
}

// schemaCheck validates a JSON value against a component schema, for
// bodies no operation describes (405s, the unknown-path 404, WebSocket
// messages).
func (s *spec) schemaCheck(t testing.TB, name string, body []byte) {
	t.Helper()
	sch := s.model.Components.Schemas.GetOrZero(name)
	if sch == nil {
		t.Fatalf("no schema %s", name)
	}
	sv := schema_validation.NewSchemaValidator(config.WithFormatAssertions())
	if ok, errs := sv.ValidateSchemaBytesWithVersion(sch.Schema(), body, 3.1); !ok {
		t.Errorf("%.300s does not match %s:%s", body, name, describe(errs))
	}
}

// upload uploads body for key and returns the upload_url.
func (c *checker) upload(key string, body []byte) string {
	c.t.Helper()
	return c.do(req{method: "POST", target: "/v2/upload", key: key, body: body, ctype: "application/octet-stream", status: 200}).str(c.t, "upload_url")
}

// waitDone polls the transcript until it is completed or error and returns
// the status; every poll is a validated exchange.
func (c *checker) waitDone(key, id string) string {
	c.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		st, _ := c.do(req{method: "GET", target: "/v2/transcript/" + id, key: key, status: 200}).json(c.t)["status"].(string)
		if st == "completed" || st == "error" {
			return st
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.t.Fatalf("transcript %s did not finish", id)
	return ""
}

// truncatedUpload sends an upload whose body stops short of its
// Content-Length (the client went away): 422 text/plain.
func (c *checker) truncatedUpload(key string) {
	c.t.Helper()
	u, _ := url.Parse(c.base)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		c.t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v2/upload HTTP/1.1\r\nHost: %s\r\nAuthorization: %s\r\nContent-Type: application/octet-stream\r\nContent-Length: 100000\r\n\r\n", u.Host, key)
	part := bytes.Repeat([]byte{1}, 1000)
	conn.Write(part)
	conn.(*net.TCPConn).CloseWrite()
	q := req{method: "POST", target: "/v2/upload", key: key, body: part, ctype: "application/octet-stream", status: 422}
	hres, err := http.ReadResponse(bufio.NewReader(conn), c.newRequest(q))
	if err != nil {
		c.t.Fatal(err)
	}
	body, _ := io.ReadAll(hres.Body)
	hres.Body.Close()
	c.check(q, hres, res{status: hres.StatusCode, header: hres.Header, body: body})
}

// stalledUpload sends part of an upload and then nothing: the server
// gives up after its body idle timeout with 422 text/plain.
func (c *checker) stalledUpload(key string, idle time.Duration) {
	c.t.Helper()
	u, _ := url.Parse(c.base)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		c.t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v2/upload HTTP/1.1\r\nHost: %s\r\nAuthorization: %s\r\nContent-Type: application/octet-stream\r\nContent-Length: 100000\r\n\r\n", u.Host, key)
	part := bytes.Repeat([]byte{1}, 1000)
	conn.Write(part)
	conn.SetReadDeadline(time.Now().Add(idle + 10*time.Second))
	q := req{method: "POST", target: "/v2/upload", key: key, body: part, ctype: "application/octet-stream", status: 422}
	start := time.Now()
	hres, err := http.ReadResponse(bufio.NewReader(conn), c.newRequest(q))
	if err != nil {
		c.t.Fatal(err)
	}
	body, _ := io.ReadAll(hres.Body)
	hres.Body.Close()
	if el := time.Since(start); el < idle/2 {
		c.t.Errorf("a stalled upload was answered after %v, before the idle timeout %v", el, idle)
	}
	c.check(q, hres, res{status: hres.StatusCode, header: hres.Header, body: body})
}

// newWebhookReceiver returns the URL of a webhook endpoint that answers 200.
func newWebhookReceiver(t *testing.T) string {
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.Copy(io.Discard, r.Body) })}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return "http://" + l.Addr().String() + "/hook?x=1"
}
