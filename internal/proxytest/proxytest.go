// Package proxytest gives tests a TCP proxy on loopback that can cut every
// connection through it at once, as a network failure between a client
// and one server process would: the realtime resume tests use it to drop
// a WebSocket mid-session and reconnect through another process.
//
// New(t, target) listens on 127.0.0.1 and forwards each accepted
// connection to target; Addr is where clients connect; BreakAll closes
// every connection made so far (both halves), while new ones are still
// accepted. The listener and its connections are closed when the test
// ends.
package proxytest

import (
	"io"
	"net"
	"sync"
	"testing"
)

// Proxy forwards TCP connections to one target.
type Proxy struct {
	addr  string
	mu    sync.Mutex
	conns []net.Conn
}

// New starts a proxy to target, stopped when t ends.
func New(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{addr: ln.Addr().String()}
	t.Cleanup(func() { ln.Close(); p.BreakAll() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			go func() { io.Copy(s, c); s.Close() }()
			go func() { io.Copy(c, s); c.Close() }()
		}
	}()
	return p
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.addr }

// BreakAll closes every connection through the proxy so far.
func (p *Proxy) BreakAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}
