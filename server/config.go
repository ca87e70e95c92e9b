package server

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/earshot-dev/earshot/httpapi"
	"github.com/earshot-dev/earshot/internal/httpguard"
	"github.com/earshot-dev/earshot/transcribe"
)

// Config is the server configuration: environment variables, overridden
// by flags of the same meaning.
type Config struct {
	Addr           string        // EARSHOT_ADDR, default 127.0.0.1:8080
	Data           string        // EARSHOT_DATA, default ./earshot-data
	PublicURL      string        // EARSHOT_PUBLIC_URL, default http(s)://Addr
	APIKeys        string        // EARSHOT_API_KEYS, key:project,key:project
	EncryptionKey  string        // EARSHOT_ENCRYPTION_KEY, 64 hex chars or base64 of 32 bytes
	Workers        int           // EARSHOT_WORKERS, default one per CPU
	Decoders       int           // EARSHOT_DECODERS, pocketsphinx decoders for batch jobs, default one per worker
	StreamDecoders int           // EARSHOT_STREAM_DECODERS, decoders for streaming sessions (one each); 0: as many as the cores carry
	ModelDir       string        // EARSHOT_MODEL_DIR, default /usr/share/pocketsphinx/model/en-us
	TLSCert        string        // EARSHOT_TLS_CERT
	TLSKey         string        // EARSHOT_TLS_KEY
	AllowPrivate   bool          // EARSHOT_ALLOW_PRIVATE_URLS
	MaxUpload      int64         // EARSHOT_MAX_UPLOAD_BYTES, default 2 GiB
	MaxDuration    time.Duration // EARSHOT_MAX_DURATION, default 10h
	Retention      time.Duration // EARSHOT_RETENTION, default 2160h (90 days)
	UploadTTL      time.Duration // EARSHOT_UPLOAD_TTL, default 24h: uploads no transcript used by then are deleted
	RateLimit      float64       // EARSHOT_RATE_LIMIT, requests/s per project, default 50
	RateBurst      int           // EARSHOT_RATE_BURST, requests at once per project, default 100
	RealtimeLimit  int           // EARSHOT_REALTIME_SESSIONS, concurrent sessions per project, default 32
	RealtimeShare  float64       // EARSHOT_REALTIME_PROJECT_SHARE, largest share of the streaming capacity one project holds; default 0.5 with several projects, 1 with one
	AuthFailures   float64       // EARSHOT_AUTH_FAILURE_RATE, failed authentications per second per client address (burst 10 times that), default 5
	TrustedProxies string        // EARSHOT_TRUSTED_PROXIES, comma-separated CIDRs of reverse proxies whose X-Forwarded-For is honoured; default none
	LogLevel       string        // EARSHOT_LOG_LEVEL: debug, info, warn, error
	LogFormat      string        // EARSHOT_LOG_FORMAT: text (default) or json
	MetricsAddr    string        // EARSHOT_METRICS_ADDR: listener for /metrics, /healthz and /readyz; default none
	JobLease       time.Duration // EARSHOT_JOB_LEASE, default 30s: how soon a dead worker's job is resumed
	StoreTimeout   time.Duration // EARSHOT_STORE_TIMEOUT, default 5s: a request's store calls past it are answered 503
	WebhookRetry   time.Duration // EARSHOT_WEBHOOK_RETRY_INTERVAL, default 10s (the spec's value)
	OutageWindow   time.Duration // EARSHOT_ENGINE_OUTAGE_WINDOW, default 10m: how long a job waits for an engine or blob store that is down

	// Speech engines (README "Speech engines"). pocketsphinx is always
	// configured (streaming uses it); a whisper.cpp server and an
	// OpenAI-compatible server are added when their URL is set.
	Engine          string // EARSHOT_ENGINE: the default engine: pocketsphinx (default), whispercpp or openai
	InProcessEngine bool   // EARSHOT_ENGINE_IN_PROCESS: run pocketsphinx in the server process instead of supervised worker processes
	// PunctuationModel (EARSHOT_PUNCTUATION_MODEL, default true): punctuate
	// engines that give no punctuation with the learned model; false keeps
	// the pause rules alone.
	PunctuationModel bool
	// StreamSinglePass (EARSHOT_STREAM_SINGLE_PASS, default false): the
	// streaming pool's decoders run only pocketsphinx's first search
	// (pocketsphinx.Config.SinglePass), for finals two to four times
	// sooner at a few more word errors; by default they run both, as
	// batch decoding does.
	StreamSinglePass bool
	WhisperCppURL    string // EARSHOT_WHISPERCPP_URL: whisper.cpp servers, comma-separated (a pool: adapters/enginepool)
	OpenAIURL        string // EARSHOT_OPENAI_URL: OpenAI-compatible API roots, comma-separated, e.g. http://127.0.0.1:8000/v1
	OpenAIModel      string // EARSHOT_OPENAI_MODEL: the model the OpenAI-compatible server runs, e.g. Systran/faster-whisper-small
	OpenAIKey        string // EARSHOT_OPENAI_KEY: its API key, if it needs one
	OpenAIDetect     string // EARSHOT_OPENAI_DETECT_LANGUAGE: the "language" value that asks the OpenAI-compatible server to detect (default: the field left out)
	EngineLanguages  string // EARSHOT_ENGINE_LANGUAGES: languages the remote engines transcribe, comma-separated (default: all of whisper's)
	// EARSHOT_WHISPERCPP_CONCURRENCY (default 1), EARSHOT_OPENAI_CONCURRENCY
	// (default 0, no limit): requests each server of the engine is given at once.
	WhisperCppConcurrency int
	OpenAIConcurrency     int

	// Summaries and chapter titles from an OpenAI-compatible chat model
	// (optional; the built-in extractive method otherwise and as fall-back).
	LLMURL   string // EARSHOT_LLM_URL: chat-completions API root, e.g. http://127.0.0.1:11434/v1
	LLMModel string // EARSHOT_LLM_MODEL
	LLMKey   string // EARSHOT_LLM_KEY
	// EARSHOT_LLM_CONTEXT: the chat model's context in tokens (default
	// 4096); LeMUR cuts longer inputs into parts.
	LLMContext int

	// Several processes (README "Running several processes"): with a
	// database, any number of processes share the work; each keeps its
	// own EARSHOT_DATA (lock, temporary files), and all of them need the
	// same EARSHOT_ENCRYPTION_KEY and EARSHOT_API_KEYS.
	DatabaseURL    string // EARSHOT_DATABASE_URL: PostgreSQL (postgres://...) instead of SQLite in the data directory
	DatabaseSchema string // EARSHOT_DATABASE_SCHEMA: the schema holding the tables, default "earshot"
	S3Endpoint     string // EARSHOT_S3_ENDPOINT: an S3-compatible server (https://host or http://host:port) for uploads and redacted audio
	S3Bucket       string // EARSHOT_S3_BUCKET: its bucket (set with EARSHOT_S3_ENDPOINT)
	S3Prefix       string // EARSHOT_S3_PREFIX: key prefix in the bucket, default none
	S3Region       string // EARSHOT_S3_REGION: signing region, default us-east-1
	S3AccessKey    string // EARSHOT_S3_ACCESS_KEY, default $AWS_ACCESS_KEY_ID
	S3SecretKey    string // EARSHOT_S3_SECRET_KEY, default $AWS_SECRET_ACCESS_KEY
	S3CreateBucket bool   // EARSHOT_S3_CREATE_BUCKET: create the bucket when missing, default false

	// The EU region (README "EU region"): a second listener serving the
	// spec's EU endpoint set over a store and blobs of its own.
	EUAddr           string // EARSHOT_EU_ADDR: its listen address; unset: no EU region
	EUPublicURL      string // EARSHOT_EU_PUBLIC_URL, default http(s)://EUAddr
	EUDatabaseSchema string // EARSHOT_EU_DATABASE_SCHEMA: its schema with a database, default "earshot_eu"
	EUS3Bucket       string // EARSHOT_EU_S3_BUCKET: its bucket with S3, default EARSHOT_S3_BUCKET
	EUS3Prefix       string // EARSHOT_EU_S3_PREFIX: its key prefix with S3, default EARSHOT_S3_PREFIX + "eu/"

	// Ready, when set, is called once the server listens and its workers
	// run, with the address it listens on (useful with EARSHOT_ADDR
	// 127.0.0.1:0, an in-process server on a free port). Not settable from
	// the environment.
	Ready func(addr string)
	// Quiet prints no development-key banner (in-process use).
	Quiet bool
}

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	return def
}

