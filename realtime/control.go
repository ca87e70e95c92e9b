package realtime

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
)

// control is a parsed client text frame.
type control struct {
	audio     []byte
	threshold *int64
	force     bool
	terminate bool
}

// parseControl parses a client text frame.
func parseControl(b []byte) (control, error) {
	var c control
	b = bytes.TrimSpace(b)
	if !json.Valid(b) {
		return c, ErrBadJSON
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return c, ErrBadSchema.with("message must be a JSON object")
	}
	known := false
	if raw, ok := m["audio_data"]; ok {
		known = true
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return c, ErrBadSchema.with("audio_data must be a base64 string")
		}
		a, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			a, err = base64.RawStdEncoding.DecodeString(s)
		}
		if err != nil {
			return c, ErrBadSchema.with("audio_data is not valid base64")
		}
		c.audio = a
	}
	if raw, ok := m["end_utterance_silence_threshold"]; ok {
		known = true
		var f float64
		if err := json.Unmarshal(raw, &f); err != nil || f != math.Trunc(f) {
			return c, ErrBadSchema.with("end_utterance_silence_threshold must be an integer")
		}
		if f < 0 || f > float64(MaxSilenceThreshold.Milliseconds()) {
			return c, ErrBadSchema.with("end_utterance_silence_threshold must be between 0 and %d", MaxSilenceThreshold.Milliseconds())
		}
		v := int64(f)
		c.threshold = &v
	}
	for _, k := range []struct {
		key string
		dst *bool
	}{{"force_end_utterance", &c.force}, {"terminate_session", &c.terminate}} {
		raw, ok := m[k.key]
		if !ok {
			continue
		}
		known = true
		if err := json.Unmarshal(raw, k.dst); err != nil || bytes.Equal(raw, []byte("null")) {
			return c, ErrBadSchema.with("%s must be a boolean", k.key)
		}
	}
	if !known {
		return c, ErrBadSchema.with("message has none of audio_data, end_utterance_silence_threshold, force_end_utterance, terminate_session")
	}
	return c, nil
}
