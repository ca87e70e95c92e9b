package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"

	"github.com/earshot-dev/earshot/server"
)

// connOptions are the flags that choose the server.
type connOptions struct {
	url  string
	key  string
	data string
}

var connFlagNames = map[string]bool{"url": true, "key": true, "data": true}

func addConnFlags(fs *flag.FlagSet) *connOptions {
	o := &connOptions{}
	fs.StringVar(&o.url, "url", "", "server `URL`, e.g. http://127.0.0.1:8080 (default $EARSHOT_URL; unset: run the server in-process)")
	fs.StringVar(&o.key, "key", "", "API `KEY` (default $EARSHOT_KEY)")
	fs.StringVar(&o.data, "data", "", "data directory `DIR` of the in-process server (default $EARSHOT_DATA, else <user cache dir>/earshot)")
	return o
}

// client talks to one server through the official Go SDK; inproc is the
// server this process runs when no URL was given.
type client struct {
	sdk    *aai.Client
	hc     *http.Client
	base   string // scheme://host[:port], no trailing slash
	key    string
	inproc *server.InProcess
}

// httpError is an error answer of the server.
type httpError struct {
	Status  int
	Message string
}

func (e *httpError) Error() string {
	text := http.StatusText(e.Status)
	if e.Message == "" {
		return fmt.Sprintf("the server answered %d %s", e.Status, text)
	}
	return fmt.Sprintf("%s (HTTP %d)", strings.TrimSuffix(e.Message, "."), e.Status)
}

// sdkErr turns the SDK's APIError into an *httpError, keeping other
// errors as they are.
func sdkErr(err error) error {
	var ae aai.APIError
	if errors.As(err, &ae) {
		return &httpError{Status: ae.Status, Message: ae.Message}
	}
	var ap *aai.APIError
	if errors.As(err, &ap) {
		return &httpError{Status: ap.Status, Message: ap.Message}
	}
	return err
}

// connect returns a client for the server the options and environment
// name, starting one in-process when they name none.
func (c *cli) connect(ctx context.Context, o *connOptions, prog *progress) (*client, error) {
	base := c.serverURL(o)
	key := o.key
	if key == "" {
		key = c.getenv("EARSHOT_KEY")
	}
	hc := &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 2 * time.Minute,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConnsPerHost:   4,
	}}
	cl := &client{hc: hc}
	if base == "" {
		if o.key != "" {
			return nil, usageErrorf("--key needs --url (or EARSHOT_URL): the in-process server makes its own key")
		}
		srv, k, err := c.startInProcess(ctx, o, prog)
		if err != nil {
			return nil, err
		}
		cl.inproc, base, key = srv, srv.URL, k
	} else {
		u, err := url.Parse(base)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, usageErrorf("server URL %q must be http:// or https:// and a host, e.g. http://127.0.0.1:8080", base)
		}
		if strings.Trim(u.Path, "/") != "" || u.RawQuery != "" {
			return nil, usageErrorf("server URL %q must be the server's origin, without a path (the Go SDK drops path prefixes)", base)
		}
		base = u.Scheme + "://" + u.Host
	}
	cl.base, cl.key = base, key
	cl.sdk = aai.NewClientWithOptions(
		aai.WithBaseURL(base),
		aai.WithAPIKey(key),
		aai.WithHTTPClient(hc),
		aai.WithUserAgent("earshot-cli/"+version()+" AssemblyAI/1.0 (sdk=Go/1.10.0)"),
	)
	return cl, nil
}

// serverURL is the server the options and environment name; "" means
// in-process.
func (c *cli) serverURL(o *connOptions) string {
	if o.url != "" {
		return o.url
	}
	return c.getenv("EARSHOT_URL")
}

// defaultDataDir is where the in-process server keeps its data.
func (c *cli) defaultDataDir() (string, error) {
	if d := c.getenv("EARSHOT_DATA"); d != "" {
		return d, nil
	}
	cache := c.getenv("XDG_CACHE_HOME")
	if cache == "" {
		var err error
		if cache, err = os.UserCacheDir(); err != nil {
			return "", failf(exitUnavailable, "no data directory for the in-process server (%v): give --data DIR or EARSHOT_DATA, or a server with --url", err)
		}
	}
	return filepath.Join(cache, "earshot"), nil
}

