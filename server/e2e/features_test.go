package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"

	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/media"
)

// submitFile uploads path and submits it with params, then waits.
func submitFile(t *testing.T, ctx context.Context, c *aai.Client, path string, params *aai.TranscriptOptionalParams) aai.Transcript {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	u, err := c.Upload(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := c.Transcripts.SubmitFromURL(ctx, u, params)
	if err != nil {
		t.Fatalf("submit: %v", err)
	}
	tr, err = c.Transcripts.Wait(ctx, *tr.ID)
	if err != nil {
		t.Fatalf("wait: %v", err)
	}
	if tr.Status != "completed" {
		t.Fatalf("status %s: %s", tr.Status, deref(tr.Error))
	}
	return tr
}

// TestWebhooks: a local receiver sees the webhook with its query parameters
// and auth header, the retry after it answered 500, and webhook_status_code
// shows the final code; a webhook at a closed port is tried once.
func TestWebhooks(t *testing.T) {
	wav := testaudio.Speech(t, "slt", "please call me back tomorrow")
	type hit struct {
		query, auth, ctype string
		body               map[string]any
		at                 time.Time
	}
	var mu sync.Mutex
	var hits []hit
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		hits = append(hits, hit{r.URL.RawQuery, r.Header.Get("X-Hook-Secret"), r.Header.Get("Content-Type"), body, time.Now()})
		n := len(hits)
		mu.Unlock()
		if n == 1 {
			w.WriteHeader(500)
			return
		}
		w.WriteHeader(200)
	}))
	defer recv.Close()
	s := startServer(t, t.TempDir(), freeAddr(t), "EARSHOT_API_KEYS="+keyK+":p", "EARSHOT_WEBHOOK_RETRY_INTERVAL=1s")
	c := client(s, keyK)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tr := submitFile(t, ctx, c, wav, &aai.TranscriptOptionalParams{
		WebhookURL: aai.String(recv.URL + "/hook?customer=42&tag=a%20b"), WebhookAuthHeaderName: aai.String("X-Hook-Secret"),
		WebhookAuthHeaderValue: aai.String("s3cret"),
	})
	if tr.WebhookAuth == nil || !*tr.WebhookAuth {
		t.Error("webhook_auth not true")
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, _ := c.Transcripts.Get(ctx, *tr.ID)
		mu.Lock()
		n := len(hits)
		mu.Unlock()
		if n >= 2 && got.WebhookStatusCode != nil && *got.WebhookStatusCode == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("webhook: %d hits, status code %v", n, got.WebhookStatusCode)
		}
		time.Sleep(100 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, h := range hits {
		if h.query != "customer=42&tag=a%20b" || h.auth != "s3cret" || h.ctype != "application/json" ||
			h.body["transcript_id"] != *tr.ID || h.body["status"] != "completed" {
			t.Errorf("webhook request %+v", h)
		}
	}
	if gap := hits[1].at.Sub(hits[0].at); gap < 900*time.Millisecond {
		t.Errorf("retry came after %v, want the 1 s interval", gap)
	}
	if len(hits) != 2 {
		t.Errorf("%d deliveries, want 2 (500 then 200)", len(hits))
	}
	// The header value is never echoed.
	raw, _ := http.NewRequest("GET", s.URL+"/v2/transcript/"+*tr.ID, nil)
	raw.Header.Set("Authorization", keyK)
	res, err := http.DefaultClient.Do(raw)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if strings.Contains(string(b), "s3cret") {
		t.Error("webhook_auth_header_value echoed")
	}

	// A closed port: one attempt, no retries, no status code.
	closed := freeAddr(t)
	tr2 := submitFile(t, ctx, c, wav, &aai.TranscriptOptionalParams{WebhookURL: aai.String("http://" + closed + "/hook")})
	time.Sleep(3 * time.Second) // three retry intervals
	got, _ := c.Transcripts.Get(ctx, *tr2.ID)
	if got.WebhookStatusCode != nil {
		t.Errorf("unreachable webhook recorded status %d", *got.WebhookStatusCode)
	}
	// (That an unreachable URL is tried exactly once is counted in the
	// webhook package's tests, where the dialer is observable.)
}

// TestAudioURLRefused: private and metadata addresses are refused by default.
func TestAudioURLRefused(t *testing.T) {
	addr := freeAddr(t)
	srv := startServerEnv(t, t.TempDir(), addr, false, "EARSHOT_API_KEYS="+keyK+":p")
	c := client(srv, keyK)
	ctx := context.Background()
	for _, u := range []string{"http://169.254.169.254/latest/meta-data/", "http://127.0.0.1:22/", "http://[::1]/a.wav", "http://10.0.0.1/a.wav"} {
		_, err := c.Transcripts.SubmitFromURL(ctx, u, nil)
		var apiErr aai.APIError
		if !asAPIError(err, &apiErr) || apiErr.Status != 400 || !strings.Contains(apiErr.Message, "audio_url") {
			t.Errorf("%s: want 400 naming audio_url, got %v", u, err)
		}
	}
	// A host name that resolves to loopback passes the literal check but is
	// refused when connecting: the transcript ends in error with a reason.
	tr, err := c.Transcripts.SubmitFromURL(ctx, "http://localhost."+":1/a.wav", nil)
	if err == nil {
		tr, _ = c.Transcripts.Wait(ctx, *tr.ID)
		if tr.Status != "error" || !strings.Contains(deref(tr.Error), "audio_url") {
			t.Errorf("resolved loopback: status %s error %q", tr.Status, deref(tr.Error))
		}
	}
}

