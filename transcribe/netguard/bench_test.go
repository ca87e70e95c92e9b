package netguard_test

import (
	"net/netip"
	"testing"

	"github.com/earshot-dev/earshot/transcribe/netguard"
)

func BenchmarkCheck(b *testing.B) {
	addrs := []netip.Addr{
		netip.MustParseAddr("93.184.216.34"),
		netip.MustParseAddr("2606:4700:4700::1111"),
		netip.MustParseAddr("169.254.169.254"),
		netip.MustParseAddr("::ffff:10.0.0.1"),
	}
	for i := 0; i < b.N; i++ {
		netguard.Check(addrs[i%len(addrs)])
	}
}

func BenchmarkCheckLiteral(b *testing.B) {
	for i := 0; i < b.N; i++ {
		netguard.CheckLiteral("https://hooks.example.com/earshot?customer=acme&job=42")
	}
}
