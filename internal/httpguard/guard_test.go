package httpguard

import (
	"context"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func request(peer string, xff ...string) *http.Request {
	r, _ := http.NewRequest("GET", "http://x/", nil)
	r.RemoteAddr = peer
	for _, v := range xff {
		r.Header.Add("X-Forwarded-For", v)
	}
	return r
}

func mustGuard(t *testing.T, cfg Config) *Guard {
	t.Helper()
	g, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestClientAddr(t *testing.T) {
	t.Parallel()
	proxies, err := ParseTrustedProxies("10.0.0.0/8, 192.168.1.7 ,fd00::/8")
	if err != nil {
		t.Fatal(err)
	}
	trusting := mustGuard(t, Config{TrustedProxies: proxies})
	plain := mustGuard(t, Config{})
	for _, c := range []struct {
		name      string
		r         *http.Request
		plain, tr string
	}{
		{"no header", request("10.1.2.3:5000"), "10.1.2.3", "10.1.2.3"},
		{"untrusted peer's header ignored", request("203.0.113.9:5000", "1.2.3.4"), "203.0.113.9", "203.0.113.9"},
		{"one proxy", request("10.1.2.3:5000", "198.51.100.7"), "10.1.2.3", "198.51.100.7"},
		{"spoofed left part ignored", request("10.1.2.3:5000", "6.6.6.6, 198.51.100.7"), "10.1.2.3", "198.51.100.7"},
		{"two proxies", request("10.1.2.3:5000", "6.6.6.6, 198.51.100.7, 192.168.1.7"), "10.1.2.3", "198.51.100.7"},
		{"several header lines", request("10.1.2.3:5000", "6.6.6.6", "198.51.100.7:443"), "10.1.2.3", "198.51.100.7"},
		{"garbage hop stops the walk", request("10.1.2.3:5000", "6.6.6.6, <script>"), "10.1.2.3", "10.1.2.3"},
		{"all trusted", request("10.1.2.3:5000", "10.9.9.9"), "10.1.2.3", "10.9.9.9"},
		{"ipv6 peer", request("[fd00::1]:5000", "2001:db8::5"), "fd00::1", "2001:db8::5"},
		{"mapped ipv4", request("[::ffff:10.1.2.3]:5000", "198.51.100.7"), "10.1.2.3", "198.51.100.7"},
	} {
		if got := plain.ClientAddr(c.r); got != c.plain {
			t.Errorf("%s, no trusted proxies: %q, want %q", c.name, got, c.plain)
		}
		if got := trusting.ClientAddr(c.r); got != c.tr {
			t.Errorf("%s, trusted proxies: %q, want %q", c.name, got, c.tr)
		}
	}
	for _, bad := range []string{"10.0.0.0/33", "proxy.example", "10.0.0.1/8/2"} {
		if _, err := ParseTrustedProxies(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("ParseTrustedProxies(%q): %v", bad, err)
		}
	}
	if p, _ := ParseTrustedProxies("::ffff:10.0.0.0/104"); len(p) != 1 || p[0] != netip.MustParsePrefix("10.0.0.0/8") {
		t.Errorf("mapped prefix: %v", p)
	}
}

// TestKnownGoodKeys: an address over its failed-auth limit is refused,
// except for keys that authenticated from it before; another address
// (and, behind a trusted proxy, another client) is unaffected; IPv6
// clients share a /64's budget.
func TestKnownGoodKeys(t *testing.T) {
	t.Parallel()
	proxies, _ := ParseTrustedProxies("127.0.0.1")
	g := mustGuard(t, Config{AuthFailureRate: 0.001, AuthFailureBurst: 2, TrustedProxies: proxies})
	attacker := request("127.0.0.1:1", "198.51.100.7")
	g.AuthSucceeded(attacker, "good-key")
	for i := 0; i < 2; i++ {
		if _, ok := g.AuthAllowed(attacker, "guess"); !ok {
			t.Fatalf("guess %d refused within the burst", i)
		}
		g.AuthFailed(attacker)
	}
	if wait, ok := g.AuthAllowed(attacker, "guess"); ok || wait < time.Second {
		t.Fatalf("over the limit: ok %v, wait %v", ok, wait)
	}
	if _, ok := g.AuthAllowed(attacker, "other-valid-key"); ok {
		t.Error("a key never seen from the address passes the lockout")
	}
	if _, ok := g.AuthAllowed(attacker, "good-key"); !ok {
		t.Error("a known-good key is locked out")
	}
	if _, ok := g.AuthAllowed(request("127.0.0.1:1", "198.51.100.8"), "any"); !ok {
		t.Error("another client behind the proxy is locked out")
	}
	v6 := request("[2001:db8:1:2::1]:1")
	for i := 0; i < 2; i++ {
		g.AuthFailed(v6)
	}
	if _, ok := g.AuthAllowed(request("[2001:db8:1:2:ffff::9]:1"), "guess"); ok {
		t.Error("another address of the same /64 has a fresh budget")
	}
	if _, ok := g.AuthAllowed(request("[2001:db8:1:3::1]:1"), "guess"); !ok {
		t.Error("another /64 is locked out")
	}
}

func TestAllow(t *testing.T) {
	t.Parallel()
	g := mustGuard(t, Config{RateLimit: 0.001, RateBurst: 2})
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		if _, ok := g.Allow(ctx, "p", false); !ok {
			t.Fatalf("request %d refused within the burst", i)
		}
	}
	if wait, ok := g.Allow(ctx, "p", true); ok || wait < time.Second {
		t.Fatalf("over the budget: ok %v wait %v", ok, wait)
	}
	if _, ok := g.Allow(ctx, "q", false); !ok {
		t.Error("another project is limited")
	}
	off := mustGuard(t, Config{RateLimit: -1, AuthFailureRate: -1})
	for i := 0; i < 1000; i++ {
		if _, ok := off.Allow(ctx, "p", false); !ok {
			t.Fatal("a disabled limit refused")
		}
		off.AuthFailed(request("1.2.3.4:1"))
	}
	if _, ok := off.AuthAllowed(request("1.2.3.4:1"), "x"); !ok {
		t.Fatal("a disabled failed-auth limit refused")
	}
}
