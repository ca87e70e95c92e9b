package server

import (
	"crypto/tls"
	"fmt"
	"net"

	"github.com/earshot-dev/earshot/httpapi"
)

// listeners are the API's bound listeners and the URLs clients reach them
// at (in transcripts' links, signed redacted-audio URLs, the EU region's
// pointers to the main one and back).
type listeners struct {
	main, eu     net.Listener  // eu: nil without the EU region
	urls, euURLs *httpapi.URLs // euURLs: nil without the EU region
}

// openListeners binds EARSHOT_ADDR, and EARSHOT_EU_ADDR when eu is set,
// loading the TLS files, before any worker starts: a second process on
// the same address, or a bad certificate, must fail here without touching
// queued jobs. The public URLs are EARSHOT_PUBLIC_URL and
// EARSHOT_EU_PUBLIC_URL, or http(s):// plus the bound address; they sign
// with keys derived from the content key (httpapi.NewURLs derives from
// what it is given), so URLs signed before a restart, or by another
// process, stay valid; the EU region's key is its own.
func openListeners(cfg *Config, key []byte, eu bool) (_ *listeners, err error) {
	l := &listeners{}
	defer func() {
		if err != nil {
			l.close()
		}
	}()
	if l.main, err = listen(cfg, cfg.Addr, "EARSHOT_ADDR"); err != nil {
		return nil, err
	}
	if eu {
		if l.eu, err = listen(cfg, cfg.EUAddr, "EARSHOT_EU_ADDR"); err != nil {
			return nil, err
		}
	}
	if l.urls, err = httpapi.NewURLs(publicURL(cfg, cfg.PublicURL, l.main), key); err != nil {
		return nil, fmt.Errorf("EARSHOT_PUBLIC_URL: %w", err)
	}
	if eu {
		if l.euURLs, err = httpapi.NewURLs(publicURL(cfg, cfg.EUPublicURL, l.eu), deriveKey(key, "eu region urls")); err != nil {
			return nil, fmt.Errorf("EARSHOT_EU_PUBLIC_URL: %w", err)
		}
	}
	return l, nil
}

// close closes the listeners (the http.Servers' Shutdown has closed them
// already when they served).
func (l *listeners) close() {
	if l.eu != nil {
		l.eu.Close()
	}
	if l.main != nil {
		l.main.Close()
	}
}

// publicURL is configured, or http(s):// plus the address ln listens on.
func publicURL(cfg *Config, configured string, ln net.Listener) string {
	if configured != "" {
		return configured
	}
	scheme := "http"
	if cfg.TLSCert != "" {
		scheme = "https"
	}
	return scheme + "://" + ln.Addr().String()
}

// listen binds addr (named by setting in errors), with TLS when
// configured.
func listen(cfg *Config, addr, setting string) (net.Listener, error) {
	var tcfg *tls.Config
	if cfg.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("EARSHOT_TLS_CERT/EARSHOT_TLS_KEY: %w", err)
		}
		tcfg = &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2", "http/1.1"}}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", setting, err)
	}
	if tcfg != nil {
		ln = tls.NewListener(ln, tcfg)
	}
	return ln, nil
}
