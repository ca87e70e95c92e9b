package netguard_test

import (
	"errors"
	"net/netip"
	"net/url"
	"testing"

	"github.com/earshot-dev/earshot/transcribe/netguard"
)

func FuzzCheckLiteral(f *testing.F) {
	for _, s := range []string{
		"http://169.254.169.254/", "http://127.0.0.1:22/", "http://[::ffff:7f00:1]/",
		"http://0x7f.1/", "http://2130706433/", "https://example.com/a?b=c", "http://[fe80::1%25en0]/",
		"http://localhost./", "http://999.1.1.1/", "http://1.2.3.4.5/", "http://%zz/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		err := netguard.CheckLiteral(raw) // must not panic
		u, perr := url.Parse(raw)
		if perr != nil || u.Hostname() == "" {
			if !errors.Is(err, netguard.ErrInvalidURL) {
				t.Fatalf("CheckLiteral(%q) = %v, want ErrInvalidURL", raw, err)
			}
			return
		}
		// A literal address must be judged exactly as Check judges it.
		if ip, e := netip.ParseAddr(u.Hostname()); e == nil {
			if (netguard.Check(ip) == nil) != (err == nil) {
				t.Fatalf("CheckLiteral(%q) = %v but Check(%v) = %v", raw, err, ip, netguard.Check(ip))
			}
		}
	})
}
