package netguard_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe/netguard"
)

func TestCheckRanges(t *testing.T) {
	blocked := map[string]string{
		"0.0.0.0":                "this network",
		"0.1.2.3":                "this network",
		"10.0.0.1":               "private",
		"10.255.255.255":         "private",
		"100.64.0.1":             "carrier-grade NAT",
		"100.127.255.254":        "carrier-grade NAT",
		"127.0.0.1":              "loopback",
		"127.255.0.9":            "loopback",
		"169.254.169.254":        "link-local",
		"169.254.0.1":            "link-local",
		"172.16.0.1":             "private",
		"172.31.255.255":         "private",
		"192.0.0.8":              "IETF",
		"192.0.2.10":             "documentation",
		"192.88.99.1":            "6to4 relay",
		"192.168.1.1":            "private",
		"198.18.0.1":             "benchmarking",
		"198.19.255.255":         "benchmarking",
		"198.51.100.7":           "documentation",
		"203.0.113.5":            "documentation",
		"224.0.0.1":              "multicast",
		"239.255.255.250":        "multicast",
		"240.0.0.1":              "reserved",
		"255.255.255.255":        "reserved",
		"::":                     "unspecified",
		"::1":                    "loopback",
		"::127.0.0.1":            "IPv4-compatible",
		"::8.8.8.8":              "IPv4-compatible",
		"::ffff:127.0.0.1":       "IPv4-mapped loopback",
		"::ffff:10.1.2.3":        "IPv4-mapped private",
		"::ffff:169.254.169.254": "IPv4-mapped link-local",
		"::ffff:0:7f00:1":        "reserved IPv6",
		"64:ff9b::10.0.0.1":      "NAT64 address embedding 10.0.0.1",
		"64:ff9b::7f00:1":        "NAT64 address embedding 127.0.0.1",
		"64:ff9b::a9fe:a9fe":     "NAT64 address embedding 169.254.169.254",
		"64:ff9b:1::1":           "local-use NAT64",
		"100::1":                 "discard-only",
		"2001::1":                "IETF",
		"2001:db8::1":            "documentation",
		"2002:7f00:1::1":         "6to4 address embedding 127.0.0.1",
		"2002:c0a8:101::1":       "6to4 address embedding 192.168.1.1",
		"3fff::1":                "documentation",
		"fc00::1":                "unique local",
		"fd12:3456::1":           "unique local",
		"fe80::1":                "link-local",
		"fe80::1%eth0":           "link-local",
		"febf::1":                "link-local",
		"fec0::1":                "site-local",
		"ff02::1":                "multicast",
		"ff05::2":                "multicast",
		"4000::1":                "reserved IPv6",
		"8000::1":                "reserved IPv6",
	}
	for s, want := range blocked {
		ip := netip.MustParseAddr(s)
		err := netguard.Check(ip)
		var be *netguard.BlockedError
		if !errors.As(err, &be) {
			t.Errorf("Check(%s) = %v, want a *BlockedError", s, err)
			continue
		}
		if !strings.Contains(be.Reason, want) {
			t.Errorf("Check(%s) reason %q, want it to mention %q", s, be.Reason, want)
		}
		if be.Addr != ip.WithZone("") {
			t.Errorf("Check(%s).Addr = %v", s, be.Addr)
		}
		if !strings.Contains(err.Error(), ip.WithZone("").String()) {
			t.Errorf("Check(%s) error %q does not name the address", s, err)
		}
	}
	allowed := []string{
		"8.8.8.8", "1.1.1.1", "93.184.216.34", "100.63.255.255", "100.128.0.0",
		"172.15.255.255", "172.32.0.0", "192.0.1.1", "192.169.0.1", "198.17.255.255",
		"198.20.0.0", "223.255.255.255", "11.0.0.1", "169.253.255.255", "126.255.255.255",
		"::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1", "2606:4700:4700::1111",
		"2a00:1450:4001:80b::200e", "2001:4860:4860::8888",
	}
	for _, s := range allowed {
		if err := netguard.Check(netip.MustParseAddr(s)); err != nil {
			t.Errorf("Check(%s) = %v, want nil", s, err)
		}
	}
	if err := netguard.Check(netip.Addr{}); err == nil {
		t.Error("Check(zero Addr) = nil, want refusal")
	}
}

