package netguard

import (
	"fmt"
	"net/netip"
)

// BlockedError reports an address the guard refused. Error() is a
// complete, human-readable reason (it names the address and its range) and
// can be shown to API users as is.
type BlockedError struct {
	// Addr is the refused IP address. It is the zero netip.Addr when a host
	// was refused by name ("localhost").
	Addr netip.Addr
	// Host is the host name or literal the caller asked for, when known.
	Host string
	// Reason names the range, e.g. "loopback address (127.0.0.0/8)".
	Reason string
}

func (e *BlockedError) Error() string {
	const tail = "; private and internal network addresses are not allowed"
	switch {
	case e.Addr.IsValid() && e.Host != "" && e.Host != e.Addr.String():
		return fmt.Sprintf("netguard: refusing to connect to %s: it resolves to %s, a %s%s", e.Host, e.Addr, e.Reason, tail)
	case e.Addr.IsValid():
		return fmt.Sprintf("netguard: refusing to connect to %s, a %s%s", e.Addr, e.Reason, tail)
	default:
		return fmt.Sprintf("netguard: refusing to connect to %s, a %s%s", e.Host, e.Reason, tail)
	}
}

type blockedRange struct {
	prefix netip.Prefix
	reason string
}

func r(prefix, reason string) blockedRange {
	return blockedRange{netip.MustParsePrefix(prefix), reason + " (" + prefix + ")"}
}

// v4Ranges are the IPv4 special-purpose ranges (IANA IPv4 Special-Purpose
// Address Registry) that are not globally reachable, plus multicast.
var v4Ranges = []blockedRange{
	r("0.0.0.0/8", "\"this network\" address"),
	r("10.0.0.0/8", "private address"),
	r("100.64.0.0/10", "carrier-grade NAT shared address"),
	r("127.0.0.0/8", "loopback address"),
	r("169.254.0.0/16", "link-local address (cloud metadata endpoints live here)"),
	r("172.16.0.0/12", "private address"),
	r("192.0.0.0/24", "IETF protocol assignment address"),
	r("192.0.2.0/24", "documentation address"),
	r("192.88.99.0/24", "6to4 relay anycast address"),
	r("192.168.0.0/16", "private address"),
	r("198.18.0.0/15", "benchmarking address"),
	r("198.51.100.0/24", "documentation address"),
	r("203.0.113.0/24", "documentation address"),
	r("224.0.0.0/4", "multicast address"),
	r("240.0.0.0/4", "reserved address"),
}

// v6Ranges are the IPv6 special-purpose ranges. Anything outside 2000::/3
// (global unicast) is refused as well, after IPv4-mapped, NAT64 and 6to4
// addresses have been judged by the IPv4 address they embed.
var v6Ranges = []blockedRange{
	r("::/128", "unspecified address"),
	r("::1/128", "loopback address"),
	r("::/96", "IPv4-compatible address"),
	r("64:ff9b:1::/48", "local-use NAT64 address"),
	r("100::/64", "discard-only address"),
	r("2001::/23", "IETF protocol assignment address"),
	r("2001:db8::/32", "documentation address"),
	r("3fff::/20", "documentation address"),
	r("fc00::/7", "unique local (private) address"),
	r("fe80::/10", "link-local address"),
	r("fec0::/10", "site-local address"),
	r("ff00::/8", "multicast address"),
}

var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
	global6   = netip.MustParsePrefix("2000::/3")
)

// Check reports whether connecting to ip is refused by default: it returns
// nil for a globally reachable unicast address and a *BlockedError naming
// the range otherwise. An IPv6 zone is ignored. IPv4-mapped IPv6
// (::ffff:a.b.c.d), NAT64 (64:ff9b::/96) and 6to4 (2002::/16) addresses are
// judged by the IPv4 address they carry. The invalid (zero) Addr is refused.
func Check(ip netip.Addr) error {
	if reason := blockedReason(ip); reason != "" {
		return &BlockedError{Addr: ip.WithZone(""), Reason: reason}
	}
	return nil
}

func blockedReason(ip netip.Addr) string {
	if !ip.IsValid() {
		return "invalid address"
	}
	ip = ip.WithZone("")
	if ip.Is4In6() {
		if reason := blockedReason(ip.Unmap()); reason != "" {
			return "IPv4-mapped " + reason
		}
		return ""
	}
	if ip.Is4() {
		for _, b := range v4Ranges {
			if b.prefix.Contains(ip) {
				return b.reason
			}
		}
		return ""
	}
	b16 := ip.As16()
	if nat64.Contains(ip) {
		v4 := netip.AddrFrom4([4]byte(b16[12:16]))
		if reason := blockedReason(v4); reason != "" {
			return fmt.Sprintf("NAT64 address embedding %s, a %s", v4, reason)
		}
		return ""
	}
	if sixToFour.Contains(ip) {
		v4 := netip.AddrFrom4([4]byte(b16[2:6]))
		if reason := blockedReason(v4); reason != "" {
			return fmt.Sprintf("6to4 address embedding %s, a %s", v4, reason)
		}
		return ""
	}
	for _, b := range v6Ranges {
		if b.prefix.Contains(ip) {
			return b.reason
		}
	}
	if !global6.Contains(ip) {
		return "reserved IPv6 address (outside global unicast 2000::/3)"
	}
	return ""
}
