package server

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The public URLs are the configured ones, or http:// (https:// with TLS)
// plus the bound address; the EU region gets a listener and URLs of its
// own, signing with a key of its own.
func TestOpenListeners(t *testing.T) {
	key := make([]byte, 32)
	l, err := openListeners(&Config{Addr: "127.0.0.1:0"}, key, false)
	if err != nil {
		t.Fatal(err)
	}
	if l.eu != nil || l.euURLs != nil {
		t.Error("an EU listener without the EU region")
	}
	if want := "http://" + l.main.Addr().String(); l.urls.Origin() != want {
		t.Errorf("default public URL %s, want %s", l.urls.Origin(), want)
	}
	l.close()

	l, err = openListeners(&Config{Addr: "127.0.0.1:0", PublicURL: "https://speech.example.com", EUAddr: "127.0.0.1:0"}, key, true)
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	if l.urls.Origin() != "https://speech.example.com" {
		t.Errorf("configured public URL: %s", l.urls.Origin())
	}
	if l.eu == nil || l.euURLs.Origin() != "http://"+l.eu.Addr().String() {
		t.Errorf("EU listener %v, URL %s", l.eu, l.euURLs.Origin())
	}
	// Signatures follow from the content key (they survive a restart and
	// hold across processes); the EU region's differ.
	first, err := openListeners(&Config{Addr: "127.0.0.1:0", PublicURL: "https://speech.example.com"}, key, false)
	if err != nil {
		t.Fatal(err)
	}
	first.close()
	if a, b := path.Base(first.urls.RedactedAudio("t1")), path.Base(l.urls.RedactedAudio("t1")); a != b {
		t.Errorf("the same content key signs differently: %s, %s", a, b)
	}
	if a, b := path.Base(l.urls.RedactedAudio("t1")), path.Base(l.euURLs.RedactedAudio("t1")); a == b {
		t.Errorf("the regions sign alike: %s", a)
	}

	// With TLS the default scheme is https.
	cert, keyFile := selfSigned(t)
	tl, err := openListeners(&Config{Addr: "127.0.0.1:0", TLSCert: cert, TLSKey: keyFile}, key, false)
	if err != nil {
		t.Fatal(err)
	}
	defer tl.close()
	if want := "https://" + tl.main.Addr().String(); tl.urls.Origin() != want {
		t.Errorf("public URL with TLS %s, want %s", tl.urls.Origin(), want)
	}
}

// Errors name the setting; a listener already bound is closed when a
// later one fails.
func TestOpenListenersErrors(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	free := freePort(t)
	for _, tc := range []struct {
		cfg  Config
		eu   bool
		want string
	}{
		{Config{Addr: taken.Addr().String()}, false, "EARSHOT_ADDR: "},
		{Config{Addr: free, EUAddr: taken.Addr().String()}, true, "EARSHOT_EU_ADDR: "},
		{Config{Addr: free, PublicURL: "https://speech.example.com/api"}, false, "EARSHOT_PUBLIC_URL: "},
		{Config{Addr: free, EUAddr: "127.0.0.1:0", EUPublicURL: "speech.example.com"}, true, "EARSHOT_EU_PUBLIC_URL: "},
		{Config{Addr: free, TLSCert: filepath.Join(t.TempDir(), "missing.pem"), TLSKey: "missing.key"}, false, "EARSHOT_TLS_CERT/EARSHOT_TLS_KEY: "},
	} {
		if _, err := openListeners(&tc.cfg, nil, tc.eu); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error starting %q", tc.cfg, err, tc.want)
		}
		// Whatever was bound before the failure is free again.
		ln, err := net.Listen("tcp", free)
		if err != nil {
			t.Fatalf("%+v: %s still bound after the failure: %v", tc.cfg, free, err)
		}
		ln.Close()
	}
}

// freePort returns a loopback address nothing listens on.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// selfSigned writes a certificate for 127.0.0.1 and its key, returning
// their paths.
func selfSigned(t *testing.T) (certFile, keyFile string) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "earshot test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}
