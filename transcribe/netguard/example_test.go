package netguard_test

import (
	"errors"
	"fmt"
	"net/netip"

	"github.com/earshot-dev/earshot/transcribe/netguard"
)

func ExampleCheckLiteral() {
	for _, u := range []string{
		"http://169.254.169.254/latest/meta-data/",
		"http://127.0.0.1:22/",
		"http://localhost:8080/hook",
		"https://hooks.example.com/earshot?job=42",
	} {
		fmt.Println(netguard.CheckLiteral(u))
	}
	// Output:
	// netguard: refusing to connect to 169.254.169.254, a link-local address (cloud metadata endpoints live here) (169.254.0.0/16); private and internal network addresses are not allowed
	// netguard: refusing to connect to 127.0.0.1, a loopback address (127.0.0.0/8); private and internal network addresses are not allowed
	// netguard: refusing to connect to localhost, a name of the local machine; private and internal network addresses are not allowed
	// <nil>
}

func ExampleCheck() {
	err := netguard.Check(netip.MustParseAddr("::ffff:10.0.0.7"))
	var be *netguard.BlockedError
	if errors.As(err, &be) {
		fmt.Println(be.Addr, "-", be.Reason)
	}
	fmt.Println(netguard.Check(netip.MustParseAddr("2606:4700:4700::1111")))
	// Output:
	// ::ffff:10.0.0.7 - IPv4-mapped private address (10.0.0.0/8)
	// <nil>
}

func ExampleClient() {
	c := netguard.Client(netguard.Options{})
	_, err := c.Get("http://[::1]:8080/")
	fmt.Println(errors.As(err, new(*netguard.BlockedError)))
	// Output:
	// true
}
