package metrics_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/earshot-dev/earshot/adapters/enginepool/pooltest"
	"github.com/earshot-dev/earshot/adapters/whispercpp"
	"github.com/earshot-dev/earshot/server/metrics"
	"github.com/earshot-dev/earshot/transcribe"
)

// Each server of a whisper.cpp pool has its series: requests in flight,
// requests by outcome, up; a killed server is counted unavailable and
// down, the request it held goes to the other.
func TestEngineServers(t *testing.T) {
	t.Parallel()
	a, b := pooltest.New(t, 300*time.Millisecond), pooltest.New(t, 10*time.Millisecond)
	m := metrics.New(metrics.Config{Logger: quiet})
	rec, err := whispercpp.New(whispercpp.Config{URLs: []string{a.URL, b.URL}, OnServer: m.EngineServers("whispercpp")})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	audio := make([]int16, 16000)
	for i := range audio {
		audio[i] = int16(6000 - 12000*((i/20)%2))
	}
	done := make(chan error)
	go func() {
		_, err := rec.Recognize(context.Background(), audio, transcribe.RecognizeOptions{LanguageCode: "en"})
		done <- err
	}()
	for a.InFlight() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(`
# HELP earshot_engine_server_requests_in_flight Requests a speech engine server is given now, by engine and server.
# TYPE earshot_engine_server_requests_in_flight gauge
earshot_engine_server_requests_in_flight{engine="whispercpp",server="`+a.URL+`"} 1
earshot_engine_server_requests_in_flight{engine="whispercpp",server="`+b.URL+`"} 0
`), "earshot_engine_server_requests_in_flight"); err != nil {
		t.Error(err)
	}
	a.Kill()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := func(server, outcome string) string {
		return `earshot_engine_server_requests_total{engine="whispercpp",outcome="` + outcome + `",server="` + server + `"}`
	}
	var text strings.Builder
	err = testutil.GatherAndCompare(m.Registry(), strings.NewReader(""), "earshot_engine_server_requests_total", "earshot_engine_server_up")
	text.WriteString(err.Error())
	for _, line := range []string{
		want(a.URL, "unavailable") + " 1", want(a.URL, "ok") + " 0", want(b.URL, "ok") + " 1", want(b.URL, "error") + " 0",
		`earshot_engine_server_up{engine="whispercpp",server="` + a.URL + `"} 0`,
		`earshot_engine_server_up{engine="whispercpp",server="` + b.URL + `"} 1`,
	} {
		if !strings.Contains(text.String(), line) {
			t.Errorf("no %s in\n%s", line, text.String())
		}
	}
}
