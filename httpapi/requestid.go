package httpapi

import (
	"cmp"
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
)

// RequestIDHeader is the header that carries a request's id: taken from
// the request when the client (or a proxy in front) sent a sane one,
// generated otherwise, and always set on the response.
const RequestIDHeader = "X-Request-Id"

// MaxRequestIDLength is the longest incoming request id accepted.
const MaxRequestIDLength = 128

type requestIDKey struct{}

// RequestID returns the request id ctx carries (see WithRequestID), or "".
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// ContextWithRequestID returns ctx carrying id as its request id.
func ContextWithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// ValidRequestID reports whether id is acceptable as an incoming request
// id: 1 to MaxRequestIDLength characters, each an ASCII letter or digit or
// one of - _ . : / + = (which covers UUIDs, hex and base64 trace ids).
// Anything else (spaces, quotes, control characters, other bytes) is
// replaced by a generated id, so an id is always safe to log and echo.
func ValidRequestID(id string) bool {
	if id == "" || len(id) > MaxRequestIDLength {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("-_.:/+=", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// withRequestID gives r an id (unless its context has one), sets it on
// the response header and returns r with the id in its context.
func withRequestID(w http.ResponseWriter, r *http.Request) *http.Request {
	if id := RequestID(r.Context()); id != "" {
		return r
	}
	id := r.Header.Get(RequestIDHeader)
	if !ValidRequestID(id) {
		id = uuid.NewString()
	}
	w.Header().Set(RequestIDHeader, id)
	return r.WithContext(ContextWithRequestID(r.Context(), id))
}

// WithRequestID wraps h so that every request has an id: the incoming
// X-Request-Id when ValidRequestID accepts it, a new random UUID
// otherwise. The id is set on the response's X-Request-Id header before h
// runs, and the request's context carries it (RequestID), so log lines
// made with that context carry it too (LogHandler). A request whose
// context already has an id keeps it, so wrapping twice is harmless. The
// API does this itself; wrap a whole mux with it to give every other
// handler mounted beside the API (a console, health checks) ids too.
func WithRequestID(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, withRequestID(w, r))
	})
}

// LogHandler wraps h so that every record logged with a context carrying
// a request id (slog's InfoContext and friends, given the request's
// context or one derived from it) gets a request_id attribute. The
// transcribe Service logs the submission of a job with the request's
// context, which ties the job's id to the request's.
func LogHandler(h slog.Handler) slog.Handler { return logHandler{h} }

type logHandler struct{ slog.Handler }

func (l logHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := RequestID(ctx); id != "" {
		r = r.Clone()
		r.AddAttrs(slog.String("request_id", id))
	}
	return l.Handler.Handle(ctx, r)
}

func (l logHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return logHandler{l.Handler.WithAttrs(as)}
}

func (l logHandler) WithGroup(name string) slog.Handler {
	return logHandler{l.Handler.WithGroup(name)}
}

// RequestInfo describes one request the API served, for Config.OnRequest.
type RequestInfo struct {
	// Method is the request's method as the client sent it.
	Method string
	// Route is the pattern of the API's ServeMux that matched, without a
	// method ("/v2/transcript/{id}", "/v2/realtime/ws"): a small, fixed
	// set whatever paths clients send, so it is safe as a metric label.
	// Unknown paths give "/" (the API's catch-all 404); a path that is
	// not canonical ("/v2//transcript", redirected) gives the route of
	// its canonical form.
	Route string
	// Path is the request's URL path, without the query (which may hold
	// a temporary token). For logs, not metric labels: it is unbounded.
	Path string
	// Status is the response status: 101 for a WebSocket upgrade, 200
	// when the handler wrote a body without a status.
	Status int
	// Duration runs from the API receiving the request to its handler
	// returning (a WebSocket's whole session, for upgrades).
	Duration time.Duration
	// Written counts the response body bytes written.
	Written int64
	// RequestID is the request's id (RequestIDHeader).
	RequestID string
}

// Instrument wraps h, a handler mounted beside the API (OpenAI's audio
// API of httpapi/openaiapi, say), so that its requests are treated like
// the API's own: each gets an id (WithRequestID) and, once h returns, is
// reported to onRequest (the access log and metrics of Config.OnRequest)
// with the route that route(r) names (a small, fixed set such as
// openaiapi.Handler.Route gives, safe as a metric label; nil: the path).
// A nil onRequest only gives ids.
func Instrument(h http.Handler, route func(*http.Request) string, onRequest func(RequestInfo)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = withRequestID(w, r)
		if onRequest == nil {
			h.ServeHTTP(w, r)
			return
		}
		rt := r.URL.Path
		if route != nil {
			rt = route(r)
		}
		sw := &statusWriter{ResponseWriter: w}
		start := time.Now()
		defer func() {
			onRequest(RequestInfo{Method: r.Method, Route: rt, Path: r.URL.Path, Status: cmp.Or(sw.status, http.StatusOK),
				Duration: time.Since(start), Written: sw.written, RequestID: RequestID(r.Context())})
		}()
		h.ServeHTTP(sw, r)
	})
}

// routeOf returns pattern without its method.
func routeOf(pattern string) string {
	if _, p, ok := strings.Cut(pattern, " "); ok {
		return p
	}
	return pattern
}

// statusWriter records the status and body size of a response. Unwrap
// lets http.ResponseController (read deadlines of uploads) and
// coder/websocket (hijacking) reach the connection's own writer.
type statusWriter struct {
	http.ResponseWriter
	status  int
	written int64
}

func (w *statusWriter) WriteHeader(code int) {
	// The first status counts, unless it was informational (100, 103)
	// and a final one follows.
	if w.status == 0 || (w.status < 200 && w.status != http.StatusSwitchingProtocols && code >= 200) {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.written += int64(n)
	return n, err
}

// ReadFrom keeps io.Copy to the response as fast as without the wrapper
// (the connection's writer sends files with sendfile).
func (w *statusWriter) ReadFrom(r io.Reader) (int64, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := io.Copy(w.ResponseWriter, r)
	w.written += n
	return n, err
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
