package server

import (
	"fmt"
	"strings"
	"testing"
)

// storageVars are the settings these tests set; each test starts with
// all of them empty (unset, for env()).
var storageVars = []string{
	"EARSHOT_DATABASE_URL", "EARSHOT_DATABASE_SCHEMA", "EARSHOT_S3_ENDPOINT", "EARSHOT_S3_BUCKET", "EARSHOT_S3_PREFIX",
	"EARSHOT_S3_REGION", "EARSHOT_S3_ACCESS_KEY", "EARSHOT_S3_SECRET_KEY", "EARSHOT_S3_CREATE_BUCKET", "EARSHOT_EU_ADDR",
	"EARSHOT_EU_PUBLIC_URL", "EARSHOT_EU_DATABASE_SCHEMA", "EARSHOT_EU_S3_BUCKET", "EARSHOT_EU_S3_PREFIX",
	"EARSHOT_ENCRYPTION_KEY", "EARSHOT_API_KEYS", "EARSHOT_ADDR",
}

func parseWith(t *testing.T, vars map[string]string) (*Config, error) {
	t.Helper()
	for _, v := range storageVars {
		t.Setenv(v, vars[v])
	}
	return ParseConfig(nil)
}

const (
	testDB  = "postgres://earshot:secret@db.example.com/earshot"
	testKey = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	testAPI = "key-of-at-least-16-chars:p1"
)

func TestStorageSettingsRefused(t *testing.T) {
	for _, tc := range []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{"EARSHOT_DATABASE_URL": testDB, "EARSHOT_API_KEYS": testAPI}, "needs EARSHOT_ENCRYPTION_KEY"},
		{map[string]string{"EARSHOT_DATABASE_URL": testDB, "EARSHOT_ENCRYPTION_KEY": testKey}, "needs EARSHOT_API_KEYS"},
		{map[string]string{"EARSHOT_S3_ENDPOINT": "http://127.0.0.1:9000"}, "EARSHOT_S3_ENDPOINT and EARSHOT_S3_BUCKET must be set together"},
		{map[string]string{"EARSHOT_S3_BUCKET": "b"}, "EARSHOT_S3_ENDPOINT and EARSHOT_S3_BUCKET must be set together"},
		{map[string]string{"EARSHOT_S3_PREFIX": "x/"}, "EARSHOT_S3_PREFIX is set but"},
		{map[string]string{"EARSHOT_S3_ENDPOINT": "http://h:1", "EARSHOT_S3_BUCKET": "b", "EARSHOT_S3_ACCESS_KEY": "a"}, "must be set together"},
		{map[string]string{"EARSHOT_EU_PUBLIC_URL": "https://eu.example.com"}, "need EARSHOT_EU_ADDR"},
		{map[string]string{"EARSHOT_ADDR": "127.0.0.1:9000", "EARSHOT_EU_ADDR": "127.0.0.1:9000"}, "listener of its own"},
		{map[string]string{"EARSHOT_DATABASE_URL": testDB, "EARSHOT_ENCRYPTION_KEY": testKey, "EARSHOT_API_KEYS": testAPI,
			"EARSHOT_EU_ADDR": "127.0.0.1:9001", "EARSHOT_EU_DATABASE_SCHEMA": "earshot"}, "schema of its own"},
		{map[string]string{"EARSHOT_S3_ENDPOINT": "http://h:1", "EARSHOT_S3_BUCKET": "b", "EARSHOT_S3_PREFIX": "us",
			"EARSHOT_EU_ADDR": "127.0.0.1:9001", "EARSHOT_EU_S3_PREFIX": "us/"}, "prefix (or bucket) of its own"},
		{map[string]string{"EARSHOT_S3_CREATE_BUCKET": "maybe"}, "EARSHOT_S3_CREATE_BUCKET: must be true or false"},
	} {
		if _, err := parseWith(t, tc.vars); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error containing %q", tc.vars, err, tc.want)
		}
	}
}

