package httpguard

import (
	"net/netip"
	"strings"
	"testing"
)

// FuzzClientAddr: whatever X-Forwarded-For holds, the client address is
// the peer's or one of the header's hops, a parseable address, and never
// a hop to the left of an untrusted one; an untrusted peer's header is
// never read.
func FuzzClientAddr(f *testing.F) {
	f.Add("10.1.2.3:5000", "6.6.6.6, 198.51.100.7")
	f.Add("[fd00::1]:1", "2001:db8::5, , fd00::9")
	f.Add("203.0.113.9:1", "1.2.3.4")
	f.Add("10.1.2.3:1", "<script>, 10.9.9.9:80")
	proxies, _ := ParseTrustedProxies("10.0.0.0/8,fd00::/8")
	trusting, _ := New(Config{TrustedProxies: proxies})
	plain, _ := New(Config{})
	f.Fuzz(func(t *testing.T, peer, xff string) {
		r := request(peer, xff)
		if got, want := plain.ClientAddr(r), plain.ClientAddr(request(peer)); got != want {
			t.Fatalf("without trusted proxies the header changed the address: %q, want %q", got, want)
		}
		got := trusting.ClientAddr(r)
		p, ok := parseAddr(ClientAddr(r))
		if !ok {
			if got != ClientAddr(r) {
				t.Fatalf("unparseable peer %q gave %q", peer, got)
			}
			return
		}
		if !trusting.trusted(p) {
			if got != p.String() {
				t.Fatalf("untrusted peer %q: %q", peer, got)
			}
			return
		}
		a, err := netip.ParseAddr(got)
		if err != nil {
			t.Fatalf("client address %q is not an address", got)
		}
		if a == p {
			return
		}
		found := false
		for _, h := range strings.Split(xff, ",") {
			if ha, ok := parseAddr(strings.TrimSpace(h)); ok && ha == a {
				found = true
			}
		}
		if !found {
			t.Fatalf("client address %q is neither the peer nor a hop of %q", got, xff)
		}
	})
}

// FuzzParseTrustedProxies: an accepted list gives valid, masked
// prefixes; a refused one names the entry.
func FuzzParseTrustedProxies(f *testing.F) {
	f.Add("10.0.0.0/8, 192.168.1.7")
	f.Add("::ffff:10.0.0.0/104,fd00::/8")
	f.Add("10.0.0.1/8/2")
	f.Fuzz(func(t *testing.T, s string) {
		ps, err := ParseTrustedProxies(s)
		if err != nil {
			if !strings.Contains(err.Error(), "is not an address or CIDR prefix") {
				t.Fatalf("error %v", err)
			}
			return
		}
		for _, p := range ps {
			if !p.IsValid() || p != p.Masked() {
				t.Fatalf("%q gave %v", s, p)
			}
		}
	})
}
