package e2e

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"
	"github.com/coder/websocket"
	"github.com/jackc/pgx/v5"

	"github.com/earshot-dev/earshot/internal/proxytest"
	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// TestClusterRegionsAndRealtime runs two server processes on one
// PostgreSQL + S3, each with the EU region on a second listener, behind
// one balancer per region, and drives both regions with the official Go
// SDK: jobs in each region, nothing crossing between them; then a
// realtime session that loses its connection to one process and resumes
// on the other, and one whose process is killed with SIGKILL (4030 until
// its lease runs out, then SessionResumed on the survivor).
func TestClusterRegionsAndRealtime(t *testing.T) {
	lbUS, lbEU := newBalancer(t), newBalancer(t)
	env := newClusterEnv(t, lbUS.URL(), "EARSHOT_WORKERS=1", "EARSHOT_EU_PUBLIC_URL="+lbEU.URL(), "EARSHOT_STREAM_DECODERS=2")
	var nodes [2]*node
	var euAddrs [2]string
	var wg sync.WaitGroup
	for i := range nodes {
		euAddrs[i] = freeAddr(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			nodes[i] = startNode(t, env, []string{"A", "B"}[i], t.TempDir(), freeAddr(t), "EARSHOT_EU_ADDR="+euAddrs[i])
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	lbUS.set(nodes[0].Addr, nodes[1].Addr)
	lbEU.set(euAddrs[0], euAddrs[1])
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	us := aai.NewClientWithOptions(aai.WithAPIKey(env.Key), aai.WithBaseURL(lbUS.URL()))
	eu := aai.NewClientWithOptions(aai.WithAPIKey(env.Key), aai.WithBaseURL(lbEU.URL()))

	t.Run("regions", func(t *testing.T) {
		wav := testaudio.Speech(t, "slt", "hello world this is a test")
		open := func() *os.File {
			f, err := os.Open(wav)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return f
		}
		// The EU region end to end through the SDK's one call.
		euTr, err := eu.Transcripts.TranscribeFromReader(ctx, open(), nil)
		if err != nil || euTr.Status != "completed" {
			t.Fatalf("EU transcript: %v %+v", err, euTr)
		}
		if text := strings.ToLower(deref(euTr.Text)); !strings.Contains(text, "hello") || !strings.Contains(text, "test") {
			t.Errorf("EU text %q", text)
		}
		euID := *euTr.ID
		if ws, err := eu.Transcripts.WordSearch(ctx, euID, []string{"hello"}); err != nil || deref(ws.TotalCount) != 1 {
			t.Errorf("EU word search: %v %+v", err, ws)
		}
		var apiErr aai.APIError
		if _, err := eu.Transcripts.GetSentences(ctx, euID); !errors.As(err, &apiErr) || apiErr.Status != 404 {
			t.Errorf("EU sentences: %v, want 404", err)
		}
		if _, err := eu.RealTime.CreateTemporaryToken(ctx, 60); !errors.As(err, &apiErr) || apiErr.Status != 404 {
			t.Errorf("EU realtime token: %v, want 404", err)
		}
		// The default region: upload on one process, submit on the other.
		upURL, err := us.Upload(ctx, open())
		if err != nil {
			t.Fatal(err)
		}
		usTr, err := us.Transcripts.SubmitFromURL(ctx, upURL, nil)
		if err != nil {
			t.Fatal(err)
		}
		if usTr, err = us.Transcripts.Wait(ctx, *usTr.ID); err != nil || usTr.Status != "completed" {
			t.Fatalf("US transcript: %v %+v", err, usTr)
		}
		if _, err := us.Transcripts.GetSentences(ctx, *usTr.ID); err != nil {
			t.Errorf("US sentences: %v", err)
		}
		// Nothing crosses.
		if _, err := us.Transcripts.Get(ctx, euID); !errors.As(err, &apiErr) || apiErr.Status != 404 {
			t.Errorf("EU id in the US region: %v, want 404", err)
		}
		if _, err := eu.Transcripts.Delete(ctx, *usTr.ID); !errors.As(err, &apiErr) || apiErr.Status != 404 {
			t.Errorf("deleting a US id in the EU region: %v, want 404", err)
		}
		usUpload, err := us.Upload(ctx, open())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := eu.Transcripts.SubmitFromURL(ctx, usUpload, nil); !errors.As(err, &apiErr) || apiErr.Status != 400 ||
			!strings.Contains(apiErr.Message, "another region") {
			t.Errorf("US upload_url in the EU region: %v, want 400", err)
		}
		for _, c := range []struct {
			name     string
			cl       *aai.Client
			want, no string
		}{{"US", us, *usTr.ID, euID}, {"EU", eu, euID, *usTr.ID}} {
			list, err := c.cl.Transcripts.List(ctx, aai.ListTranscriptParams{})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, it := range list.Transcripts {
				ids = append(ids, deref(it.ID))
			}
			if len(ids) != 1 || ids[0] != c.want {
				t.Errorf("%s list %v, want only %s", c.name, ids, c.want)
			}
		}
		// Each region's rows in its own schema.
		db, err := pgx.Connect(ctx, env.DB)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close(context.Background())
		var nUS, nEU, upUS, upEU int
		if err := db.QueryRow(ctx, `SELECT (SELECT count(*) FROM earshot.transcripts), (SELECT count(*) FROM earshot_eu.transcripts),
			(SELECT count(*) FROM earshot.uploads), (SELECT count(*) FROM earshot_eu.uploads)`).Scan(&nUS, &nEU, &upUS, &upEU); err != nil {
			t.Fatal(err)
		}
		if nUS != 1 || nEU != 1 || upUS != 1 || upEU != 0 {
			t.Errorf("schemas: %d US and %d EU transcripts, %d US and %d EU uploads; want 1, 1, 1 (the refused one), 0", nUS, nEU, upUS, upEU)
		}
	})

	t.Run("realtime", func(t *testing.T) {
		pcm1 := pcmOf(t, testaudio.Speech(t, "slt", "the quick brown fox jumps over the lazy dog"))
		pcm2 := pcmOf(t, testaudio.Speech(t, "rms", "hello world this is a test"))
		tok, err := us.RealTime.CreateTemporaryToken(ctx, 60) // on either process, through the balancer
		if err != nil || tok.Token == nil {
			t.Fatal(err)
		}
		proxyA := proxytest.New(t, nodes[0].Addr)
		var ev1 rtEvents
		rt1 := aai.NewRealTimeClientWithOptions(aai.WithRealTimeBaseURL("ws://"+proxyA.Addr()+"/v2/realtime/ws"),
			aai.WithRealTimeAuthToken(*tok.Token), aai.WithRealTimeTranscriber(ev1.transcriber()))
		if err := rt1.Connect(ctx); err != nil {
			t.Fatal(err)
		}
		id := ev1.sessionID()
		sendRealTime(t, ctx, rt1, pcm1)
		if err := rt1.ForceEndUtterance(ctx); err != nil {
			t.Fatal(err)
		}
		ev1.waitFinal(t)
		proxyA.BreakAll() // the client's connection to A is cut
		// Resume on B; A may take a moment to notice the drop (4030).
		var ev2 rtEvents
		var rt2 *aai.RealTimeClient
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			rt2 = aai.NewRealTimeClientWithOptions(aai.WithRealTimeBaseURL("ws://"+nodes[1].Addr+"/v2/realtime/ws/"+id),
				aai.WithRealTimeAuthToken(*tok.Token), aai.WithRealTimeTranscriber(ev2.transcriber()))
			err := rt2.Connect(ctx)
			if err == nil {
				break
			}
			if !strings.Contains(err.Error(), "already has a connection") || time.Now().After(deadline) {
				t.Fatalf("resume on B: %v", err)
			}
		}
		if ev2.sessionID() != id {
			t.Fatalf("resumed %q, want %q", ev2.sessionID(), id)
		}
		sendRealTime(t, ctx, rt2, pcm2)
		if err := rt2.ForceEndUtterance(ctx); err != nil {
			t.Fatal(err)
		}
		if err := rt2.Disconnect(ctx, true); err != nil {
			t.Fatal(err)
		}
		got1, got2 := ev1.text(), ev2.text()
		t.Logf("on A: %q; resumed on B: %q", got1, got2)
		if !strings.Contains(got1, "fox") || !strings.Contains(got2, "world") {
			t.Errorf("finals on A %q, on B %q", got1, got2)
		}
		if start := ev2.firstStart(); start < int64(len(pcm1)/32) {
			t.Errorf("B's first final starts at %d ms; A had %d ms of audio", start, len(pcm1)/32)
		}
		// Terminated on B: a resume on A is 4010.
		expectWSClose(t, ctx, "ws://"+nodes[0].Addr+"/v2/realtime/ws/"+id, env.Key, 4010)

		// A process dies with a live session: 4030 while its lease holds,
		// then the session resumes on the survivor.
		var ev3 rtEvents
		rt3 := aai.NewRealTimeClientWithOptions(aai.WithRealTimeBaseURL("ws://"+nodes[0].Addr+"/v2/realtime/ws"),
			aai.WithRealTimeAPIKey(env.Key), aai.WithRealTimeTranscriber(ev3.transcriber()))
		if err := rt3.Connect(ctx); err != nil {
			t.Fatal(err)
		}
		id3 := ev3.sessionID()
		sendRealTime(t, ctx, rt3, pcm2[:len(pcm2)/2])
		nodes[0].kill9()
		killed := time.Now()
		expectWSClose(t, ctx, "ws://"+nodes[1].Addr+"/v2/realtime/ws/"+id3, env.Key, 4030)
		var ev4 rtEvents
		for {
			rt4 := aai.NewRealTimeClientWithOptions(aai.WithRealTimeBaseURL("ws://"+nodes[1].Addr+"/v2/realtime/ws/"+id3),
				aai.WithRealTimeAPIKey(env.Key), aai.WithRealTimeTranscriber(ev4.transcriber()))
			err := rt4.Connect(ctx)
			if err == nil {
				if err := rt4.Disconnect(ctx, true); err != nil {
					t.Fatal(err)
				}
				break
			}
			if !strings.Contains(err.Error(), "already has a connection") || time.Since(killed) > 30*time.Second {
				t.Fatalf("resume after the kill: %v", err)
			}
			time.Sleep(250 * time.Millisecond)
		}
		t.Logf("session of the killed process resumed on the survivor %v after the kill (lease 10 s)", time.Since(killed).Round(100*time.Millisecond))
		if ev4.sessionID() != id3 {
			t.Fatalf("resumed %q, want %q", ev4.sessionID(), id3)
		}
	})
}

// pcmOf returns a WAV file's 16 kHz samples as little-endian PCM bytes.
func pcmOf(t *testing.T, wav string) []byte {
	samples, rate, err := transcribetest.ReadWAV16(wav)
	if err != nil || rate != 16000 {
		t.Fatalf("%s: %v (rate %d)", wav, err, rate)
	}
	b := make([]byte, 2*len(samples))
	for i, v := range samples {
		b[2*i], b[2*i+1] = byte(v), byte(uint16(v)>>8)
	}
	// A second of silence after the speech ends the utterance.
	return append(b, make([]byte, 32000)...)
}

// sendRealTime sends pcm in 100 ms chunks at real-time speed.
func sendRealTime(t *testing.T, ctx context.Context, rt *aai.RealTimeClient, pcm []byte) {
	start := time.Now()
	for i := 0; i*3200 < len(pcm); i++ {
		if err := rt.Send(ctx, pcm[i*3200:min((i+1)*3200, len(pcm))]); err != nil {
			t.Fatalf("send: %v", err)
		}
		time.Sleep(time.Until(start.Add(time.Duration(i+1) * 100 * time.Millisecond)))
	}
}

// rtEvents collects a realtime client's events.
type rtEvents struct {
	mu     sync.Mutex
	begins []aai.SessionBegins
	finals []aai.FinalTranscript
}

func (e *rtEvents) transcriber() *aai.RealTimeTranscriber {
	return &aai.RealTimeTranscriber{
		OnSessionBegins:   func(b aai.SessionBegins) { e.mu.Lock(); e.begins = append(e.begins, b); e.mu.Unlock() },
		OnFinalTranscript: func(f aai.FinalTranscript) { e.mu.Lock(); e.finals = append(e.finals, f); e.mu.Unlock() },
	}
}

func (e *rtEvents) sessionID() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.begins) == 0 {
		return ""
	}
	return e.begins[len(e.begins)-1].SessionID
}

