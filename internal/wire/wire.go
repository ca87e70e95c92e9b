// Package wire holds the small pieces of the AssemblyAI wire form that the
// REST API (httpapi) and the realtime API (realtime) both write: the
// timestamp layout and JSON responses. One copy of each, here, so the two
// cannot drift apart.
package wire

import (
	"encoding/json"
	"net/http"
	"time"
)

// TimeLayout formats timestamps as the real service does: UTC, microsecond
// precision, no zone (2022-11-04T14:14:36.994363). The JS SDK passes them
// to new Date.
const TimeLayout = "2006-01-02T15:04:05.000000"

// Time formats t in TimeLayout, in UTC.
func Time(t time.Time) string { return t.UTC().Format(TimeLayout) }

// WriteJSON writes v with status and Content-Type application/json, as the
// official SDKs require on every JSON response, errors included. A value
// that cannot be encoded becomes a 500 {"error":"Internal server error"}.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":"Internal server error"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
