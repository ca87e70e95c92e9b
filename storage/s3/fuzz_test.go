package s3

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzKey: checkName never panics, and a key it accepts is one that cannot
// leave the Store's prefix or confuse a path-mapping server.
func FuzzKey(f *testing.F) {
	for _, k := range []string{"uploads/0b8e5c1a", "a/b/c", "with space", "../x", "a//b", "/abs", "a/./b", "tab\t", "\xff", "é/ü", ".hidden", "a/.."} {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, key string) {
		if checkName(key) != nil {
			return
		}
		if key == "" || !utf8.ValidString(key) || strings.HasPrefix(key, "/") {
			t.Fatalf("accepted %q", key)
		}
		for _, seg := range strings.Split(key, "/") {
			if seg == "" || seg == "." || seg == ".." {
				t.Fatalf("accepted %q with segment %q", key, seg)
			}
		}
		for _, r := range key {
			if r < 0x20 || r == 0x7f {
				t.Fatalf("accepted %q with control character %U", key, r)
			}
		}
	})
}

// FuzzEndpoint: endpoint parsing never panics, an accepted endpoint names
// a host and carries no user information, and an error never repeats a
// password given in the URL.
func FuzzEndpoint(f *testing.F) {
	for _, e := range []string{"127.0.0.1:9000", "http://127.0.0.1:9000", "https://s3.amazonaws.com", "https://u:p@h", "ftp://h", "h/x", "http://h/path", "http://[::1]:9000", "https://h?x=1", "http://"} {
		f.Add(e, false)
	}
	f.Fuzz(func(t *testing.T, endpoint string, insecure bool) {
		cfg := Config{Endpoint: endpoint, Insecure: insecure}
		host, secure, err := cfg.endpoint()
		if err != nil {
			if i := strings.Index(endpoint, "://"); i >= 0 {
				rest := endpoint[i+3:]
				if at := strings.LastIndex(rest, "@"); at > 0 {
					if colon := strings.Index(rest[:at], ":"); colon >= 0 && len(rest[colon+1:at]) >= 6 &&
						strings.Contains(err.Error(), rest[colon+1:at]) {
						t.Fatalf("error repeats the password: %v", err)
					}
				}
			}
			return
		}
		if host == "" || strings.Contains(host, "@") {
			t.Fatalf("accepted %q as host %q", endpoint, host)
		}
		if secure && insecure {
			t.Fatalf("%q with Insecure gave HTTPS", endpoint)
		}
	})
}