func asAPIError(err error, target *aai.APIError) bool {
	if e, ok := err.(aai.APIError); ok {
		*target = e
		return true
	}
	return false
}

// TestPIIRedactionEndToEnd is the scenario through the Go SDK.
func TestPIIRedactionEndToEnd(t *testing.T) {
	wav := testaudio.Speech(t, "slt", "hi my name is sarah johnson and my number is five five five one two three four")
	s := startServer(t, t.TempDir(), freeAddr(t), "EARSHOT_API_KEYS="+keyK+":p")
	c := client(s, keyK)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tr := submitFile(t, ctx, c, wav, &aai.TranscriptOptionalParams{
		RedactPII: aai.Bool(true), RedactPIIAudio: aai.Bool(true),
		RedactPIIPolicies: []aai.PIIPolicy{"person_name", "phone_number"},
	})
	text := deref(tr.Text)
	low := strings.ToLower(text)
	if strings.Contains(low, "sarah") || strings.Contains(low, "johnson") || strings.Contains(text, "555") || !strings.Contains(text, "#") {
		t.Fatalf("text not redacted: %q", text)
	}
	srt, _ := c.Transcripts.GetSubtitles(ctx, *tr.ID, "srt", nil)
	vtt, _ := c.Transcripts.GetSubtitles(ctx, *tr.ID, "vtt", nil)
	sents, _ := c.Transcripts.GetSentences(ctx, *tr.ID)
	paras, _ := c.Transcripts.GetParagraphs(ctx, *tr.ID)
	// The texts of sentences and paragraphs and of their words: the JSON
	// around them holds confidences whose digits may contain "555".
	var sj, pj []string
	for _, x := range sents.Sentences {
		sj = append(sj, deref(x.Text))
		for _, w := range x.Words {
			sj = append(sj, deref(w.Text))
		}
	}
	for _, x := range paras.Paragraphs {
		pj = append(pj, deref(x.Text))
		for _, w := range x.Words {
			pj = append(pj, deref(w.Text))
		}
	}
	if len(sj) == 0 || len(pj) == 0 {
		t.Fatalf("no sentences (%d) or paragraphs (%d)", len(sj), len(pj))
	}
	for name, out := range map[string]string{"srt": string(srt), "vtt": string(vtt), "sentences": strings.Join(sj, "\n"), "paragraphs": strings.Join(pj, "\n")} {
		l := strings.ToLower(out)
		if strings.Contains(l, "sarah") || strings.Contains(l, "johnson") || strings.Contains(out, "555") {
			t.Errorf("%s leaks PII: %s", name, out)
		}
	}
	ws, err := c.Transcripts.WordSearch(ctx, *tr.ID, []string{"sarah", "johnson"})
	if err != nil || deref(ws.TotalCount) != 0 {
		t.Errorf("word search finds redacted words: %v %+v", err, ws)
	}
	ra, err := c.Transcripts.GetRedactedAudio(ctx, *tr.ID)
	if err != nil || string(ra.Status) != "redacted_audio_ready" || deref(ra.RedactedAudioURL) == "" {
		t.Fatalf("redacted audio: %v %+v", err, ra)
	}
	res, err := http.Get(*ra.RedactedAudioURL) // no API key
	if err != nil {
		t.Fatal(err)
	}
	audio, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || len(audio) < 1000 {
		t.Fatalf("download: %d, %d bytes", res.StatusCode, len(audio))
	}
	path := filepath.Join(t.TempDir(), "redacted.mp3")
	os.WriteFile(path, audio, 0o600)
	dec, _ := media.NewDecoder(media.Config{})
	pcm, err := dec.Decode(ctx, path, 16000, false)
	if err != nil {
		t.Fatalf("decoding redacted audio: %v", err)
	}
	// A 1 kHz tone dominates where the redacted words were, and not elsewhere.
	var inTone, outTone []float64
	for _, w := range tr.Words {
		r := toneRatio(pcm, *w.Start, *w.End)
		if strings.Contains(deref(w.Text), "#") {
			inTone = append(inTone, r)
		} else {
			outTone = append(outTone, r)
		}
	}
	if len(inTone) < 3 {
		t.Fatalf("only %d redacted words: %q", len(inTone), text)
	}
	for i, r := range inTone {
		if r < 0.5 {
			t.Errorf("redacted word %d: 1 kHz share %.2f, want a tone", i, r)
		}
	}
	for i, r := range outTone {
		if r > 0.5 {
			t.Errorf("kept word %d: 1 kHz share %.2f, looks like a tone", i, r)
		}
	}
}