// ParseConfig reads the EARSHOT_* environment and then args (flags).
func ParseConfig(args []string) (*Config, error) {
	c := &Config{}
	fs := flag.NewFlagSet("earshot", flag.ContinueOnError)
	fs.StringVar(&c.Addr, "addr", env("EARSHOT_ADDR", "127.0.0.1:8080"), "listen address (EARSHOT_ADDR)")
	fs.StringVar(&c.Data, "data", env("EARSHOT_DATA", "./earshot-data"), "data directory (EARSHOT_DATA)")
	fs.StringVar(&c.PublicURL, "public-url", env("EARSHOT_PUBLIC_URL", ""), "public origin used in URLs (EARSHOT_PUBLIC_URL)")
	fs.StringVar(&c.APIKeys, "api-keys", env("EARSHOT_API_KEYS", ""), "key:project,... (EARSHOT_API_KEYS); unset: a development key")
	fs.StringVar(&c.EncryptionKey, "encryption-key", env("EARSHOT_ENCRYPTION_KEY", ""), "32-byte content key, hex or base64 (EARSHOT_ENCRYPTION_KEY); unset: generated into the data directory")
	fs.StringVar(&c.ModelDir, "model-dir", env("EARSHOT_MODEL_DIR", "/usr/share/pocketsphinx/model/en-us"), "pocketsphinx model directory (EARSHOT_MODEL_DIR)")
	fs.StringVar(&c.TLSCert, "tls-cert", env("EARSHOT_TLS_CERT", ""), "TLS certificate file (EARSHOT_TLS_CERT)")
	fs.StringVar(&c.TLSKey, "tls-key", env("EARSHOT_TLS_KEY", ""), "TLS key file (EARSHOT_TLS_KEY)")
	fs.StringVar(&c.LogLevel, "log-level", env("EARSHOT_LOG_LEVEL", "info"), "log level (EARSHOT_LOG_LEVEL)")
	fs.StringVar(&c.LogFormat, "log-format", env("EARSHOT_LOG_FORMAT", "text"), "log format, text or json (EARSHOT_LOG_FORMAT)")
	fs.StringVar(&c.TrustedProxies, "trusted-proxies", env("EARSHOT_TRUSTED_PROXIES", ""), "comma-separated CIDRs (or addresses) of reverse proxies whose X-Forwarded-For names the client (EARSHOT_TRUSTED_PROXIES); unset: the peer address is the client")
	fs.StringVar(&c.MetricsAddr, "metrics-addr", env("EARSHOT_METRICS_ADDR", ""), "listen address of /metrics, /healthz and /readyz (EARSHOT_METRICS_ADDR); unset: none")
	for _, f := range []struct {
		p                *string
		name, envv, help string
		def              string
	}{
		{&c.Engine, "engine", "EARSHOT_ENGINE", "the default speech engine: pocketsphinx, whispercpp or openai", "pocketsphinx"},
		{&c.WhisperCppURL, "whispercpp-url", "EARSHOT_WHISPERCPP_URL", "URLs of whisper.cpp servers, comma-separated, e.g. http://127.0.0.1:8081,http://127.0.0.1:8082", ""},
		{&c.OpenAIURL, "openai-url", "EARSHOT_OPENAI_URL", "API roots of OpenAI-compatible transcription servers, comma-separated, e.g. http://127.0.0.1:8000/v1", ""},
		{&c.OpenAIModel, "openai-model", "EARSHOT_OPENAI_MODEL", "model name for the OpenAI-compatible server", ""},
		{&c.OpenAIKey, "openai-key", "EARSHOT_OPENAI_KEY", "API key for the OpenAI-compatible server", ""},
		{&c.OpenAIDetect, "openai-detect-language", "EARSHOT_OPENAI_DETECT_LANGUAGE", "language value that asks the OpenAI-compatible server to detect the language, e.g. auto for whisper-server (default: the field is left out)", ""},
		{&c.EngineLanguages, "engine-languages", "EARSHOT_ENGINE_LANGUAGES", "languages the remote engines transcribe, comma-separated", ""},
		{&c.LLMURL, "llm-url", "EARSHOT_LLM_URL", "chat-completions API root for summaries and chapter titles", ""},
		{&c.LLMModel, "llm-model", "EARSHOT_LLM_MODEL", "chat model name", ""},
		{&c.LLMKey, "llm-key", "EARSHOT_LLM_KEY", "API key of the chat model server", ""},
		{&c.DatabaseURL, "database-url", "EARSHOT_DATABASE_URL", "PostgreSQL URL (postgres://user:password@host/db); unset: SQLite in the data directory", ""},
		{&c.DatabaseSchema, "database-schema", "EARSHOT_DATABASE_SCHEMA", "PostgreSQL schema of the tables", "earshot"},
		{&c.S3Endpoint, "s3-endpoint", "EARSHOT_S3_ENDPOINT", "S3-compatible server for uploads and redacted audio, e.g. https://s3.eu-west-1.amazonaws.com; unset: files in the data directory", ""},
		{&c.S3Bucket, "s3-bucket", "EARSHOT_S3_BUCKET", "S3 bucket", ""},
		{&c.S3Prefix, "s3-prefix", "EARSHOT_S3_PREFIX", "key prefix in the S3 bucket", ""},
		{&c.S3Region, "s3-region", "EARSHOT_S3_REGION", "S3 signing region", "us-east-1"},
		{&c.S3AccessKey, "s3-access-key", "EARSHOT_S3_ACCESS_KEY", "S3 access key (default $AWS_ACCESS_KEY_ID)", ""},
		{&c.S3SecretKey, "s3-secret-key", "EARSHOT_S3_SECRET_KEY", "S3 secret key (default $AWS_SECRET_ACCESS_KEY)", ""},
		{&c.EUAddr, "eu-addr", "EARSHOT_EU_ADDR", "listen address of the EU region; unset: none", ""},
		{&c.EUPublicURL, "eu-public-url", "EARSHOT_EU_PUBLIC_URL", "public origin of the EU region", ""},
		{&c.EUDatabaseSchema, "eu-database-schema", "EARSHOT_EU_DATABASE_SCHEMA", "PostgreSQL schema of the EU region", "earshot_eu"},
		{&c.EUS3Bucket, "eu-s3-bucket", "EARSHOT_EU_S3_BUCKET", "S3 bucket of the EU region (default EARSHOT_S3_BUCKET)", ""},
		{&c.EUS3Prefix, "eu-s3-prefix", "EARSHOT_EU_S3_PREFIX", "key prefix of the EU region in its bucket (default EARSHOT_S3_PREFIX + eu/)", ""},
	} {
		fs.StringVar(f.p, f.name, env(f.envv, f.def), f.help+" ("+f.envv+")")
	}
	ints := []struct {
		p    *int
		name string
		env  string
		def  int
		help string
	}{
		{&c.Workers, "workers", "EARSHOT_WORKERS", 0, "jobs processed at once; 0 = one per CPU"},
		{&c.Decoders, "decoders", "EARSHOT_DECODERS", 0, "pooled recognizer decoders for batch jobs; 0 = one per worker"},
		{&c.WhisperCppConcurrency, "whispercpp-concurrency", "EARSHOT_WHISPERCPP_CONCURRENCY", 1, "requests each whisper.cpp server is given at once"},
		{&c.OpenAIConcurrency, "openai-concurrency", "EARSHOT_OPENAI_CONCURRENCY", 0, "requests each OpenAI-compatible server is given at once; 0 = no limit"},
		{&c.StreamDecoders, "stream-decoders", "EARSHOT_STREAM_DECODERS", 0, "recognizer decoders for streaming sessions, one per live session; 0: as many as the cores could carry (sessions are admitted by measured load)"},
		{&c.RealtimeLimit, "realtime-sessions", "EARSHOT_REALTIME_SESSIONS", 32, "concurrent streaming sessions per project"},
		{&c.RateBurst, "rate-burst", "EARSHOT_RATE_BURST", 100, "requests per project at once, across every endpoint and listener"},
		{&c.LLMContext, "llm-context", "EARSHOT_LLM_CONTEXT", 4096, "the chat model's context in tokens (llama-server -c, Ollama num_ctx); LeMUR cuts longer inputs into parts"},
	}
	for _, i := range ints {
		def := i.def
		if v := env(i.env, ""); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%s: must be a non-negative integer, got %q", i.env, v)
			}
			def = n
		}
		fs.IntVar(i.p, i.name, def, i.help+" ("+i.env+")")
	}
	maxUpload := int64(transcribe.DefaultMaxMediaBytes)
	if v := env("EARSHOT_MAX_UPLOAD_BYTES", ""); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("EARSHOT_MAX_UPLOAD_BYTES: must be a positive integer, got %q", v)
		}
		maxUpload = n
	}
	fs.Int64Var(&c.MaxUpload, "max-upload-bytes", maxUpload, "upload and download size cap (EARSHOT_MAX_UPLOAD_BYTES)")
	durs := []struct {
		p    *time.Duration
		name string
		env  string
		def  time.Duration
		help string
	}{
		{&c.MaxDuration, "max-duration", "EARSHOT_MAX_DURATION", 10 * time.Hour, "media duration cap"},
		{&c.Retention, "retention", "EARSHOT_RETENTION", 90 * 24 * time.Hour, "how long transcripts stay in the list"},
		{&c.UploadTTL, "upload-ttl", "EARSHOT_UPLOAD_TTL", 24 * time.Hour, "uploads not used by a transcript within this time are deleted"},
		{&c.JobLease, "job-lease", "EARSHOT_JOB_LEASE", 30 * time.Second, "how long a job stays with a worker without a heartbeat"},
		{&c.StoreTimeout, "store-timeout", "EARSHOT_STORE_TIMEOUT", httpapi.DefaultStoreTimeout, "how long a request may wait for the database and blob store before it is answered 503"},
		{&c.WebhookRetry, "webhook-retry-interval", "EARSHOT_WEBHOOK_RETRY_INTERVAL", 10 * time.Second, "pause between webhook retries"},
		{&c.OutageWindow, "engine-outage-window", "EARSHOT_ENGINE_OUTAGE_WINDOW", transcribe.DefaultOutageWindow, "how long a job waits for a speech engine or blob store that is down before it ends in error"},
	}
	for _, d := range durs {
		def := d.def
		if v := env(d.env, ""); v != "" {
			x, err := time.ParseDuration(v)
			if err != nil || x <= 0 {
				return nil, fmt.Errorf("%s: must be a positive duration such as 90m, got %q", d.env, v)
			}
			def = x
		}
		fs.DurationVar(d.p, d.name, def, d.help+" ("+d.env+")")
	}
	for _, b := range []struct {
		p               *bool
		env, name, help string
		def             bool
	}{
		{&c.AllowPrivate, "EARSHOT_ALLOW_PRIVATE_URLS", "allow-private-urls", "allow audio_url/webhook_url on private networks", false},
		{&c.InProcessEngine, "EARSHOT_ENGINE_IN_PROCESS", "engine-in-process", "run pocketsphinx in the server process, not in supervised worker processes", false},
		{&c.S3CreateBucket, "EARSHOT_S3_CREATE_BUCKET", "s3-create-bucket", "create the S3 bucket when missing", false},
		{&c.PunctuationModel, "EARSHOT_PUNCTUATION_MODEL", "punctuation-model", "punctuate and case engines that give no punctuation with the learned model; false: the pause rules alone", true},
		{&c.StreamSinglePass, "EARSHOT_STREAM_SINGLE_PASS", "stream-single-pass", "streaming sessions run only pocketsphinx's first search: finals two to four times sooner, a few more word errors", false},
	} {
		def := b.def
		if v := env(b.env, ""); v != "" {
			x, err := strconv.ParseBool(v)
			if err != nil {
				return nil, fmt.Errorf("%s: must be true or false, got %q", b.env, v)
			}
			def = x
		}
		fs.BoolVar(b.p, b.name, def, b.help+" ("+b.env+")")
	}
	rl := 50.0
	if v := env("EARSHOT_RATE_LIMIT", ""); v != "" {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, fmt.Errorf("EARSHOT_RATE_LIMIT: must be a number, got %q", v)
		}
		rl = x
	}
	fs.Float64Var(&c.RateLimit, "rate-limit", rl, "requests per second per project, across every endpoint and listener; negative disables (EARSHOT_RATE_LIMIT)")
	for _, f := range []struct {
		p         *float64
		name, env string
		def       float64
		help      string
		check     func(float64) bool
		want      string
	}{
		{&c.AuthFailures, "auth-failure-rate", "EARSHOT_AUTH_FAILURE_RATE", 5, "failed authentications per second per client address (burst 10 times that); negative disables",
			func(x float64) bool { return x != 0 && !math.IsNaN(x) && !math.IsInf(x, 0) }, "a non-zero number"},
		{&c.RealtimeShare, "realtime-project-share", "EARSHOT_REALTIME_PROJECT_SHARE", 0, "largest share (0 to 1) of the streaming sessions this server carries that one project may hold; default 0.5 when EARSHOT_API_KEYS names several projects, 1 with one",
			func(x float64) bool { return x > 0 && x <= 1 }, "a number above 0 and at most 1"},
	} {
		def := f.def
		if v := env(f.env, ""); v != "" {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil || !f.check(x) {
				return nil, fmt.Errorf("%s: must be %s, got %q", f.env, f.want, v)
			}
			def = x
		}
		fs.Float64Var(f.p, f.name, def, f.help+" ("+f.env+")")
	}
	// Errors are returned, not printed (the caller words them); -h prints
	// the flags to standard output and returns flag.ErrHelp.
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(os.Stdout)
			fmt.Fprintln(os.Stdout, "Usage: earshot server [flags]; every flag also reads the EARSHOT_* variable it names.")
			fs.PrintDefaults()
		}
		return nil, err
	}
	if _, err := httpguard.ParseTrustedProxies(c.TrustedProxies); err != nil {
		return nil, fmt.Errorf("EARSHOT_TRUSTED_PROXIES: %w", err)
	}
	if c.RealtimeShare < 0 || c.RealtimeShare > 1 {
		return nil, fmt.Errorf("EARSHOT_REALTIME_PROJECT_SHARE: must be above 0 and at most 1, got %v", c.RealtimeShare)
	}
	if c.JobLease < time.Second {
		return nil, fmt.Errorf("EARSHOT_JOB_LEASE: must be at least 1s, got %v", c.JobLease)
	}
	switch c.Engine {
	case "pocketsphinx":
	case "whispercpp":
		if c.WhisperCppURL == "" {
			return nil, errors.New("EARSHOT_ENGINE=whispercpp needs EARSHOT_WHISPERCPP_URL")
		}
	case "openai":
		if c.OpenAIURL == "" {
			return nil, errors.New("EARSHOT_ENGINE=openai needs EARSHOT_OPENAI_URL")
		}
	default:
		return nil, fmt.Errorf("EARSHOT_ENGINE: %q is not pocketsphinx, whispercpp or openai", c.Engine)
	}
	if (c.LLMURL == "") != (c.LLMModel == "") {
		return nil, errors.New("EARSHOT_LLM_URL and EARSHOT_LLM_MODEL must be set together")
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return nil, errors.New("EARSHOT_TLS_CERT and EARSHOT_TLS_KEY must be set together")
	}
	if err := c.checkStorage(); err != nil {
		return nil, err
	}
	return c, nil
}

