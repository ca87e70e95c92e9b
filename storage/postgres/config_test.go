package postgres

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/testservices"
)

func TestConfigValidation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "Config.URL is required"},
		{Config{URL: "  "}, "Config.URL is required"},
		{Config{URL: "postgres://h/db", Schema: "1region"}, `Config.Schema "1region" must be letters`},
		{Config{URL: "postgres://h/db", Schema: "eu-west"}, `Config.Schema "eu-west" must be letters`},
		{Config{URL: "postgres://h/db", Schema: `a"b`}, "Config.Schema"},
		{Config{URL: "postgres://h/db", Schema: "pg_mine"}, "reserved by PostgreSQL"},
		{Config{URL: "postgres://h/db", Schema: strings.Repeat("s", 64)}, "longer than 63 bytes"},
		{Config{URL: "postgres://h/db", MaxConns: -1}, "Config.MaxConns -1 is negative"},
		{Config{URL: "postgres://h/db", ConnectTimeout: -time.Second}, "Config.ConnectTimeout -1s is negative"},
		{Config{URL: "postgres://h/db", ApplicationName: "a\x00"}, "Config.ApplicationName"},
		{Config{URL: "mysql://u:Pw0rdXyz@h/db"}, "not a valid connection string"},
	} {
		_, err := poolConfig(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("poolConfig(%+v) = %v; want an error containing %q", tc.cfg, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "Pw0rdXyz") {
			t.Errorf("error %q holds the password", err)
		}
		// Open refuses the same without touching the network.
		if _, err := Open(context.Background(), tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open(%+v) = %v", tc.cfg, err)
		}
	}
}

func TestConfigDefaults(t *testing.T) {
	t.Parallel()
	pc, err := poolConfig(Config{URL: "postgres://u:p@db.example:5433/earshot?sslmode=disable"})
	if err != nil {
		t.Fatal(err)
	}
	rp := pc.ConnConfig.RuntimeParams
	if pc.MaxConns != DefaultMaxConns || pc.ConnConfig.ConnectTimeout != DefaultConnectTimeout ||
		rp["search_path"] != `"earshot"` || rp["application_name"] != DefaultApplicationName {
		t.Errorf("defaults: MaxConns %d, ConnectTimeout %v, runtime params %v", pc.MaxConns, pc.ConnConfig.ConnectTimeout, rp)
	}
	// The URL's own settings are kept when Config leaves them zero ...
	pc, err = poolConfig(Config{URL: "postgres://h/db?pool_max_conns=3&connect_timeout=2&application_name=mine&search_path=other"})
	if err != nil {
		t.Fatal(err)
	}
	rp = pc.ConnConfig.RuntimeParams
	if pc.MaxConns != 3 || pc.ConnConfig.ConnectTimeout != 2*time.Second || rp["application_name"] != "mine" || rp["search_path"] != `"earshot"` {
		t.Errorf("URL settings: MaxConns %d, ConnectTimeout %v, runtime params %v (search_path is always the schema)",
			pc.MaxConns, pc.ConnConfig.ConnectTimeout, rp)
	}
	// ... and Config's win when set.
	pc, err = poolConfig(Config{URL: "host=h dbname=db pool_max_conns=3 connect_timeout=2", Schema: "Region_EU",
		MaxConns: 7, ConnectTimeout: time.Second, ApplicationName: "app"})
	if err != nil {
		t.Fatal(err)
	}
	rp = pc.ConnConfig.RuntimeParams
	if pc.MaxConns != 7 || pc.ConnConfig.ConnectTimeout != time.Second || rp["application_name"] != "app" || rp["search_path"] != `"Region_EU"` {
		t.Errorf("Config settings: MaxConns %d, ConnectTimeout %v, runtime params %v", pc.MaxConns, pc.ConnConfig.ConnectTimeout, rp)
	}
}

// Connection strings that do not parse give an error naming the problem
// without the password, whatever pgx quotes.
func TestBadURLHidesPassword(t *testing.T) {
	t.Parallel()
	const pw = "S3cretPassw0rd"
	for _, u := range []string{
		"postgres://user:" + pw + "@host:notaport/db",
		"postgres://user:" + pw + "@[::1/db",
		"postgres://user:" + url.PathEscape(pw+"/%") + "@host:99999/db",
		"postgresql://user:" + pw + "@host/db?sslmode=bogus",
		"postgres://user@host/db?password=" + pw + "&connect_timeout=x",
		"host=h port=notaport password=" + pw,
		"host=h password='" + pw + "' port=x",
		"host=h password=" + pw + " sslmode=bogus",
		"user:" + pw + "@host:1:2/db", // not a URL at all
		":" + pw + "@ x=",             // found by FuzzPoolConfig: pgx quotes ":pw@" as a keyword
	} {
		_, err := Open(context.Background(), Config{URL: u})
		if err == nil {
			t.Errorf("Open(%q) succeeded", u)
			continue
		}
		if strings.Contains(err.Error(), "S3cret") || strings.Contains(err.Error(), "Passw0rd") {
			t.Errorf("Open(%q) error holds the password: %v", u, err)
		}
		if !strings.HasPrefix(err.Error(), "postgres: ") {
			t.Errorf("Open(%q) error %q does not name the package", u, err)
		}
	}
}

