// Package examples holds runnable programs: examples/server is the reference
// server configured by environment variables.
package examples