func TestCheckLiteral(t *testing.T) {
	refused := []string{
		"http://169.254.169.254/",
		"http://169.254.169.254/latest/meta-data/iam/security-credentials/",
		"http://127.0.0.1:22/",
		"https://127.0.0.1/",
		"http://localhost/",
		"http://LOCALHOST:8080/x",
		"http://localhost./",
		"http://api.localhost/",
		"http://ip6-localhost/",
		"http://[::1]:8080/",
		"http://[::ffff:127.0.0.1]/",
		"http://[::ffff:a9fe:a9fe]/",
		"http://[fe80::1%25eth0]/",
		"http://[fd00::1]/",
		"http://[64:ff9b::a9fe:a9fe]/",
		"http://10.0.0.5/hook?x=1",
		"http://192.168.0.1/",
		"http://0.0.0.0:8080/",
		"http://100.100.100.200/",
		"http://127.1/",
		"http://2130706433/",
		"http://0x7f.0.0.1/",
		"http://0177.0.0.1/",
		"http://017700000001/",
		"http://user:pass@127.0.0.1/",
	}
	for _, u := range refused {
		err := netguard.CheckLiteral(u)
		var be *netguard.BlockedError
		if !errors.As(err, &be) {
			t.Errorf("CheckLiteral(%q) = %v, want *BlockedError", u, err)
			continue
		}
		if be.Host == "" {
			t.Errorf("CheckLiteral(%q): BlockedError.Host is empty", u)
		}
	}
	allowed := []string{
		"https://example.com/audio.mp3",
		"http://8.8.8.8/",
		"https://[2606:4700:4700::1111]/",
		"http://localhost.example.com/",
		"https://hooks.example.org/earshot?token=abc",
		"http://1.2.3.4.5/", // not an address: a (strange) host name
		"http://0x/",
	}
	for _, u := range allowed {
		if err := netguard.CheckLiteral(u); err != nil {
			t.Errorf("CheckLiteral(%q) = %v, want nil", u, err)
		}
	}
	for _, u := range []string{"http://[::1", "/relative/path", "http://:80/"} {
		if err := netguard.CheckLiteral(u); !errors.Is(err, netguard.ErrInvalidURL) {
			t.Errorf("CheckLiteral(%q) = %v, want ErrInvalidURL", u, err)
		}
	}
}

func TestCheckLiteralMessages(t *testing.T) {
	err := netguard.CheckLiteral("http://169.254.169.254/")
	if err == nil || !strings.Contains(err.Error(), "169.254.169.254") || !strings.Contains(err.Error(), "link-local") {
		t.Errorf("error %q should name the address and the range", err)
	}
	err = netguard.CheckLiteral("http://localhost:9/")
	if err == nil || !strings.Contains(err.Error(), "localhost") {
		t.Errorf("error %q should name the host", err)
	}
}

// testServer returns a loopback server and the Options that permit exactly
// that server's address, so everything else on loopback stays blocked.
func testServer(t *testing.T, h http.Handler) (*httptest.Server, netip.AddrPort) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	ap := netip.MustParseAddrPort(srv.Listener.Addr().String())
	return srv, ap
}

func permitOnly(ap netip.AddrPort) func(netip.AddrPort) bool {
	return func(a netip.AddrPort) bool { return a == ap }
}

func TestClientRefusesLoopbackByDefault(t *testing.T) {
	var hits atomic.Int32
	srv, _ := testServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	c := netguard.Client(netguard.Options{})
	_, err := c.Get(srv.URL)
	var be *netguard.BlockedError
	if !errors.As(err, &be) {
		t.Fatalf("Get(%s) = %v, want a *BlockedError", srv.URL, err)
	}
	if !be.Addr.IsLoopback() {
		t.Errorf("blocked address %v, want loopback", be.Addr)
	}
	if hits.Load() != 0 {
		t.Errorf("server saw %d requests, want 0", hits.Load())
	}
	// AllowPrivate lets it through.
	resp, err := netguard.Client(netguard.Options{AllowPrivate: true}).Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if hits.Load() != 1 {
		t.Errorf("server saw %d requests, want 1", hits.Load())
	}
}

