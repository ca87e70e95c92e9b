package netguard

import (
	"errors"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// ErrInvalidURL is wrapped by CheckLiteral's error for a URL it cannot
// parse or that names no host.
var ErrInvalidURL = errors.New("netguard: invalid URL")

// localNames are host names that mean this machine whatever DNS says.
var localNames = map[string]bool{
	"localhost":             true,
	"localhost.localdomain": true,
	"ip6-localhost":         true,
	"ip6-loopback":          true,
}

// CheckLiteral vets rawURL without touching the network. It returns a
// *BlockedError when the URL's host is literally a blocked address (in any
// spelling: IPv6 with or without zone, IPv4-mapped IPv6, and the legacy
// IPv4 forms such as "127.1", "2130706433" or "0x7f.0.0.1") or a name of
// this machine ("localhost", "*.localhost"), an error wrapping
// ErrInvalidURL when it cannot be parsed or has no host, and nil otherwise.
// Host names are not resolved; Client checks resolved addresses when it
// connects. Meant for transcribe.Config.CheckURL, so a bad URL is refused
// with a 400 at submit time.
func CheckLiteral(rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return errors.Join(ErrInvalidURL, err)
	}
	host := u.Hostname()
	if host == "" {
		return errors.Join(ErrInvalidURL, errors.New("the URL names no host"))
	}
	name := strings.TrimSuffix(strings.ToLower(host), ".")
	if localNames[name] || strings.HasSuffix(name, ".localhost") {
		return &BlockedError{Host: host, Reason: "name of the local machine"}
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		var ok bool
		ip, ok = parseLegacyIPv4(name)
		if !ok {
			return nil
		}
	}
	if err := Check(ip); err != nil {
		be := err.(*BlockedError)
		be.Host = host
		return be
	}
	return nil
}

// parseLegacyIPv4 parses the inet_aton spellings of an IPv4 address that
// some resolvers and tools accept: one to four dot-separated parts, each
// decimal, octal (leading 0) or hex (0x), the last part filling the
// remaining bytes ("127.1" is 127.0.0.1, "2130706433" too).
func parseLegacyIPv4(s string) (netip.Addr, bool) {
	if s == "" {
		return netip.Addr{}, false
	}
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		if p == "" {
			return netip.Addr{}, false
		}
		base := 10
		switch {
		case len(p) > 2 && (p[:2] == "0x" || p[:2] == "0X"):
			base, p = 16, p[2:]
		case len(p) > 1 && p[0] == '0':
			base, p = 8, p[1:]
		}
		v, err := strconv.ParseUint(p, base, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	var n uint64
	for i := 0; i < len(vals)-1; i++ {
		if vals[i] > 255 {
			return netip.Addr{}, false
		}
		n |= vals[i] << (24 - 8*uint(i))
	}
	last := vals[len(vals)-1]
	if last >= 1<<(8*uint(5-len(vals))) {
		return netip.Addr{}, false
	}
	n |= last
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}
