package httpguard

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Defaults of Config.
const (
	DefaultRateLimit        = 50  // requests per second per project
	DefaultRateBurst        = 100 // requests at once per project
	DefaultAuthFailureRate  = 5   // failed authentications per second per address
	DefaultAuthFailureBurst = 50  // failed authentications at once per address
)

// KnownGoodFor is how long a key that authenticated from an address stays
// accepted from that address while the address is over its failed-auth
// limit (renewed by each success).
const KnownGoodFor = time.Hour

// maxKnownGood caps the known-good keys remembered per address (the
// oldest is forgotten first).
const maxKnownGood = 32

// MaxGetWait is how long a GET over the per-project rate limit is held
// back before being refused (Guard.Allow with wait). The official Go
// SDK's Wait polls in a tight loop once its backoff gives up (after 15
// minutes); pacing its GETs instead of refusing them keeps long jobs from
// failing with 429.
const MaxGetWait = 2 * time.Second

// Config configures a Guard. Zero values mean the documented defaults.
type Config struct {
	// RateLimit is the sustained per-project request rate (requests per
	// second) across every front end sharing the Guard; 0 means
	// DefaultRateLimit, negative disables the limit.
	RateLimit float64
	// RateBurst is the per-project burst. 0 means DefaultRateBurst.
	RateBurst int
	// AuthFailureRate is the sustained rate of failed authentications
	// allowed per client address (per second); 0 means
	// DefaultAuthFailureRate, negative disables the limit.
	AuthFailureRate float64
	// AuthFailureBurst is how many failures an address may make at once.
	// 0 means 10 times AuthFailureRate (DefaultAuthFailureBurst with the
	// default rate), at least 1.
	AuthFailureBurst int
	// TrustedProxies are the networks of the reverse proxies in front of
	// the server: from a peer in one of them, the client address is the
	// rightmost address of X-Forwarded-For that is not itself trusted.
	// From any other peer X-Forwarded-For is ignored. Default none.
	TrustedProxies []netip.Prefix
}

// Guard holds the limits every front end of a server applies, shared so
// that a client has one budget whatever door it uses:
//
//   - a token bucket of requests per project (Allow);
//   - a token bucket of failed authentications per client address
//     (AuthAllowed, AuthFailed, AuthSucceeded). An address over it is
//     refused before its key is looked at, except for keys that
//     authenticated from that address before (for KnownGoodFor): an
//     attacker guessing keys from an address (or from behind the same
//     proxy or NAT) does not lock out the valid keys used there.
//     IPv6 clients are counted per /64, which one host usually holds.
//
// Client addresses come from the peer, or from X-Forwarded-For when the
// peer is one of Config.TrustedProxies (ClientAddr). Safe for concurrent
// use; buckets idle for 10 minutes are dropped.
type Guard struct {
	cfg      Config
	projects *bucketMap
	failures *bucketMap
}

// New returns a Guard, or an error naming a bad field.
func New(cfg Config) (*Guard, error) {
	switch {
	case math.IsNaN(cfg.RateLimit) || math.IsInf(cfg.RateLimit, 0):
		return nil, fmt.Errorf("httpguard: RateLimit must be a number, got %v", cfg.RateLimit)
	case math.IsNaN(cfg.AuthFailureRate) || math.IsInf(cfg.AuthFailureRate, 0):
		return nil, fmt.Errorf("httpguard: AuthFailureRate must be a number, got %v", cfg.AuthFailureRate)
	case cfg.RateBurst < 0 || cfg.AuthFailureBurst < 0:
		return nil, fmt.Errorf("httpguard: RateBurst and AuthFailureBurst must not be negative")
	}
	for _, p := range cfg.TrustedProxies {
		if !p.IsValid() {
			return nil, fmt.Errorf("httpguard: TrustedProxies holds an invalid prefix")
		}
	}
	if cfg.RateLimit == 0 {
		cfg.RateLimit = DefaultRateLimit
	}
	if cfg.RateBurst == 0 {
		cfg.RateBurst = DefaultRateBurst
	}
	if cfg.AuthFailureRate == 0 {
		cfg.AuthFailureRate = DefaultAuthFailureRate
	}
	if cfg.AuthFailureBurst == 0 {
		cfg.AuthFailureBurst = int(max(10*cfg.AuthFailureRate, 1))
	}
	g := &Guard{cfg: cfg}
	if cfg.RateLimit > 0 {
		g.projects = newBucketMap(cfg.RateLimit, cfg.RateBurst)
	}
	if cfg.AuthFailureRate > 0 {
		g.failures = newBucketMap(cfg.AuthFailureRate, cfg.AuthFailureBurst)
	}
	return g, nil
}

