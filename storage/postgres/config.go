package postgres

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Config configures Open. Only URL is required; every other zero field
// takes its documented default.
type Config struct {
	// URL is the server and database: a postgres:// URL
	// ("postgres://user:password@host:5432/earshot?sslmode=verify-full")
	// or a keyword/value string ("host=... dbname=... user=..."), in the
	// forms pgx accepts, including pgx's pool_* settings. The password
	// never appears in an error Open returns. Required.
	URL string
	// Schema is the PostgreSQL schema holding the store's tables. Open
	// creates it when missing (which needs the CREATE privilege on the
	// database) and every connection of the store uses it alone as its
	// search_path, so stores with different schemas on one database (one
	// per region, say) never see each other's data. A search_path set in
	// URL is overridden. Letters, digits and underscores, starting with a
	// letter or underscore, at most 63 bytes, not starting with "pg_";
	// case-sensitive. Default "earshot" (a schema of its own, so the
	// tables never meet an application's tables in "public").
	Schema string
	// MaxConns bounds the store's connection pool. Default: the URL's
	// pool_max_conns when it has one, else DefaultMaxConns.
	MaxConns int
	// ConnectTimeout bounds each connection attempt (dial, TLS,
	// authentication), so an unreachable server fails Open quickly.
	// Default: the URL's connect_timeout when it has one, else
	// DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// ApplicationName is reported to the server (pg_stat_activity).
	// Default: the URL's application_name when it has one, else "earshot".
	ApplicationName string
}

// Defaults applied by Open.
const (
	DefaultSchema          = "earshot"
	DefaultMaxConns        = 10
	DefaultConnectTimeout  = 10 * time.Second
	DefaultApplicationName = "earshot"
)

// schemaName is what Config.Schema accepts: a plain identifier, so that
// it reads the same quoted and unquoted and in search_path.
var schemaName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (c *Config) validate() error {
	switch {
	case strings.TrimSpace(c.URL) == "":
		return errors.New("postgres: Config.URL is required")
	case len(c.Schema) > 63:
		return fmt.Errorf("postgres: Config.Schema %q is longer than 63 bytes", c.Schema)
	case !schemaName.MatchString(c.Schema):
		return fmt.Errorf("postgres: Config.Schema %q must be letters, digits and underscores, starting with a letter or underscore", c.Schema)
	case strings.HasPrefix(strings.ToLower(c.Schema), "pg_"):
		return fmt.Errorf("postgres: Config.Schema %q: names starting with pg_ are reserved by PostgreSQL", c.Schema)
	case c.MaxConns < 0:
		return fmt.Errorf("postgres: Config.MaxConns %d is negative", c.MaxConns)
	case c.MaxConns > 1<<20:
		return fmt.Errorf("postgres: Config.MaxConns %d is too large", c.MaxConns)
	case c.ConnectTimeout < 0:
		return fmt.Errorf("postgres: Config.ConnectTimeout %v is negative", c.ConnectTimeout)
	case strings.ContainsRune(c.ApplicationName, 0):
		return errors.New("postgres: Config.ApplicationName contains a NUL byte")
	}
	return nil
}

// poolConfig validates cfg and turns it into the pool's configuration. It
// does not connect. Its errors never hold the URL's password.
func poolConfig(cfg Config) (*pgxpool.Config, error) {
	if cfg.Schema == "" {
		cfg.Schema = DefaultSchema
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	pc, err := pgxpool.ParseConfig(cfg.URL)
	if err != nil {
		// pgx masks the password in the string it quotes only on a
		// best-effort basis, and an inner url.Error may quote the whole
		// string: the message leaves the string out and is scrubbed of
		// every password candidate too.
		msg := err.Error()
		if pce := (*pgconn.ParseConfigError)(nil); errors.As(err, &pce) {
			bare := *pce
			bare.ConnString = ""
			msg = strings.TrimPrefix(bare.Error(), "cannot parse ``: ")
		}
		return nil, &scrubbedError{
			msg: "postgres: Config.URL is not a valid connection string: " + scrub(msg, passwordCandidates(cfg.URL)...),
			err: errInvalidURL,
		}
	}
	switch {
	case cfg.MaxConns > 0:
		pc.MaxConns = int32(cfg.MaxConns)
	case !strings.Contains(cfg.URL, "pool_max_conns"):
		pc.MaxConns = DefaultMaxConns
	}
	if pc.MinConns > pc.MaxConns {
		pc.MinConns = pc.MaxConns
	}
	switch {
	case cfg.ConnectTimeout > 0:
		pc.ConnConfig.ConnectTimeout = cfg.ConnectTimeout
	case pc.ConnConfig.ConnectTimeout == 0:
		pc.ConnConfig.ConnectTimeout = DefaultConnectTimeout
	}
	// The fallbacks (other hosts of a multi-host URL) were parsed with the
	// same settings; only the timeout lives on the main config.
	rp := pc.ConnConfig.RuntimeParams
	rp["search_path"] = pgx.Identifier{cfg.Schema}.Sanitize()
	switch {
	case cfg.ApplicationName != "":
		rp["application_name"] = cfg.ApplicationName
	case rp["application_name"] == "":
		rp["application_name"] = DefaultApplicationName
	}
	return pc, nil
}

// errInvalidURL is wrapped by the error for a URL pgx cannot parse; the
// parser's own error is not kept in the chain because its text may hold
// the password.
var errInvalidURL = errors.New("postgres: invalid connection string")

// scrubbedError is an error whose message was cleaned of secrets; Unwrap
// still reaches the original, so errors.Is and errors.As work.
type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }

// redact returns err with every occurrence of the secrets in its message
// masked; err itself when none occurs.
func redact(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	clean := scrub(msg, secrets...)
	if clean == msg {
		return err
	}
	return &scrubbedError{msg: clean, err: err}
}

// scrub masks every secret of at least one byte in s.
func scrub(s string, secrets ...string) string {
	for _, sec := range secrets {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, "xxxxx")
		}
	}
	return s
}

// passwordCandidates returns what might be a password in a connection
// string that did not parse: the text between the first ':' and the '@'
// ending a URL's user information (and its percent-decoded form), and the
// values of password= keywords. Over-masking is harmless; a leak is not.
func passwordCandidates(conn string) []string {
	var out []string
	// The user information ends at the first '@' for pgx's parser and at
	// the last one for a lenient reader: mask both readings, of the URL
	// after its scheme and of every word of a string without one
	// ("u:pw@h" with the scheme left out, which pgx reads as keyword/value
	// and quotes in its error).
	userinfo := func(rest string) {
		for _, at := range []int{strings.Index(rest, "@"), strings.LastIndex(rest, "@")} {
			if at < 0 {
				continue
			}
			if _, pw, ok := strings.Cut(rest[:at], ":"); ok && pw != "" {
				out = append(out, pw, unescape(pw))
			}
		}
	}
	if _, rest, ok := strings.Cut(conn, "://"); ok {
		userinfo(rest)
	}
	for _, f := range strings.Fields(conn) {
		userinfo(f)
	}
	for _, m := range passwordKV.FindAllStringSubmatch(conn, -1) {
		for _, v := range m[1:] {
			if v != "" {
				out = append(out, v, unescape(v))
			}
		}
	}
	return out
}

// passwordKV finds password and sslpassword values in keyword/value
// strings (quoted or not) and URL queries.
var passwordKV = regexp.MustCompile(`(?i)password\s*=\s*(?:'((?:[^'\\]|\\.)*)'|([^\s&']+))`)

// unescape percent-decodes s leniently: a malformed escape stays as it is.
func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
