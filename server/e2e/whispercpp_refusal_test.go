package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"

	"github.com/earshot-dev/earshot/adapters/openai/enginetest"
	"github.com/earshot-dev/earshot/internal/testaudio"
)

// TestWhisperCppRefusalFallsBack: whisper-server f0d2bfbf (2025-04)
// cannot read a GSM-encoded WAV and answers it 200 {"error": "failed to
// read audio data"} (its recorded answer); the file Earshot decodes
// itself is then sent as PCM pieces, which the server reads (the recorded
// raw-rand-ml-en answer). The job completes. Before, the 200 was an
// "unreadable answer" and the job ended in "internal error while
// processing the media".
func TestWhisperCppRefusalFallsBack(t *testing.T) {
	dir := "../../adapters/whispercpp/testdata/f0d2bfbf"
	answer := func(name string) []byte {
		hdr, err1 := os.ReadFile(filepath.Join(dir, "hdr-"+name+".txt"))
		body, err2 := os.ReadFile(filepath.Join(dir, "raw-"+name+".out"))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		return append(hdr, body...)
	}
	good, refusal := answer("rand-ml-en"), answer("err-garbage")
	var refused, read atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, file, err := enginetest.ReadRequest(r)
		raw := good
		// miniaudio reads 16-bit PCM WAV; GSM (format 0x31) it cannot.
		if err != nil || len(file) < 44 || string(file[:4]) != "RIFF" || binary.LittleEndian.Uint16(file[20:22]) != 1 {
			raw = refusal
			refused.Add(1)
		} else {
			read.Add(1)
		}
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(raw)), nil)
		if err != nil {
			t.Error(err)
			return
		}
		body, _ := io.ReadAll(resp.Body)
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	s := startServer(t, t.TempDir(), freeAddr(t), "EARSHOT_API_KEYS="+keyK+":p", "EARSHOT_WHISPERCPP_URL="+srv.URL)
	c := client(s, keyK)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	gsm := testaudio.Sox(t, "wav", testaudio.Speech(t, "slt", "the quick brown fox jumps over the lazy dog"), "-e", "gsm-full-rate")
	tr := submitFile(t, ctx, c, gsm, &aai.TranscriptOptionalParams{SpeechModel: "whispercpp", LanguageCode: "en"})
	if tr.Status != "completed" || !strings.Contains(strings.ToLower(deref(tr.Text)), "pipeline") || refused.Load() != 1 || read.Load() < 1 {
		t.Fatalf("GSM WAV: %s (%s) %q; %d refused, %d read", tr.Status, deref(tr.Error), deref(tr.Text), refused.Load(), read.Load())
	}
}