// Config returns the Guard's configuration with its defaults filled in.
func (g *Guard) Config() Config { return g.cfg }

// ClientAddr returns the address of r's client: the peer's, or, when the
// peer is a trusted proxy, the rightmost X-Forwarded-For address that is
// not a trusted proxy (each proxy appends the address it got the request
// from, so everything left of that is the client's to write).
func (g *Guard) ClientAddr(r *http.Request) string {
	peer, ok := parseAddr(ClientAddr(r))
	if !ok {
		return ClientAddr(r)
	}
	if !g.trusted(peer) {
		return peer.String()
	}
	hops := forwardedFor(r)
	for i := len(hops) - 1; i >= 0; i-- {
		a, ok := parseAddr(hops[i])
		if !ok {
			break // a malformed hop: nothing left of it can be trusted
		}
		peer = a
		if !g.trusted(a) {
			break
		}
	}
	return peer.String()
}

// trusted reports whether a is in TrustedProxies.
func (g *Guard) trusted(a netip.Addr) bool {
	for _, p := range g.cfg.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// forwardedFor lists the X-Forwarded-For hops of r, in order, over every
// header line.
func forwardedFor(r *http.Request) []string {
	var hops []string
	for _, line := range r.Header.Values("X-Forwarded-For") {
		for _, h := range strings.Split(line, ",") {
			hops = append(hops, strings.TrimSpace(h))
		}
	}
	return hops
}

// parseAddr parses an IP address, with or without a port, IPv4-mapped
// IPv6 turned into IPv4.
func parseAddr(s string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap().WithZone(""), true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap().WithZone(""), true
	}
	return netip.Addr{}, false
}

// limitKey is the bucket of a client address: the address for IPv4, its
// /64 for IPv6.
func limitKey(addr string) string {
	a, ok := parseAddr(addr)
	if !ok || a.Is4() {
		return addr
	}
	p, err := a.Prefix(64)
	if err != nil {
		return addr
	}
	return p.String()
}

// AuthAllowed reports whether r may have its credential checked: yes
// unless its client address is over the failed-auth limit, and even then
// for a credential that authenticated from that address within
// KnownGoodFor. When not, it returns how long until the address may try
// again.
func (g *Guard) AuthAllowed(r *http.Request, credential string) (time.Duration, bool) {
	if g == nil || g.failures == nil {
		return 0, true
	}
	return g.failures.allowedOrKnown(limitKey(g.ClientAddr(r)), credential)
}

// AuthFailed counts one failed authentication of r's client address.
func (g *Guard) AuthFailed(r *http.Request) {
	if g == nil || g.failures == nil {
		return
	}
	g.failures.spend(limitKey(g.ClientAddr(r)))
}

// AuthSucceeded notes that credential authenticated from r's client
// address, so it keeps working from there while the address is over its
// failed-auth limit.
func (g *Guard) AuthSucceeded(r *http.Request, credential string) {
	if g == nil || g.failures == nil || credential == "" {
		return
	}
	g.failures.remember(limitKey(g.ClientAddr(r)), credential)
}

// Allow spends one request of project's budget. With wait (a GET, which
// pollers repeat) it waits up to MaxGetWait for a token; otherwise it
// refuses at once. When refused it returns how long until a request would
// pass (at least a second).
func (g *Guard) Allow(ctx context.Context, project string, wait bool) (time.Duration, bool) {
	if g == nil || g.projects == nil {
		return 0, true
	}
	l := g.projects.limiter(project)
	res := l.Reserve()
	d := res.Delay()
	if d == 0 {
		return 0, true
	}
	if wait && d <= MaxGetWait {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return 0, true
		case <-ctx.Done():
			res.Cancel()
			return d, false
		}
	}
	res.Cancel()
	return max(d, time.Second), false
}