func TestClientResolvedNameIsChecked(t *testing.T) {
	var hits atomic.Int32
	_, ap := testServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	resolve := func(ctx context.Context, network, host string) ([]netip.Addr, error) {
		if host == "rebind.test" {
			return []netip.Addr{ap.Addr()}, nil
		}
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	c := netguard.Client(netguard.Options{Resolve: resolve})
	u := fmt.Sprintf("http://rebind.test:%d/", ap.Port())
	_, err := c.Get(u)
	var be *netguard.BlockedError
	if !errors.As(err, &be) {
		t.Fatalf("Get(%s) = %v, want a *BlockedError", u, err)
	}
	if be.Host != "rebind.test" || be.Addr != ap.Addr() {
		t.Errorf("BlockedError = %+v, want host rebind.test and addr %v", be, ap.Addr())
	}
	if !strings.Contains(err.Error(), "rebind.test") || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("error %q should name the host and the range", err)
	}
	if hits.Load() != 0 {
		t.Errorf("server was reached %d times", hits.Load())
	}

	// A name resolving to a blocked and an allowed (here: permitted) address
	// connects only to the allowed one.
	blockedIP := netip.MustParseAddr("169.254.169.254")
	mixed := func(ctx context.Context, network, host string) ([]netip.Addr, error) {
		return []netip.Addr{blockedIP, ap.Addr()}, nil
	}
	var asked []netip.AddrPort
	c = netguard.Client(netguard.Options{Resolve: mixed, Permit: func(a netip.AddrPort) bool {
		asked = append(asked, a)
		return a == ap
	}})
	resp, err := c.Get(fmt.Sprintf("http://mixed.test:%d/", ap.Port()))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if hits.Load() != 1 {
		t.Errorf("server saw %d requests, want 1", hits.Load())
	}
	if len(asked) == 0 || asked[0].Addr() != blockedIP {
		t.Errorf("Permit was asked %v, want the metadata address first", asked)
	}
}

func TestClientRedirectToBlockedAddress(t *testing.T) {
	var internalHits atomic.Int32
	internal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		internalHits.Add(1)
		io.WriteString(w, "secret")
	}))
	defer internal.Close()
	internalAP := netip.MustParseAddrPort(internal.Listener.Addr().String())

	targets := map[string]string{
		"literal":  internal.URL + "/latest/meta-data/",
		"metadata": "http://169.254.169.254/latest/meta-data/",
		"name":     fmt.Sprintf("http://internal.test:%d/", internalAP.Port()),
	}
	for name, target := range targets {
		t.Run(name, func(t *testing.T) {
			public, ap := testServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, target, http.StatusFound)
			}))
			resolve := func(ctx context.Context, network, host string) ([]netip.Addr, error) {
				if host == "internal.test" {
					return []netip.Addr{internalAP.Addr()}, nil
				}
				return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
			}
			c := netguard.Client(netguard.Options{Permit: permitOnly(ap), Resolve: resolve, DialTimeout: 2 * time.Second})
			_, err := c.Get(public.URL)
			var be *netguard.BlockedError
			if !errors.As(err, &be) {
				t.Fatalf("Get = %v, want *BlockedError", err)
			}
			if internalHits.Load() != 0 {
				t.Errorf("internal server was reached")
			}
		})
	}
}