func TestStorageSettings(t *testing.T) {
	c, err := parseWith(t, map[string]string{
		"EARSHOT_DATABASE_URL": testDB, "EARSHOT_ENCRYPTION_KEY": testKey, "EARSHOT_API_KEYS": testAPI,
		"EARSHOT_S3_ENDPOINT": "https://s3.example.com", "EARSHOT_S3_BUCKET": "media", "EARSHOT_S3_PREFIX": "prod",
		"EARSHOT_S3_CREATE_BUCKET": "true", "EARSHOT_EU_ADDR": "127.0.0.1:9001",
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.DatabaseSchema != "earshot" || c.EUDatabaseSchema != "earshot_eu" || c.S3Region != "us-east-1" || !c.S3CreateBucket ||
		c.EUS3Bucket != "media" || c.EUS3Prefix != "prod/eu/" {
		t.Fatalf("defaults: %+v", c)
	}
	// A bucket of its own for the EU region, with the default prefix.
	c, err = parseWith(t, map[string]string{
		"EARSHOT_S3_ENDPOINT": "https://s3.example.com", "EARSHOT_S3_BUCKET": "media", "EARSHOT_EU_ADDR": "127.0.0.1:9001",
		"EARSHOT_EU_S3_BUCKET": "media-eu", "EARSHOT_EU_S3_PREFIX": "",
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.EUS3Bucket != "media-eu" || c.EUS3Prefix != "eu/" {
		t.Fatalf("EU bucket %q prefix %q", c.EUS3Bucket, c.EUS3Prefix)
	}
}

// TestAPIKeys: keys shorter than MinKeyLength, and malformed lists, are
// refused at start with a message naming the variable.
func TestAPIKeys(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"short-key:p", "a key of 9 characters is too short to be secret; use at least 16"},
		{"0123456789abcdef:p,tiny:q", "a key of 4 characters is too short"},
		{"0123456789abcdef", `"0123456789abcdef" is not key:project`},
		{" , ", "EARSHOT_API_KEYS: no keys"},
	} {
		if _, err := parseKeys(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parseKeys(%q): %v, want an error containing %q", tc.in, err, tc.want)
		}
	}
	keys, err := parseKeys(" 0123456789abcdef : p1 , fedcba9876543210fedc:p2")
	if err != nil || len(keys) != 2 || keys["0123456789abcdef"] != "p1" || keys["fedcba9876543210fedc"] != "p2" {
		t.Errorf("parseKeys: %v, %v", keys, err)
	}
}

// TestBoolSettings: each true/false setting has its documented default,
// is read from its variable, is overridden by its flag, and refuses a
// value that is not a boolean, naming the variable.
func TestBoolSettings(t *testing.T) {
	for _, tc := range []struct {
		env, flag string
		def       bool
		get       func(*Config) bool
	}{
		{"EARSHOT_ALLOW_PRIVATE_URLS", "allow-private-urls", false, func(c *Config) bool { return c.AllowPrivate }},
		{"EARSHOT_ENGINE_IN_PROCESS", "engine-in-process", false, func(c *Config) bool { return c.InProcessEngine }},
		{"EARSHOT_S3_CREATE_BUCKET", "s3-create-bucket", false, func(c *Config) bool { return c.S3CreateBucket }},
		{"EARSHOT_PUNCTUATION_MODEL", "punctuation-model", true, func(c *Config) bool { return c.PunctuationModel }},
		{"EARSHOT_STREAM_SINGLE_PASS", "stream-single-pass", false, func(c *Config) bool { return c.StreamSinglePass }},
	} {
		t.Setenv(tc.env, "")
		if c, err := ParseConfig(nil); err != nil || tc.get(c) != tc.def {
			t.Errorf("%s unset: %v (%v), want %v", tc.env, c != nil && tc.get(c), err, tc.def)
		}
		t.Setenv(tc.env, fmt.Sprint(!tc.def))
		if c, err := ParseConfig(nil); err != nil || tc.get(c) == tc.def {
			t.Errorf("%s=%v: not taken (%v)", tc.env, !tc.def, err)
		}
		if c, err := ParseConfig([]string{"-" + tc.flag + "=" + fmt.Sprint(tc.def)}); err != nil || tc.get(c) != tc.def {
			t.Errorf("-%s=%v after %s=%v: not taken (%v)", tc.flag, tc.def, tc.env, !tc.def, err)
		}
		t.Setenv(tc.env, "maybe")
		if _, err := ParseConfig(nil); err == nil || !strings.Contains(err.Error(), tc.env+": must be true or false") {
			t.Errorf("%s=maybe: %v", tc.env, err)
		}
		t.Setenv(tc.env, "")
	}
}
