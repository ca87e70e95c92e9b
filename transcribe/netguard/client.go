package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"syscall"
	"time"
)

// MaxRedirects is the default number of redirects a Client follows.
const MaxRedirects = 10

// ErrRedirect is wrapped by the error a Client returns when it refuses to
// follow a redirect: too many of them, or one to a scheme other than http
// and https.
var ErrRedirect = errors.New("netguard: redirect refused")

// Options configures Client, Transport and Dialer. The zero value is the
// safe default: private addresses refused, 10 redirects at most.
type Options struct {
	// AllowPrivate turns the address checks off: every address may be
	// dialled and the proxy from the environment (HTTP_PROXY, HTTPS_PROXY,
	// NO_PROXY) is used. Default false: blocked addresses are refused and no
	// proxy is used, because a proxy would hide the real target from the
	// check.
	AllowPrivate bool
	// Timeout bounds a whole request, reading the body included
	// (http.Client.Timeout). Default 0: no overall limit, the request's
	// context bounds it.
	Timeout time.Duration
	// DialTimeout bounds one TCP connection attempt. Default 10s.
	DialTimeout time.Duration
	// MaxRedirects is how many redirects Client follows. Default 0 means
	// MaxRedirects (10); a negative value follows none and returns the
	// redirect response itself.
	MaxRedirects int
	// Resolve looks up a host name's addresses. network is "ip", "ip4" or
	// "ip6". Default net.DefaultResolver.LookupNetIP. Tests use it to map a
	// made-up name to an address.
	Resolve func(ctx context.Context, network, host string) ([]netip.Addr, error)
	// Permit, when set, is asked about each address the guard would refuse
	// (IPv4-mapped addresses unmapped, zones dropped); returning true lets
	// that connection through (for example one known internal service, or
	// a test server on loopback). Default nil: refuse.
	Permit func(addr netip.AddrPort) bool
}

func (o Options) dialTimeout() time.Duration {
	if o.DialTimeout > 0 {
		return o.DialTimeout
	}
	return 10 * time.Second
}

func (o Options) maxRedirects() int {
	if o.MaxRedirects == 0 {
		return MaxRedirects
	}
	return o.MaxRedirects
}

// Dialer makes TCP connections that honour Options: it resolves the host
// itself and dials only addresses that pass Check (or Permit). Because the
// check runs on the address actually dialled, every connection is covered:
// redirects, DNS rebinding, and retries. Safe for concurrent use.
type Dialer struct {
	opts Options
	d    net.Dialer
}

// NewDialer returns a Dialer for opts.
func NewDialer(opts Options) *Dialer {
	g := &Dialer{opts: opts}
	g.d = net.Dialer{Timeout: opts.dialTimeout(), KeepAlive: 30 * time.Second}
	if !opts.AllowPrivate {
		// Belt and braces: the address is checked again right before the
		// socket connects.
		g.d.Control = g.control
	}
	return g
}

// allowed returns nil when a connection to ap may be made.
func (g *Dialer) allowed(ap netip.AddrPort) error {
	if g.opts.AllowPrivate {
		return nil
	}
	if err := Check(ap.Addr()); err != nil {
		if g.opts.Permit != nil && g.opts.Permit(netip.AddrPortFrom(ap.Addr().WithZone("").Unmap(), ap.Port())) {
			return nil
		}
		return err
	}
	return nil
}

func (g *Dialer) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("netguard: cannot check address %q: %v", address, err)
	}
	return g.allowed(ap)
}

// DialContext connects to address ("host:port") on network ("tcp", "tcp4"
// or "tcp6"). It returns a *BlockedError (with Host set) when every address
// the host resolves to is refused; addresses that are refused are skipped
// and never connected to.
func (g *Dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, portStr, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("netguard: invalid port in %q", address)
	}
	ipNet := "ip"
	switch network {
	case "tcp4":
		ipNet = "ip4"
	case "tcp6":
		ipNet = "ip6"
	case "tcp":
	default:
		return nil, fmt.Errorf("netguard: unsupported network %q", network)
	}
	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{ip}
	} else {
		resolve := g.opts.Resolve
		if resolve == nil {
			resolve = net.DefaultResolver.LookupNetIP
		}
		addrs, err = resolve(ctx, ipNet, host)
		if err != nil {
			return nil, err
		}
		if len(addrs) == 0 {
			return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
		}
	}
	var firstErr error
	for _, ip := range addrs {
		if (network == "tcp4" && !ip.Unmap().Is4()) || (network == "tcp6" && !ip.Is6()) {
			continue
		}
		ap := netip.AddrPortFrom(ip, uint16(port))
		if err := g.allowed(ap); err != nil {
			var be *BlockedError
			if errors.As(err, &be) {
				be.Host = host
			}
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		conn, err := g.d.DialContext(ctx, network, ap.String())
		if err == nil {
			return conn, nil
		}
		if firstErr == nil || isBlocked(firstErr) {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	if firstErr == nil {
		firstErr = &net.AddrError{Err: "no suitable address", Addr: host}
	}
	return nil, firstErr
}

func isBlocked(err error) bool {
	var be *BlockedError
	return errors.As(err, &be)
}

// Transport returns an *http.Transport that dials through a Dialer for
// opts, with the usual timeouts of http.DefaultTransport.
func Transport(opts Options) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = NewDialer(opts).DialContext
	t.DialTLSContext = nil
	if opts.AllowPrivate {
		t.Proxy = http.ProxyFromEnvironment
	} else {
		t.Proxy = nil
	}
	return t
}

// Client returns an *http.Client for outbound requests to user-supplied
// URLs: every connection's address is checked (unless opts.AllowPrivate),
// and redirects are followed at most opts.MaxRedirects times, to http and
// https URLs only. A refused connection makes Do return an error that
// wraps a *BlockedError.
func Client(opts Options) *http.Client {
	max := opts.maxRedirects()
	return &http.Client{
		Transport: Transport(opts),
		Timeout:   opts.Timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if max < 0 {
				return http.ErrUseLastResponse
			}
			if len(via) > max {
				return fmt.Errorf("%w: stopped after %d redirects", ErrRedirect, max)
			}
			if s := req.URL.Scheme; s != "http" && s != "https" {
				return fmt.Errorf("%w: redirect to unsupported scheme %q", ErrRedirect, s)
			}
			return nil
		},
	}
}