func (e *rtEvents) text() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var ts []string
	for _, f := range e.finals {
		ts = append(ts, f.Text)
	}
	return strings.ToLower(strings.Join(ts, " "))
}

func (e *rtEvents) firstStart() int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.finals) == 0 {
		return -1
	}
	return e.finals[0].AudioStart
}

func (e *rtEvents) waitFinal(t *testing.T) {
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		e.mu.Lock()
		n := len(e.finals)
		e.mu.Unlock()
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no final transcript")
		}
	}
}

// expectWSClose dials url with the API key and expects the server to
// close with code.
func expectWSClose(t *testing.T, ctx context.Context, url, key string, code int) {
	t.Helper()
	c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {key}}})
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	defer c.CloseNow()
	for {
		if _, _, err := c.Read(ctx); err != nil {
			if got := websocket.CloseStatus(err); int(got) != code {
				t.Fatalf("%s closed with %v (%v), want %d", url, got, err, code)
			}
			return
		}
	}
}

// TestEURegionSQLite runs one process with the EU region on its embedded
// defaults: its own SQLite file and blob directory under the data
// directory, the same key, the EU endpoint set only.
func TestEURegionSQLite(t *testing.T) {
	data, euAddr := t.TempDir(), freeAddr(t)
	s := startServer(t, data, freeAddr(t), "EARSHOT_API_KEYS="+keyK+":p", "EARSHOT_WORKERS=1", "EARSHOT_EU_ADDR="+euAddr)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	eu := aai.NewClientWithOptions(aai.WithAPIKey(keyK), aai.WithBaseURL("http://"+euAddr))
	f, err := os.Open(testaudio.Speech(t, "slt", "hello world this is a test"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := eu.Transcripts.TranscribeFromReader(ctx, f, nil)
	if err != nil || tr.Status != "completed" || !strings.Contains(strings.ToLower(deref(tr.Text)), "hello") {
		t.Fatalf("EU transcript: %v %+v", err, tr)
	}
	var apiErr aai.APIError
	if _, err := client(s, keyK).Transcripts.Get(ctx, *tr.ID); !errors.As(err, &apiErr) || apiErr.Status != 404 {
		t.Errorf("EU id in the default region: %v, want 404", err)
	}
	if _, err := eu.Transcripts.GetSubtitles(ctx, *tr.ID, "srt", nil); !errors.As(err, &apiErr) || apiErr.Status != 404 {
		t.Errorf("EU subtitles: %v, want 404", err)
	}
	for _, p := range []string{"eu/earshot.db", "eu/blobs"} {
		if _, err := os.Stat(data + "/" + p); err != nil {
			t.Errorf("the EU region's storage: %v", err)
		}
	}
	// The EU transcript is in the EU database only.
	if list, err := client(s, keyK).Transcripts.List(ctx, aai.ListTranscriptParams{}); err != nil || len(list.Transcripts) != 0 {
		t.Errorf("default region list: %v %+v", err, list.Transcripts)
	}
}
