package console

// The live page's checks of TestBrowser: the Universal-Streaming (v3)
// session as Chromium saw it, and the audio it sent.

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// liveTurn is a Turn message the live page received.
type liveTurn struct {
	Order      int     `json:"order"`
	End        bool    `json:"end"`
	Formatted  bool    `json:"formatted"`
	Transcript string  `json:"transcript"`
	Words      int     `json:"words"`
	Final      int     `json:"final"` // words with word_is_final
	Confidence float64 `json:"confidence"`
}

// checkLiveFrames: the Universal-Streaming (v3) session as Chromium saw
// it. One GET /v3/token with the key in the authorization header; a
// temporary token in the WebSocket URL (never the key), /v3/ws at 16 kHz
// pcm_s16le with format_turns; binary PCM16 frames of 100 ms (3200 bytes)
// but for a shorter last one, then Terminate; messages from Begin through
// Turns (open ones with words, ended ones all final, formatted copies) to
// Termination.
func checkLiveFrames(t *testing.T, r e2eReport, key string) {
	t.Helper()
	tr := r.WS.TokenRequests
	if len(tr) != 1 || tr[0].Method != "GET" || tr[0].Path != "/v3/token?expires_in_seconds=60" || !tr[0].HasKey {
		t.Errorf("token requests %+v, want one GET /v3/token?expires_in_seconds=60 with the key", tr)
	}
	u, err := url.Parse(r.WS.URL)
	if err != nil {
		t.Fatalf("WebSocket URL %q: %v", r.WS.URL, err)
	}
	q := u.Query()
	if u.Path != "/v3/ws" || q.Get("sample_rate") != "16000" || q.Get("encoding") != "pcm_s16le" || q.Get("format_turns") != "true" ||
		len(q.Get("token")) < 32 || strings.Contains(r.WS.URL, key) {
		t.Errorf("WebSocket URL %q: want /v3/ws with sample_rate=16000, encoding=pcm_s16le, format_turns=true and a token, without the key", r.WS.URL)
	}
	var sizes []int
	var texts []string
	for _, f := range r.WS.Sent {
		var n int
		if json.Unmarshal(f, &n) == nil {
			if len(texts) > 0 {
				t.Errorf("audio frame sent after %v", texts)
			}
			sizes = append(sizes, n)
			continue
		}
		var s string
		_ = json.Unmarshal(f, &s)
		texts = append(texts, s)
	}
	if len(sizes) < 10 {
		t.Fatalf("%d audio frames sent", len(sizes))
	}
	for i, n := range sizes {
		if n != 3200 && !(i == len(sizes)-1 && n > 0 && n < 3200 && n%2 == 0) {
			t.Errorf("audio frame %d is %d bytes, want 3200 (100 ms of 16 kHz PCM16)", i, n)
		}
	}
	if !slices.Equal(texts, []string{`{"type":"Terminate"}`}) {
		t.Errorf("text frames sent %q, want only Terminate", texts)
	}
	rc := r.WS.Received
	if len(rc) < 3 || rc[0] != "Begin" || rc[len(rc)-1] != "Termination" || !r.WS.Closed {
		t.Errorf("messages received %v (closed %v), want Begin first and Termination last", rc, r.WS.Closed)
	}
	var open, ended, formatted int
	for _, tu := range r.WS.Turns {
		switch {
		case !tu.End && tu.Words > 0:
			open++
		case tu.End && !tu.Formatted && tu.Words > 0 && tu.Final == tu.Words:
			ended++
		case tu.End && tu.Formatted && tu.Words > 0:
			formatted++
		}
	}
	if open == 0 || ended == 0 || formatted == 0 {
		t.Errorf("turns %+v: want open turns with words, an ended turn with every word final and its formatted copy", r.WS.Turns)
	}
	t.Logf("live: %d audio frames (%.1f s) sent; %d open, %d ended, %d formatted turns", len(sizes), float64(len(sizes))*0.1, open, ended, formatted)
}