// An unreachable server fails Open quickly with an error naming the
// server; a server that accepts but never answers fails after
// ConnectTimeout; a cancelled context stops Open at once.
func TestUnreachable(t *testing.T) {
	t.Parallel()
	const pw = "Unre4chablePw"
	// A port nobody listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := l.Addr().String()
	l.Close()
	// A listener that accepts and then says nothing.
	mute, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer mute.Close()
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := mute.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name   string
		ctx    context.Context
		cfg    Config
		want   []string
		within time.Duration
	}{
		{"refused", context.Background(), Config{URL: "postgres://earshot:" + pw + "@" + refused + "/db?sslmode=disable"},
			[]string{"connection refused", refused, "earshot@127.0.0.1"}, 5 * time.Second},
		{"mute", context.Background(), Config{URL: "postgres://earshot:" + pw + "@" + mute.Addr().String() + "/db?sslmode=disable", ConnectTimeout: 300 * time.Millisecond},
			[]string{"timeout", mute.Addr().String()}, 5 * time.Second},
		{"cancelled", cancelled, Config{URL: "postgres://earshot:" + pw + "@" + mute.Addr().String() + "/db?sslmode=disable"},
			[]string{"context canceled"}, 5 * time.Second},
	} {
		start := time.Now()
		_, err := Open(tc.ctx, tc.cfg)
		took := time.Since(start)
		if err == nil {
			t.Errorf("%s: Open succeeded", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", tc.name, err, w)
			}
		}
		if strings.Contains(err.Error(), pw) {
			t.Errorf("%s: error holds the password: %v", tc.name, err)
		}
		if took > tc.within {
			t.Errorf("%s: Open took %v, want under %v", tc.name, took, tc.within)
		}
		t.Logf("%s (%v): %v", tc.name, took.Round(time.Millisecond), err)
	}
}

// A wrong password is an authentication error that quotes neither
// password.
func TestWrongPassword(t *testing.T) {
	t.Parallel()
	good, err := url.Parse(testservices.Postgres(t))
	if err != nil {
		t.Fatal(err)
	}
	realPW, _ := good.User.Password()
	bad := *good
	bad.User = url.UserPassword(good.User.Username(), "Wr0ngPassw0rd")
	_, err = Open(context.Background(), Config{URL: bad.String()})
	if err == nil {
		t.Fatal("Open with a wrong password succeeded")
	}
	if !strings.Contains(err.Error(), "password authentication failed") {
		t.Errorf("error %q does not say authentication failed", err)
	}
	if strings.Contains(err.Error(), "Wr0ngPassw0rd") || (realPW != "" && strings.Contains(err.Error(), realPW)) {
		t.Errorf("error holds a password: %v", err)
	}
	var se *scrubbedError
	if errors.As(err, &se) {
		t.Logf("scrubbed: %v", err)
	}
}

// FuzzPoolConfig: whatever surrounds a password in any of the places a
// connection string holds one (URL user information, URL query,
// keyword/value, quoted or not), poolConfig does not panic and its error
// never holds the password.
func FuzzPoolConfig(f *testing.F) {
	for i, s := range [][2]string{
		{"postgres://u", "h:5432/db"}, {"postgres://u", "h:port/db"}, {"postgresql://u", "[::1/db"},
		{"host=h", "port=x"}, {"host=h", "sslmode=bogus"}, {"postgres://u@h/db", "x=%zz"},
		{"postgres://u", "h/db?pool_max_conns=-1"}, {"u", "h"}, {"postgres://", "h1,h2:5/db?target_session_attrs=x"},
	} {
		f.Add(uint8(i), s[0], s[1], "Secr3tPw")
	}
	f.Fuzz(func(t *testing.T, form uint8, before, after, pw string) {
		if len(pw) < 6 || strings.ContainsAny(pw, "%'\\ \t\n\r\x00@:/?#&=[]") {
			return
		}
		var conn string
		switch form % 4 {
		case 0:
			conn = before + ":" + pw + "@" + after
		case 1:
			conn = before + "?password=" + pw + "&" + after
		case 2:
			conn = before + " password=" + pw + " " + after
		case 3:
			conn = before + " password='" + pw + "' " + after
		}
		if strings.Count(conn, pw) != 1 {
			return // the password also appears as other text
		}
		_, err := poolConfig(Config{URL: conn})
		if err != nil && strings.Contains(err.Error(), pw) {
			t.Errorf("poolConfig(%q) error holds the password %q: %v", conn, pw, err)
		}
	})
}