// toneRatio is the share of the signal's energy at 1 kHz in [start, end) ms.
func toneRatio(p *transcribe.PCM, start, end int64) float64 {
	x := p.Channels[0]
	lo, hi := int(start*16), int(end*16)
	hi = min(hi, len(x))
	if hi-lo < 160 {
		return 0
	}
	var re, im, total float64
	for i := lo; i < hi; i++ {
		v := float64(x[i])
		a := 2 * math.Pi * 1000 * float64(i) / 16000
		re += v * math.Cos(a)
		im += v * math.Sin(a)
		total += v * v
	}
	n := float64(hi - lo)
	if total == 0 {
		return 0
	}
	return 2 * (re*re + im*im) / n / total
}

// TestSpeakersAndChannels: a two-speaker flite conversation comes back with
// utterances alternating A/B at the true turns; a stereo file with one
// speaker per channel comes back with every word on its channel.
func TestSpeakersAndChannels(t *testing.T) {
	turns := []struct{ voice, text, key string }{
		{"slt", "good morning and welcome to the weekly planning meeting where we will review the budget and the schedule for the coming quarter", "morning"},
		{"rms", "thank you i have prepared the numbers for the hardware purchases and the travel expenses of the whole team", "hardware"},
		{"slt", "that sounds good please walk us through the largest items first so that we can decide quickly", "largest"},
		{"rms", "the biggest item is the new server room which needs cooling power and a lot of network equipment", "server"},
	}
	var parts []string
	for _, tu := range turns {
		parts = append(parts, testaudio.Speech(t, tu.voice, tu.text))
	}
	silence := testaudio.SoxEffects(t, "wav", []string{"-n", "-r", "16000", "-c", "1", "-b", "16"}, "trim", "0", "0.6")
	var args []string
	for i, p := range parts {
		if i > 0 {
			args = append(args, silence)
		}
		args = append(args, p)
	}
	convo := testaudio.Sox(t, "wav", args...)

	s := startServer(t, t.TempDir(), freeAddr(t), "EARSHOT_API_KEYS="+keyK+":p")
	c := client(s, keyK)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tr := submitFile(t, ctx, c, convo, &aai.TranscriptOptionalParams{SpeakerLabels: aai.Bool(true)})
	var seq []string
	for _, u := range tr.Utterances {
		seq = append(seq, deref(u.Speaker))
	}
	if strings.Join(seq, ",") != "A,B,A,B" {
		for _, u := range tr.Utterances {
			t.Logf("%s [%d-%d] %s", deref(u.Speaker), deref(u.Start), deref(u.End), deref(u.Text))
		}
		t.Fatalf("utterance speakers %v, want A,B,A,B", seq)
	}
	for i, u := range tr.Utterances {
		if !strings.Contains(strings.ToLower(deref(u.Text)), turns[i].key) {
			t.Errorf("utterance %d %q lacks %q", i, deref(u.Text), turns[i].key)
		}
	}
	for _, w := range tr.Words {
		if w.Speaker == nil {
			t.Fatal("word without speaker")
		}
	}

	// Stereo: speaker 1 on the left while the right is silent, then the reverse.
	l1 := parts[0]
	r1 := parts[1]
	pad := func(p string, before float64) string {
		return testaudio.SoxEffects(t, "wav", []string{p}, "pad", fmt.Sprint(before), "0")
	}
	d0 := durationOf(t, l1)
	rightPadded := pad(r1, d0+0.5)
	stereo := testaudio.Sox(t, "wav", "-M", l1, rightPadded)
	tr = submitFile(t, ctx, c, stereo, &aai.TranscriptOptionalParams{DualChannel: aai.Bool(true)})
	boundary := int64((d0 + 0.25) * 1000)
	if len(tr.Words) < 10 {
		t.Fatalf("only %d words", len(tr.Words))
	}
	for _, w := range tr.Words {
		want := "1"
		if *w.Start > boundary {
			want = "2"
		}
		if deref(w.Channel) != want {
			t.Errorf("word %q at %d ms on channel %q, want %s", deref(w.Text), *w.Start, deref(w.Channel), want)
		}
	}
	if len(tr.Utterances) != 2 || deref(tr.Utterances[0].Channel) != "1" || deref(tr.Utterances[1].Channel) != "2" {
		t.Errorf("dual-channel utterances: %d", len(tr.Utterances))
	}
	if _, err := c.Transcripts.SubmitFromURL(ctx, "https://example.com/a.wav", &aai.TranscriptOptionalParams{DualChannel: aai.Bool(true), SpeakerLabels: aai.Bool(true)}); err == nil {
		t.Error("dual_channel with speaker_labels accepted")
	}
}

func durationOf(t *testing.T, wav string) float64 {
	st, err := os.Stat(wav)
	if err != nil {
		t.Fatal(err)
	}
	return float64(st.Size()-44) / 32000
}

// startServerEnv is startServer with the private-URL check configurable.
func startServerEnv(t *testing.T, data, addr string, allowPrivate bool, extraEnv ...string) *server {
	return startServer(t, data, addr, append(extraEnv, fmt.Sprintf("EARSHOT_ALLOW_PRIVATE_URLS=%v", allowPrivate))...)
}
