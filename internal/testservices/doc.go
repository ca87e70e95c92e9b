// Package testservices gives tests the real servers the suite runs:
// PostgreSQL and an S3-compatible object store (versitygw).
//
// Entry points: Postgres(t) returns the URL of a fresh database created
// for the test and dropped when it ends; S3(t) returns the S3 server's
// endpoint and credentials with a fresh bucket, emptied and removed when
// the test ends. Both are safe to call from parallel tests.
//
// The servers are not started here: scripts/services.sh starts a
// throwaway PostgreSQL cluster and versitygw on loopback and prints the
// environment variables this package reads (EARSHOT_TEST_POSTGRES_URL,
// EARSHOT_TEST_S3_ENDPOINT, EARSHOT_TEST_S3_ACCESS_KEY,
// EARSHOT_TEST_S3_SECRET_KEY, EARSHOT_TEST_S3_REGION); scripts/test.sh
// does that around the whole suite. When the variables are unset a test
// that needs the service is skipped with a message saying how to run it,
// unless EARSHOT_TEST_REQUIRE_SERVICES=1 (set by scripts/test.sh, so in
// CI), where it fails instead: CI never silently skips them.
//
// StartOwn is for tests that crash and restart the servers (outage
// tests): it runs scripts/services.sh start for the test alone (its own
// cluster, crash-safe on request, and its own versitygw, in a state
// directory of their own, stopped when the test ends), and Own's
// CrashPostgres, StartPostgres, KillS3 and StartS3 stop and start them
// again on the same addresses with their data, disturbing no other test.
package testservices