const liveText = "the quick brown fox jumps over the lazy dog"

// wordOverlap is the fraction of the words of want found in got (as
// realtime/speech_test.go measures it).
func wordOverlap(want, got string) float64 {
	norm := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r == '\'') })
	}
	have := map[string]int{}
	for _, w := range norm(got) {
		have[w]++
	}
	ws := norm(want)
	n := 0
	for _, w := range ws {
		if have[w] > 0 {
			have[w]--
			n++
		}
	}
	return float64(n) / float64(len(ws))
}

// checkLiveAudio compares the PCM the page sent with the WAV Chromium's
// fake microphone looped: the 10 ms energy envelopes must correlate at
// the best alignment (the right samples at the right rate and byte
// order, in order, without gaps) and the level must be the file's (no
// gain control on the way).
func checkLiveAudio(t *testing.T, pcm []byte, wav string) {
	t.Helper()
	orig, rate, err := transcribetest.ReadWAV16(wav)
	if err != nil || rate != 16000 {
		t.Fatalf("%s: %v (rate %d)", wav, err, rate)
	}
	recv := make([]float64, len(pcm)/2)
	for i := range recv {
		recv[i] = float64(int16(binary.LittleEndian.Uint16(pcm[2*i:])))
	}
	const hop = 160
	frames := len(recv) / hop
	if frames < 200 {
		t.Fatalf("only %d ms of audio sent", frames*10)
	}
	env := func(get func(i int) float64) []float64 {
		e := make([]float64, frames)
		for f := range e {
			var sum float64
			for i := f * hop; i < (f+1)*hop; i++ {
				v := get(i)
				sum += v * v
			}
			e[f] = math.Sqrt(sum / hop)
		}
		return e
	}
	rEnv := env(func(i int) float64 { return recv[i] })
	// The loop: prefix sums of the squared original, repeated.
	n := len(orig)
	prefix := make([]float64, frames*hop+n+1)
	for i := 1; i < len(prefix); i++ {
		v := float64(orig[(i-1)%n])
		prefix[i] = prefix[i-1] + v*v
	}
	bestCorr, bestLag := -1.0, 0
	var bestEnv []float64
	for lag := 0; lag < n; lag += hop / 4 {
		e := make([]float64, frames)
		for f := range e {
			a := lag + f*hop
			e[f] = math.Sqrt((prefix[a+hop] - prefix[a]) / hop)
		}
		if c := pearson(rEnv, e); c > bestCorr {
			bestCorr, bestLag, bestEnv = c, lag, e
		}
	}
	var rs, os float64
	for f := range rEnv {
		rs += rEnv[f] * rEnv[f]
		os += bestEnv[f] * bestEnv[f]
	}
	gain := 10 * math.Log10(rs/os)
	t.Logf("live audio: %.1f s sent; envelope correlation with the looped file %.3f at offset %d ms; level %+.1f dB", float64(len(recv))/16000, bestCorr, bestLag/16, gain)
	if bestCorr < 0.9 {
		t.Errorf("the audio sent is not the fake microphone's file: envelope correlation %.3f", bestCorr)
	}
	if math.Abs(gain) > 3 {
		t.Errorf("the audio sent is %.1f dB off the file's level", gain)
	}
}

func pearson(a, b []float64) float64 {
	var ma, mb float64
	for i := range a {
		ma += a[i]
		mb += b[i]
	}
	ma /= float64(len(a))
	mb /= float64(len(b))
	var sab, saa, sbb float64
	for i := range a {
		sab += (a[i] - ma) * (b[i] - mb)
		saa += (a[i] - ma) * (a[i] - ma)
		sbb += (b[i] - mb) * (b[i] - mb)
	}
	if saa == 0 || sbb == 0 {
		return 0
	}
	return sab / math.Sqrt(saa*sbb)
}