// startInProcess runs the reference server in this process on a free
// loopback port, with a key made for this run. Its transcripts live in the
// data directory under the project "default" (the project of the
// reference server's development key), so later runs see them.
func (c *cli) startInProcess(ctx context.Context, o *connOptions, prog *progress) (*server.InProcess, string, error) {
	data := o.data
	if data == "" {
		var err error
		if data, err = c.defaultDataDir(); err != nil {
			return nil, "", err
		}
	}
	cfg, err := server.ParseConfig(nil)
	if err != nil {
		return nil, "", failf(exitUsage, "in-process server: %v", err)
	}
	b := make([]byte, 24)
	rand.Read(b)
	key := "cli_" + hex.EncodeToString(b)
	cfg.Addr = "127.0.0.1:0"
	cfg.PublicURL = ""
	cfg.TLSCert, cfg.TLSKey = "", ""
	cfg.Data = data
	cfg.APIKeys = key + ":default"
	cfg.Quiet = true
	// The only client is this process's user, who can read any URL the
	// server could fetch: no protection against private addresses needed.
	cfg.AllowPrivate = true
	if c.getenv("EARSHOT_LOG_LEVEL") == "" {
		cfg.LogLevel = "error"
	}
	start := c.now()
	stop := prog.Live(func(now time.Time) string {
		return "Starting the in-process server " + bounce(now.Sub(start), 12)
	})
	srv, err := server.StartInProcess(ctx, cfg)
	if err != nil {
		if prog.tty {
			stop("Starting the in-process server: failed")
		} else {
			stop("") // the error says it
		}
		if errors.Is(err, server.ErrDataDirInUse) {
			return nil, "", failf(exitUnavailable, "another earshot server is running on %s: give its address with --url (or EARSHOT_URL), or use another data directory with --data", data)
		}
		if errors.Is(err, context.Canceled) {
			return nil, "", err
		}
		return nil, "", failf(exitUnavailable, "in-process server: %v", err)
	}
	stop(fmt.Sprintf("Started the in-process server (data in %s) in %s", data, seconds(c.now().Sub(start))))
	return srv, key, nil
}

// Close stops the in-process server, if any.
func (cl *client) Close() error {
	cl.hc.CloseIdleConnections()
	if cl.inproc != nil {
		return cl.inproc.Close()
	}
	return nil
}

// check makes a cheap authenticated request, so that a wrong key or an
// unreachable server is reported before a long upload or a stream starts.
func (cl *client) check(ctx context.Context) error {
	_, err := cl.raw(ctx, http.MethodGet, "/v2/transcript?limit=1", nil)
	return err
}

// raw makes a request the SDK has no method for (or that the SDK would
// change) and returns the response body; error answers are *httpError.
func (cl *client) raw(ctx context.Context, method, path string, body []byte) ([]byte, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, cl.base+path, r)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", cl.key)
	req.Header.Set("User-Agent", "earshot-cli/"+version())
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := cl.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 400 {
		var e struct {
			Error string `json:"error"`
		}
		_ = json.Unmarshal(data, &e)
		return nil, &httpError{Status: resp.StatusCode, Message: e.Error}
	}
	return data, nil
}

// upload sends r to /v2/upload and returns its upload URL.
func (cl *client) upload(ctx context.Context, r io.Reader) (string, error) {
	u, err := cl.sdk.Upload(ctx, r)
	return u, sdkErr(err)
}

// submit creates a transcript. It goes through the SDK when the SDK's
// request struct carries every parameter given, and otherwise posts the
// same JSON itself, so that no parameter is dropped.
func (cl *client) submit(ctx context.Context, body map[string]any) (aai.Transcript, error) {
	if params, ok := sdkParams(body); ok {
		tr, err := cl.sdk.Transcripts.SubmitFromURL(ctx, aai.ToString(params.AudioURL), &params.TranscriptOptionalParams)
		return tr, sdkErr(err)
	}
	data, err := json.Marshal(body)
	if err != nil {
		return aai.Transcript{}, err
	}
	out, err := cl.raw(ctx, http.MethodPost, "/v2/transcript", data)
	if err != nil {
		return aai.Transcript{}, err
	}
	var tr aai.Transcript
	if err := json.Unmarshal(out, &tr); err != nil {
		return aai.Transcript{}, fmt.Errorf("reading the server's answer: %w", err)
	}
	return tr, nil
}

func (cl *client) get(ctx context.Context, id string) (aai.Transcript, error) {
	tr, err := cl.sdk.Transcripts.Get(ctx, id)
	return tr, sdkErr(err)
}

// checkID rejects ids that would change the request path.
func checkID(id string) error {
	if id == "" || url.PathEscape(id) != id || id == "." || id == ".." {
		return usageErrorf("%q is not a transcript id", id)
	}
	return nil
}
