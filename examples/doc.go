// Package examples holds runnable programs: server/cmd/earshot-server is the reference
// server configured by environment variables.
package examples