// bucketMap is a token bucket per key, with the credentials known good
// at each key.
type bucketMap struct {
	mu      sync.Mutex
	rate    rate.Limit
	burst   int
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	lim  *rate.Limiter
	last time.Time
	good map[[sha256.Size]byte]time.Time // credential hash → last success
}

func newBucketMap(perSecond float64, burst int) *bucketMap {
	return &bucketMap{rate: rate.Limit(perSecond), burst: burst, buckets: map[string]*bucket{}}
}

// get returns key's bucket, creating it; m.mu is held.
func (m *bucketMap) get(key string, now time.Time) *bucket {
	if now.Sub(m.swept) > time.Minute {
		for k, b := range m.buckets {
			if now.Sub(b.last) > 10*time.Minute && b.lim.TokensAt(now) >= float64(m.burst) {
				for h, at := range b.good {
					if now.Sub(at) > KnownGoodFor {
						delete(b.good, h)
					}
				}
				if len(b.good) == 0 {
					delete(m.buckets, k)
				}
			}
		}
		m.swept = now
	}
	b, ok := m.buckets[key]
	if !ok {
		b = &bucket{lim: rate.NewLimiter(m.rate, m.burst)}
		m.buckets[key] = b
	}
	b.last = now
	return b
}

func (m *bucketMap) limiter(key string) *rate.Limiter {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.get(key, time.Now()).lim
}

func (m *bucketMap) spend(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	m.get(key, now).lim.AllowN(now, 1)
}

func (m *bucketMap) allowedOrKnown(key, credential string) (time.Duration, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.buckets[key]
	if !ok {
		return 0, true
	}
	now := time.Now()
	tokens := b.lim.TokensAt(now)
	if tokens >= 1 {
		return 0, true
	}
	if credential != "" {
		if at, ok := b.good[sha256.Sum256([]byte(credential))]; ok && now.Sub(at) <= KnownGoodFor {
			return 0, true
		}
	}
	wait := time.Duration((1 - tokens) / float64(m.rate) * float64(time.Second))
	return max(wait, time.Second), false
}

func (m *bucketMap) remember(key, credential string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	b := m.get(key, now)
	h := sha256.Sum256([]byte(credential))
	if b.good == nil {
		b.good = map[[sha256.Size]byte]time.Time{}
	}
	if _, ok := b.good[h]; !ok && len(b.good) >= maxKnownGood {
		var oldest [sha256.Size]byte
		var at time.Time
		for k, t := range b.good {
			if at.IsZero() || t.Before(at) {
				oldest, at = k, t
			}
		}
		delete(b.good, oldest)
	}
	b.good[h] = now
}

// ParseTrustedProxies parses a comma-separated list of CIDR prefixes
// (10.0.0.0/8, fd00::/8) or single addresses (a /32 or /128), naming the
// entry that is neither.
func ParseTrustedProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if p, err := netip.ParsePrefix(part); err == nil {
			if p.Addr().Is4In6() {
				p = netip.PrefixFrom(p.Addr().Unmap(), max(p.Bits()-96, 0))
			}
			out = append(out, p.Masked())
			continue
		}
		if a, err := netip.ParseAddr(part); err == nil {
			a = a.Unmap().WithZone("")
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		return nil, fmt.Errorf("%q is not an address or CIDR prefix such as 10.0.0.0/8", part)
	}
	return out, nil
}

// Credential returns the API key of r's authorization header: the raw
// key, or "Bearer <key>"; "" when there is none.
func Credential(r *http.Request) string {
	key := strings.TrimSpace(r.Header.Get("Authorization"))
	if k, ok := strings.CutPrefix(key, "Bearer "); ok {
		key = strings.TrimSpace(k)
	}
	return key
}
