package proxytest

import (
	"bufio"
	"net"
	"testing"
	"time"
)

func TestProxy(t *testing.T) {
	t.Parallel()
	// An echo server behind the proxy.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					c.Write([]byte(line))
				}
			}()
		}
	}()
	p := New(t, ln.Addr().String())
	dial := func() (net.Conn, *bufio.Reader) {
		c, err := net.Dial("tcp", p.Addr())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c, bufio.NewReader(c)
	}
	echo := func(c net.Conn, r *bufio.Reader, s string) (string, error) {
		c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Write([]byte(s + "\n")); err != nil {
			return "", err
		}
		return r.ReadString('\n')
	}
	c, r := dial()
	if got, err := echo(c, r, "hello"); err != nil || got != "hello\n" {
		t.Fatalf("through the proxy: %q %v", got, err)
	}
	p.BreakAll()
	if got, err := echo(c, r, "again"); err == nil {
		t.Fatalf("after BreakAll the connection still answers %q", got)
	}
	// New connections go through after a break.
	c2, r2 := dial()
	if got, err := echo(c2, r2, "new"); err != nil || got != "new\n" {
		t.Fatalf("a new connection after BreakAll: %q %v", got, err)
	}
}
