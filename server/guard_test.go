package server

import (
	"strings"
	"testing"
)

// TestGuardSettings: the limits and trusted proxies are read, defaulted
// and checked with errors that name the setting.
func TestGuardSettings(t *testing.T) {
	vars := []string{"EARSHOT_TRUSTED_PROXIES", "EARSHOT_RATE_LIMIT", "EARSHOT_RATE_BURST", "EARSHOT_AUTH_FAILURE_RATE", "EARSHOT_REALTIME_PROJECT_SHARE"}
	set := func(m map[string]string) (*Config, error) {
		for _, v := range vars {
			t.Setenv(v, m[v])
		}
		return parseWith(t, nil)
	}
	c, err := set(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.RateLimit != 50 || c.RateBurst != 100 || c.AuthFailures != 5 || c.TrustedProxies != "" || c.RealtimeShare != 0 {
		t.Errorf("defaults: %+v", c)
	}
	g, err := newGuard(c)
	if err != nil {
		t.Fatal(err)
	}
	if gc := g.Config(); gc.RateLimit != 50 || gc.RateBurst != 100 || gc.AuthFailureRate != 5 || gc.AuthFailureBurst != 50 || len(gc.TrustedProxies) != 0 {
		t.Errorf("guard: %+v", gc)
	}
	if realtimeShare(c, map[string]string{"k1": "p"}) != 1 || realtimeShare(c, map[string]string{"k1": "p", "k2": "q"}) != 0.5 {
		t.Error("default share: 1 with one project, 0.5 with several")
	}
	c, err = set(map[string]string{"EARSHOT_TRUSTED_PROXIES": "10.0.0.0/8, 192.168.1.7", "EARSHOT_RATE_BURST": "7",
		"EARSHOT_AUTH_FAILURE_RATE": "0.5", "EARSHOT_REALTIME_PROJECT_SHARE": "0.25"})
	if err != nil {
		t.Fatal(err)
	}
	if g, err = newGuard(c); err != nil {
		t.Fatal(err)
	}
	if gc := g.Config(); gc.RateBurst != 7 || gc.AuthFailureRate != 0.5 || gc.AuthFailureBurst != 5 || len(gc.TrustedProxies) != 2 {
		t.Errorf("guard: %+v", gc)
	}
	if realtimeShare(c, map[string]string{"k1": "p", "k2": "q"}) != 0.25 {
		t.Error("EARSHOT_REALTIME_PROJECT_SHARE ignored")
	}
	for _, tc := range []struct{ name, value, want string }{
		{"EARSHOT_TRUSTED_PROXIES", "10.0.0.0/8,proxy.internal", `EARSHOT_TRUSTED_PROXIES: "proxy.internal" is not an address or CIDR`},
		{"EARSHOT_AUTH_FAILURE_RATE", "0", "EARSHOT_AUTH_FAILURE_RATE: must be a non-zero number"},
		{"EARSHOT_AUTH_FAILURE_RATE", "NaN", "EARSHOT_AUTH_FAILURE_RATE: must be a non-zero number"},
		{"EARSHOT_REALTIME_PROJECT_SHARE", "1.5", "EARSHOT_REALTIME_PROJECT_SHARE: must be a number above 0 and at most 1"},
		{"EARSHOT_REALTIME_PROJECT_SHARE", "0", "EARSHOT_REALTIME_PROJECT_SHARE: must be a number above 0 and at most 1"},
		{"EARSHOT_RATE_BURST", "-3", "EARSHOT_RATE_BURST: must be a non-negative integer"},
	} {
		if _, err := set(map[string]string{tc.name: tc.value}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s=%s: %v, want %q", tc.name, tc.value, err, tc.want)
		}
	}
}