// checkStorage checks the database, S3 and EU settings together.
func (c *Config) checkStorage() error {
	if (c.S3Endpoint == "") != (c.S3Bucket == "") {
		return errors.New("EARSHOT_S3_ENDPOINT and EARSHOT_S3_BUCKET must be set together")
	}
	if c.S3Endpoint == "" {
		for _, v := range []struct{ name, val string }{{"EARSHOT_S3_PREFIX", c.S3Prefix}, {"EARSHOT_S3_ACCESS_KEY", c.S3AccessKey},
			{"EARSHOT_S3_SECRET_KEY", c.S3SecretKey}, {"EARSHOT_EU_S3_BUCKET", c.EUS3Bucket}, {"EARSHOT_EU_S3_PREFIX", c.EUS3Prefix}} {
			if v.val != "" {
				return fmt.Errorf("%s is set but EARSHOT_S3_ENDPOINT and EARSHOT_S3_BUCKET are not", v.name)
			}
		}
	}
	if (c.S3AccessKey == "") != (c.S3SecretKey == "") {
		return errors.New("EARSHOT_S3_ACCESS_KEY and EARSHOT_S3_SECRET_KEY must be set together")
	}
	if c.DatabaseURL != "" {
		// Every process must seal and read with the same key and accept
		// the same API keys; generated ones would differ per process.
		if c.EncryptionKey == "" {
			return errors.New("EARSHOT_DATABASE_URL needs EARSHOT_ENCRYPTION_KEY: every process sharing the database must use the same content key (generate one with: openssl rand -hex 32), and a generated one would differ per process")
		}
		if c.APIKeys == "" {
			return errors.New("EARSHOT_DATABASE_URL needs EARSHOT_API_KEYS: every process sharing the database must accept the same keys, and a generated development key would differ per process")
		}
	}
	if c.EUAddr == "" {
		if c.EUPublicURL != "" || c.EUS3Bucket != "" || c.EUS3Prefix != "" {
			return errors.New("EARSHOT_EU_PUBLIC_URL, EARSHOT_EU_S3_BUCKET and EARSHOT_EU_S3_PREFIX need EARSHOT_EU_ADDR (the EU region's listener)")
		}
		return nil
	}
	if c.EUAddr == c.Addr {
		return fmt.Errorf("EARSHOT_EU_ADDR %s is EARSHOT_ADDR: the EU region needs a listener of its own (the Go SDK drops path prefixes)", c.EUAddr)
	}
	if c.DatabaseURL != "" && c.EUDatabaseSchema == c.DatabaseSchema {
		return fmt.Errorf("EARSHOT_EU_DATABASE_SCHEMA %q is EARSHOT_DATABASE_SCHEMA: the EU region needs a schema of its own", c.EUDatabaseSchema)
	}
	if c.S3Endpoint != "" {
		if c.EUS3Bucket == "" {
			c.EUS3Bucket = c.S3Bucket
		}
		if c.EUS3Prefix == "" {
			c.EUS3Prefix = normPrefix(c.S3Prefix) + "eu/"
		}
		if c.EUS3Bucket == c.S3Bucket && normPrefix(c.EUS3Prefix) == normPrefix(c.S3Prefix) {
			return fmt.Errorf("EARSHOT_EU_S3_PREFIX %q in bucket %s is the main region's: the EU region needs a prefix (or bucket) of its own", c.EUS3Prefix, c.EUS3Bucket)
		}
	}
	return nil
}