func TestClientRedirectPolicy(t *testing.T) {
	var hits atomic.Int32
	srv, ap := testServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := hits.Add(1)
		switch r.URL.Path {
		case "/loop":
			http.Redirect(w, r, fmt.Sprintf("/loop?n=%d", n), http.StatusFound)
		case "/ftp":
			http.Redirect(w, r, "ftp://example.com/file", http.StatusFound)
		case "/chain":
			// Redirect n times then answer.
			var left int
			fmt.Sscan(r.URL.Query().Get("left"), &left)
			if left > 0 {
				http.Redirect(w, r, fmt.Sprintf("/chain?left=%d", left-1), http.StatusFound)
				return
			}
			io.WriteString(w, "done")
		}
	}))
	c := netguard.Client(netguard.Options{Permit: permitOnly(ap)})

	_, err := c.Get(srv.URL + "/loop")
	if !errors.Is(err, netguard.ErrRedirect) {
		t.Errorf("redirect loop: %v, want ErrRedirect", err)
	}
	if got := hits.Load(); got != netguard.MaxRedirects+1 {
		t.Errorf("redirect loop made %d requests, want %d", got, netguard.MaxRedirects+1)
	}

	hits.Store(0)
	resp, err := c.Get(srv.URL + "/chain?left=10")
	if err != nil {
		t.Fatalf("10 redirects: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("10 redirects: status %d", resp.StatusCode)
	}

	_, err = c.Get(srv.URL + "/ftp")
	if !errors.Is(err, netguard.ErrRedirect) || !strings.Contains(err.Error(), "ftp") {
		t.Errorf("redirect to ftp: %v, want ErrRedirect naming the scheme", err)
	}

	// MaxRedirects < 0: the redirect response itself comes back.
	nc := netguard.Client(netguard.Options{Permit: permitOnly(ap), MaxRedirects: -1})
	resp, err = nc.Get(srv.URL + "/chain?left=1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Errorf("MaxRedirects -1: status %d, want 302", resp.StatusCode)
	}
}

func TestClientIgnoresProxyEnvironment(t *testing.T) {
	var proxyHits atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { proxyHits.Add(1) }))
	defer proxy.Close()
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("http_proxy", proxy.URL)
	c := netguard.Client(netguard.Options{})
	_, err := c.Get("http://169.254.169.254/")
	if !errors.As(err, new(*netguard.BlockedError)) {
		t.Errorf("Get via proxy env = %v, want *BlockedError", err)
	}
	if proxyHits.Load() != 0 {
		t.Errorf("the environment's proxy was used")
	}
}

func TestDialerNetworks(t *testing.T) {
	d := netguard.NewDialer(netguard.Options{})
	ctx := context.Background()
	if _, err := d.DialContext(ctx, "udp", "8.8.8.8:53"); err == nil {
		t.Error("udp dial succeeded")
	}
	if _, err := d.DialContext(ctx, "tcp", "no-port"); err == nil {
		t.Error("address without port accepted")
	}
	for _, a := range []string{"127.0.0.1:1", "[::1]:1", "[fe80::1%lo]:1", "[::ffff:127.0.0.1]:1", "0.0.0.0:80"} {
		_, err := d.DialContext(ctx, "tcp", a)
		if !errors.As(err, new(*netguard.BlockedError)) {
			t.Errorf("dial %s = %v, want *BlockedError", a, err)
		}
	}
}

func TestBlockedErrorThroughURLError(t *testing.T) {
	_, err := netguard.Client(netguard.Options{}).Get("http://10.0.0.1/")
	var ue *url.Error
	if !errors.As(err, &ue) {
		t.Fatalf("error %T is not a *url.Error", err)
	}
	if !errors.As(err, new(*netguard.BlockedError)) {
		t.Fatalf("*BlockedError not found in %v", err)
	}
}

// DNS rebinding: a name that resolved to an allowed address for the first
// connection and to an internal one for the next is refused the second time,
// because every dial checks what it dials.
func TestClientDNSRebinding(t *testing.T) {
	var hits atomic.Int32
	_, ap := testServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	var lookups atomic.Int32
	resolve := func(ctx context.Context, network, host string) ([]netip.Addr, error) {
		if lookups.Add(1) == 1 {
			return []netip.Addr{ap.Addr()}, nil // "public" (permitted) the first time
		}
		return []netip.Addr{netip.MustParseAddr("127.0.0.2")}, nil
	}
	tr := netguard.Transport(netguard.Options{Resolve: resolve, Permit: permitOnly(ap)})
	tr.DisableKeepAlives = true // force a new dial per request
	c := &http.Client{Transport: tr}
	u := fmt.Sprintf("http://rebind.test:%d/", ap.Port())
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("first request: %v", err)
	}
	resp.Body.Close()
	_, err = c.Get(u)
	var be *netguard.BlockedError
	if !errors.As(err, &be) || be.Addr != netip.MustParseAddr("127.0.0.2") {
		t.Fatalf("second request after rebinding = %v, want *BlockedError for 127.0.0.2", err)
	}
	if hits.Load() != 1 || lookups.Load() != 2 {
		t.Errorf("hits %d lookups %d, want 1 and 2", hits.Load(), lookups.Load())
	}
}