// normPrefix ends a non-empty key prefix with "/", as storage/s3 does.
func normPrefix(p string) string {
	if p != "" && !strings.HasSuffix(p, "/") {
		return p + "/"
	}
	return p
}

// parseKeys parses "key:project,key:project".
func parseKeys(s string) (map[string]string, error) {
	keys := map[string]string{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, p, ok := strings.Cut(part, ":")
		k, p = strings.TrimSpace(k), strings.TrimSpace(p)
		if !ok || k == "" || p == "" {
			return nil, fmt.Errorf("EARSHOT_API_KEYS: %q is not key:project", part)
		}
		keys[k] = p
	}
	if len(keys) == 0 {
		return nil, errors.New("EARSHOT_API_KEYS: no keys")
	}
	for k := range keys {
		if len(k) < MinKeyLength {
			return nil, fmt.Errorf("EARSHOT_API_KEYS: a key of %d characters is too short to be secret; use at least %d (for example: openssl rand -hex 24)", len(k), MinKeyLength)
		}
	}
	return keys, nil
}

// MinKeyLength is the shortest API key the server accepts.
const MinKeyLength = 16

// loadOrCreate reads a secret file from the data directory, creating it
// with mode 0600 from gen() on first use.
func loadOrCreate(path string, gen func() string) (value string, created bool, err error) {
	b, err := os.ReadFile(path)
	if err == nil {
		return strings.TrimSpace(string(b)), false, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", false, err
	}
	v := gen()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", false, err
	}
	if _, err := f.WriteString(v + "\n"); err != nil {
		f.Close()
		return "", false, err
	}
	return v, true, f.Close()
}

// contentKey returns the AES key from configuration or the data directory.
func contentKey(c *Config) ([]byte, error) {
	raw := c.EncryptionKey
	if raw == "" {
		keyPath := filepath.Join(c.Data, "encryption.key")
		if _, err := os.Stat(keyPath); errors.Is(err, os.ErrNotExist) {
			if _, err := os.Stat(filepath.Join(c.Data, "earshot.db")); err == nil {
				return nil, fmt.Errorf("%s is missing but the database exists: its transcripts cannot be read without the key; restore the file or set EARSHOT_ENCRYPTION_KEY", keyPath)
			}
		}
		v, _, err := loadOrCreate(keyPath, func() string { return hex.EncodeToString(transcribe.NewKey()) })
		if err != nil {
			return nil, fmt.Errorf("encryption key: %w", err)
		}
		raw = v
	}
	if b, err := hex.DecodeString(raw); err == nil && len(b) == transcribe.KeySize {
		return b, nil
	}
	if b, err := base64.StdEncoding.DecodeString(raw); err == nil && len(b) == transcribe.KeySize {
		return b, nil
	}
	return nil, fmt.Errorf("encryption key must be %d bytes as 64 hex characters or base64", transcribe.KeySize)
}

// apiKeys returns the key→project map: EARSHOT_API_KEYS, or a development
// key kept in the data directory.
func apiKeys(c *Config) (keys map[string]string, devKey string, err error) {
	if c.APIKeys != "" {
		k, err := parseKeys(c.APIKeys)
		return k, "", err
	}
	v, _, err := loadOrCreate(filepath.Join(c.Data, "dev-api-key"), func() string {
		b := make([]byte, 24)
		rand.Read(b)
		return "dev_" + hex.EncodeToString(b)
	})
	if err != nil {
		return nil, "", fmt.Errorf("development API key: %w", err)
	}
	return map[string]string{v: "default"}, v, nil
}
