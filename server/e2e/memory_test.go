package e2e

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"

	"github.com/earshot-dev/earshot/adapters/openai/enginetest"
	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe/media"
)

// longFLAC describes a FLAC file of digital silence, optionally opening
// with a tone, for the memory tests: hours of audio in a few megabytes.
type longFLAC struct {
	Channels int
	Length   time.Duration
	// Tone is how long a 440 Hz tone (-12 dBFS) plays at the start of
	// every channel, so that the silence check does not end the job
	// early; 0 for pure silence.
	Tone time.Duration
	// Undeclared leaves the total length out of STREAMINFO (0, "unknown",
	// as a streaming encoder writes it), so a decoder learns the length
	// only by decoding.
	Undeclared bool
}

// flacRate is the sample rate of the files longFLAC writes: the
// recognizer's, so nothing is resampled.
const flacRate = 16000

// flacBlock is the block size of every frame but the last (FLAC block
// size code 12).
const flacBlock = 4096

// Write writes the file to path. It is written here rather than with an
// encoder (sox needs about 25 s of CPU per hour of audio with dither off,
// github.com/mewkiz/flac's encoder hashes and analyses every sample) because
// silence has a trivial exact encoding: a CONSTANT subframe of three bytes
// per channel and block (FLAC format, "SUBFRAME_CONSTANT"); the tone's
// blocks are VERBATIM subframes. Ten hours of eight channels take 4.5 MB
// and well under a second. TestLongFLAC reads the files back with sox and
// with transcribe/media.
func (l longFLAC) Write(path string) error {
	if l.Channels < 1 || l.Channels > 8 || l.Length <= 0 || l.Tone < 0 {
		return fmt.Errorf("longFLAC: bad shape %+v", l)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	total := int64(l.Length.Seconds() * flacRate)
	toneN := int64(l.Tone.Seconds() * flacRate)

	// "fLaC", then STREAMINFO as the last metadata block: min/max block
	// size, min/max frame size (0: unknown), then 64 bits of sample rate
	// (20), channels-1 (3), bits per sample-1 (5), total samples (36), and
	// an MD5 of zeros (unknown: decoders do not check it).
	w.WriteString("fLaC")
	w.Write([]byte{0x80, 0, 0, 34})
	var info [34]byte
	binary.BigEndian.PutUint16(info[0:], flacBlock)
	binary.BigEndian.PutUint16(info[2:], flacBlock)
	declared := uint64(total)
	if l.Undeclared {
		declared = 0
	}
	binary.BigEndian.PutUint64(info[10:], uint64(flacRate)<<44|uint64(l.Channels-1)<<41|uint64(15)<<36|declared)
	w.Write(info[:])

	frame := make([]byte, 0, 16+l.Channels*(1+2*flacBlock)+2)
	for num, pos := uint64(0), int64(0); pos < total; num, pos = num+1, pos+flacBlock {
		n := min(flacBlock, total-pos)
		// Frame header: sync code and fixed block size, block size code
		// (12: 4096; 7: 16-bit size-1 follows the frame number), sample rate
		// code 5 (16 kHz), channel assignment (independent channels),
		// sample size code 4 (16 bits), the frame number UTF-8 coded, then
		// its CRC-8.
		bs := byte(12)
		if n != flacBlock {
			bs = 7
		}
		frame = append(frame[:0], 0xFF, 0xF8, bs<<4|5, byte(l.Channels-1)<<4|4<<1)
		frame = appendFLACUTF8(frame, num)
		if bs == 7 {
			frame = binary.BigEndian.AppendUint16(frame, uint16(n-1))
		}
		frame = append(frame, crc8(frame))
		for range l.Channels {
			if pos >= toneN {
				frame = append(frame, 0x00, 0, 0) // CONSTANT 0
				continue
			}
			frame = append(frame, 0x02) // VERBATIM
			for i := pos; i < pos+n; i++ {
				v := int16(0)
				if i < toneN {
					v = int16(8192 * math.Sin(2*math.Pi*440*float64(i)/flacRate))
				}
				frame = binary.BigEndian.AppendUint16(frame, uint16(v))
			}
		}
		frame = binary.BigEndian.AppendUint16(frame, crc16(frame))
		if _, err := w.Write(frame); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// WriteWAV writes the same audio as a 16-bit PCM WAV file (44-byte header,
// interleaved samples): the format engines that take files get as it is,
// and the size a user's recording really has (115 MB an hour).
func (l longFLAC) WriteWAV(path string) error {
	total := int64(l.Length.Seconds() * flacRate)
	toneN := int64(l.Tone.Seconds() * flacRate)
	size := total * int64(l.Channels) * 2
	if l.Channels < 1 || l.Length <= 0 || l.Undeclared || size > math.MaxUint32-36 {
		return fmt.Errorf("longFLAC.WriteWAV: cannot write %+v as WAV", l)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	h := make([]byte, 0, 44)
	h = append(h, "RIFF"...)
	h = binary.LittleEndian.AppendUint32(h, uint32(36+size))
	h = append(h, "WAVEfmt "...)
	h = binary.LittleEndian.AppendUint32(h, 16)
	h = binary.LittleEndian.AppendUint16(h, 1) // PCM
	h = binary.LittleEndian.AppendUint16(h, uint16(l.Channels))
	h = binary.LittleEndian.AppendUint32(h, flacRate)
	h = binary.LittleEndian.AppendUint32(h, uint32(flacRate*2*l.Channels))
	h = binary.LittleEndian.AppendUint16(h, uint16(2*l.Channels))
	h = binary.LittleEndian.AppendUint16(h, 16)
	h = append(h, "data"...)
	h = binary.LittleEndian.AppendUint32(h, uint32(size))
	w.Write(h)
	frame := make([]byte, 2*l.Channels)
	zeros := make([]byte, 64<<10)
	for i := int64(0); i < toneN && i < total; i++ {
		v := uint16(int16(8192 * math.Sin(2*math.Pi*440*float64(i)/flacRate)))
		for c := range l.Channels {
			binary.LittleEndian.PutUint16(frame[2*c:], v)
		}
		w.Write(frame)
	}
	for left := (total - min(toneN, total)) * int64(2*l.Channels); left > 0; {
		n := min(left, int64(len(zeros)))
		if _, err := w.Write(zeros[:n]); err != nil {
			f.Close()
			return err
		}
		left -= n
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// appendFLACUTF8 appends v in FLAC's extended UTF-8 coding (up to 36
// bits).
func appendFLACUTF8(b []byte, v uint64) []byte {
	if v < 0x80 {
		return append(b, byte(v))
	}
	// Bytes needed: each continuation byte carries 6 bits; the first
	// carries 7-n bits for n bytes in all.
	n := 2
	for v >= 1<<(5*n+1) && n < 7 {
		n++
	}
	out := make([]byte, n)
	for i := n - 1; i > 0; i-- {
		out[i] = 0x80 | byte(v&0x3F)
		v >>= 6
	}
	out[0] = byte(0xFF<<(8-n)) | byte(v)
	return append(b, out...)
}

// crc8 is FLAC's header CRC: polynomial x^8+x^2+x^1+x^0, initial 0.
func crc8(b []byte) byte {
	var c byte
	for _, x := range b {
		c ^= x
		for range 8 {
			if c&0x80 != 0 {
				c = c<<1 ^ 0x07
			} else {
				c <<= 1
			}
		}
	}
	return c
}

// crc16Table is FLAC's frame CRC (polynomial x^16+x^15+x^2+x^0, initial 0,
// most significant bit first) a byte at a time.
var crc16Table = func() (t [256]uint16) {
	for i := range t {
		c := uint16(i) << 8
		for range 8 {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x8005
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return t
}()

func crc16(b []byte) uint16 {
	var c uint16
	for _, x := range b {
		c = c<<8 ^ crc16Table[byte(c>>8)^x]
	}
	return c
}

// vmHWM returns the peak resident set size of process pid in bytes
// (VmHWM of /proc/PID/status: the high-water mark since it started).
func vmHWM(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("VmHWM %q: %v", v, err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/%d/status", pid)
}

// TestLongFLAC checks the files longFLAC writes with two independent
// readers: sox (libFLAC, which verifies every CRC) and transcribe/media
// (github.com/mewkiz/flac).
func TestLongFLAC(t *testing.T) {
	t.Parallel()
	testaudio.Need(t, "sox")
	dir := t.TempDir()
	for _, l := range []longFLAC{
		{Channels: 1, Length: 61*time.Second + 300*time.Millisecond, Tone: time.Second},
		{Channels: 8, Length: 5 * time.Second, Tone: 300 * time.Millisecond, Undeclared: true},
		{Channels: 2, Length: 10 * time.Minute},
	} {
		path := filepath.Join(dir, fmt.Sprintf("%dch-%v.flac", l.Channels, l.Length))
		if err := l.Write(path); err != nil {
			t.Fatal(err)
		}
		if !l.Undeclared { // the WAV of the same audio reads back the same
			wav := strings.TrimSuffix(path, ".flac") + ".wav"
			if err := l.WriteWAV(wav); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command("sox", wav, "-n", "stat").CombinedOutput(); err != nil {
				t.Fatalf("%+v: sox: %v\n%s", l, err, out)
			} else if got, want := soxStat(t, out, "Samples read:"), l.Length.Seconds()*flacRate*float64(l.Channels); got != want {
				t.Errorf("%+v: sox read %v samples from the WAV, want %v", l, got, want)
			}
		}
		frames := int64(l.Length.Seconds() * flacRate)
		// sox decodes every frame (libFLAC checks the CRCs) and reports
		// the samples it read and the peak.
		out, err := exec.Command("sox", path, "-n", "stat").CombinedOutput()
		if err != nil {
			t.Fatalf("%+v: sox: %v\n%s", l, err, out)
		}
		if got := soxStat(t, out, "Samples read:"); int64(got) != frames*int64(l.Channels) {
			t.Errorf("%+v: sox read %v samples, want %d\n%s", l, got, frames*int64(l.Channels), out)
		}
		wantPeak := 0.0
		if l.Tone > 0 {
			wantPeak = 0.25
		}
		if got := soxStat(t, out, "Maximum amplitude:"); math.Abs(got-wantPeak) > 0.01 {
			t.Errorf("%+v: peak %v, want %v", l, got, wantPeak)
		}

		pcm, err := (&media.Decoder{}).Decode(context.Background(), path, flacRate, true)
		if err != nil {
			t.Fatalf("%+v: media: %v", l, err)
		}
		if len(pcm.Channels) != l.Channels || int64(len(pcm.Channels[0])) != frames {
			t.Fatalf("%+v: media decoded %d channels of %d frames", l, len(pcm.Channels), len(pcm.Channels[0]))
		}
		toneN := int(l.Tone.Seconds() * flacRate)
		for c, x := range pcm.Channels {
			peak := 0
			for i, v := range x {
				if i >= toneN && v != 0 {
					t.Fatalf("%+v: channel %d sample %d is %d after the tone", l, c, i, v)
				}
				peak = max(peak, int(v), -int(v))
			}
			if (toneN > 0) != (peak > 8000) {
				t.Errorf("%+v: channel %d peak %d", l, c, peak)
			}
		}
	}
}

// soxStat reads one figure of sox's stat effect.
func soxStat(t *testing.T, out []byte, label string) float64 {
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, label); ok {
			x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				t.Fatalf("sox stat %q: %v", line, err)
			}
			return x
		}
	}
	t.Fatalf("sox stat has no %q:\n%s", label, out)
	return 0
}

// BenchmarkPeakRSS measures issue 15 item 2's target: the peak RSS of the
// server process during one job may grow by at most 64 MB from a 1-minute
// to a 10-hour file, mono or 8 channels. Each case runs ONE job in a fresh
// server process (so no peak carries over from another case) and reads
// the process's VmHWM from /proc once the job is done. It runs its cases
// once whatever b.N (it takes about five minutes) and prints a table:
//
//	go test -run '^$' -bench PeakRSS -benchtime 1x -timeout 30m ./examples/server
//
// The files are digital silence after a one-second tone, so the silence
// check finds sound at once and the whole job runs: decoding into the
// spool, the silence check, cutting every channel into pieces at pauses,
// reading each piece back and recognizing it, the stages. The first row
// runs the default engine, pocketsphinx (it hears no words in a tone, so
// the job ends in "no spoken audio" after recognizing all ten hours). The
// others use the real openai adapter against a cheap OpenAI-compatible
// test server that answers the recorded OpenAI answer of
// adapters/openai/testdata, because pocketsphinx would need about ten
// minutes for 80 hours of audio; the adapter does not send silent pieces,
// so that engine sees one piece per channel, and everything the server does
// with the audio is what it does with pocketsphinx. The "pieces" row sets
// audio_start_from 0, which makes the Service recognize spooled pieces as
// it does for pocketsphinx (without it, an engine that takes FLAC gets the
// file as it is: the "file" rows). The last row is the same job as a WAV
// file (1.15 GB for ten hours): it is over the adapter's 25 MiB request
// limit, so the adapter answers transcribe.ErrFileNotTaken and the
// Service spools and recognizes it in pieces (the adapter used to decode
// the whole file in memory: +3,160 MB). EARSHOT_MAX_DURATION is raised
// to 81h so that 10 hours of 8 channels (80 hours to transcribe) are
// decoded, not refused.
func BenchmarkPeakRSS(b *testing.B) {
	engine := newQuietEngine(b)
	env := []string{"EARSHOT_ENGINE=openai", "EARSHOT_OPENAI_URL=" + engine.URL + "/v1", "EARSHOT_OPENAI_MODEL=whisper-1", "EARSHOT_MAX_DURATION=81h"}
	peakRSS(b, []rssCase{
		{"mono, pocketsphinx", 1, aai.TranscriptOptionalParams{}, nil, false},
		{"mono, openai, pieces", 1, aai.TranscriptOptionalParams{AudioStartFrom: aai.Int64(0)}, env, false},
		{"mono, openai, file", 1, aai.TranscriptOptionalParams{}, env, false},
		{"8 channels, openai", 8, aai.TranscriptOptionalParams{Multichannel: aai.Bool(true)}, env, false},
		{"mono WAV, openai, file", 1, aai.TranscriptOptionalParams{}, env, true},
	}, 10*time.Hour)
}

// rssCase is one row of a peak-RSS benchmark.
type rssCase struct {
	name     string
	channels int
	params   aai.TranscriptOptionalParams
	env      []string
	wav      bool // the file is WAV rather than FLAC
}

// peakRSS runs each case on a 1-minute file and on a long one, each in a
// fresh server process, and prints and reports the growth of the peak.
func peakRSS(b *testing.B, cases []rssCase, long time.Duration) {
	type result struct {
		idle, peak int64
		took       time.Duration
	}
	var lines []string
	for _, rc := range cases {
		var rs []result
		for _, length := range []time.Duration{time.Minute, long} {
			l := longFLAC{Channels: rc.channels, Length: length, Tone: time.Second}
			path := filepath.Join(b.TempDir(), "audio.flac")
			write := l.Write
			if rc.wav {
				path, write = filepath.Join(b.TempDir(), "audio.wav"), l.WriteWAV
			}
			if err := write(path); err != nil {
				b.Fatal(err)
			}
			s := startBenchServer(b, b.TempDir(), append([]string{"EARSHOT_API_KEYS=" + keyK + ":p", "EARSHOT_WORKERS=1"}, rc.env...)...)
			idle, err := vmHWM(s.cmd.Process.Pid)
			if err != nil {
				b.Fatal(err)
			}
			t0 := time.Now()
			params := rc.params
			tr := s.transcribe(path, &params)
			took := time.Since(t0)
			peak, err := vmHWM(s.cmd.Process.Pid)
			if err != nil {
				b.Fatal(err)
			}
			s.stop()
			// pocketsphinx hears no words in a tone: the job ends in "no
			// spoken audio" after recognizing all of it; that is a full job.
			if !(tr.Status == "completed" && strings.Contains(deref(tr.Text), "fox")) &&
				!(rc.env == nil && tr.Status == "error" && strings.Contains(deref(tr.Error), "no spoken audio")) {
				b.Fatalf("%s, %v: status %s, error %q, text %q\n%s", rc.name, length, tr.Status, deref(tr.Error), deref(tr.Text), s.logs())
			}
			if want := int64(length / time.Second); tr.Status == "completed" && (tr.AudioDuration == nil || int64(*tr.AudioDuration) != want) {
				b.Fatalf("%s, %v: audio_duration %v, want %d", rc.name, length, tr.AudioDuration, want)
			}
			rs = append(rs, result{idle, peak, took})
		}
		growth := rs[1].peak - rs[0].peak
		verdict := "meets the 64 MB target"
		if growth > 64<<20 {
			verdict = fmt.Sprintf("MISSES the 64 MB target by %.1f MB", mib(growth-64<<20))
		}
		lines = append(lines, fmt.Sprintf("%-26s idle %5.1f MB | 1 min: peak %5.1f MB (%5.1fs) | %v: peak %5.1f MB (%6.1fs) | growth %+5.1f MB: %s",
			rc.name, mib(rs[0].idle), mib(rs[0].peak), rs[0].took.Seconds(), long, mib(rs[1].peak), rs[1].took.Seconds(), mib(growth), verdict))
		b.ReportMetric(mib(growth), "MB-growth-"+strings.NewReplacer(" ", "", ",", "-").Replace(rc.name))
	}
	fmt.Printf("peak RSS of the server process during one job (VmHWM), 1 minute -> %v:\n%s\n", long, strings.Join(lines, "\n"))
}

// mib is n bytes in MiB (the table says MB, as the target does).
func mib(n int64) float64 { return float64(n) / (1 << 20) }

// quietEngine is an OpenAI-compatible transcription server for the memory
// benchmark: it reads each request whole and answers the recorded answer
// of adapters/openai/testdata/openai_verbose.json (the OpenAI API's
// verbose_json, shape of openai-python
// src/openai/types/audio/transcription_verbose.py).
type quietEngine struct {
	URL   string
	calls atomic.Int64
}

func newQuietEngine(tb testing.TB) *quietEngine {
	raw, err := os.ReadFile("../../adapters/openai/testdata/openai_verbose.json")
	if err != nil {
		tb.Fatal(err)
	}
	var ex enginetest.Exchange
	if err := json.Unmarshal(raw, &ex); err != nil || ex.Status != 200 {
		tb.Fatalf("openai_verbose.json: %v (status %d)", err, ex.Status)
	}
	e := &quietEngine{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.calls.Add(1)
		if r.Method != http.MethodPost || r.URL.Path != ex.Request.Path {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			return
		}
		w.Header().Set("Content-Type", ex.ContentType)
		io.WriteString(w, ex.Body)
	}))
	tb.Cleanup(srv.Close)
	e.URL = srv.URL
	return e
}

// benchServer is a server process for benchmarks (startServer needs a
// *testing.T); its output goes to a file.
type benchServer struct {
	tb   testing.TB
	cmd  *exec.Cmd
	url  string
	log  string
	done chan struct{}
}

func startBenchServer(tb testing.TB, data string, env ...string) *benchServer {
	tb.Helper()
	addr := freeAddrTB(tb)
	s := &benchServer{tb: tb, url: "http://" + addr, log: filepath.Join(tb.TempDir(), "server.log"), done: make(chan struct{})}
	out, err := os.Create(s.log)
	if err != nil {
		tb.Fatal(err)
	}
	defer out.Close()
	s.cmd = exec.Command(serverBinary(tb))
	s.cmd.Env = append(append(os.Environ(), "EARSHOT_ADDR="+addr, "EARSHOT_DATA="+data, "EARSHOT_ALLOW_PRIVATE_URLS=true"), env...)
	s.cmd.Stdout, s.cmd.Stderr = out, out
	if err := s.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go func() { s.cmd.Wait(); close(s.done) }()
	tb.Cleanup(s.stop)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		select {
		case <-s.done:
			tb.Fatalf("server exited early:\n%s", s.logs())
		default:
		}
		if resp, err := http.Get(s.url + "/v2/transcript"); err == nil {
			resp.Body.Close()
			return s
		}
	}
	tb.Fatalf("server did not start:\n%s", s.logs())
	return nil
}

func (s *benchServer) logs() string {
	b, _ := os.ReadFile(s.log)
	return string(b)
}

func (s *benchServer) stop() {
	select {
	case <-s.done:
		return
	default:
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

// transcribe uploads path, submits it and polls until the transcript is
// final (the SDK's Wait backs off to a minute between polls).
func (s *benchServer) transcribe(path string, params *aai.TranscriptOptionalParams) aai.Transcript {
	s.tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	c := aai.NewClientWithOptions(aai.WithAPIKey(keyK), aai.WithBaseURL(s.url))
	f, err := os.Open(path)
	if err != nil {
		s.tb.Fatal(err)
	}
	defer f.Close()
	u, err := c.Upload(ctx, f)
	if err != nil {
		s.tb.Fatal(err)
	}
	tr, err := c.Transcripts.SubmitFromURL(ctx, u, params)
	if err != nil {
		s.tb.Fatal(err)
	}
	tr, err = pollFinal(ctx, c, *tr.ID)
	if err != nil {
		s.tb.Fatalf("%v\n%s", err, s.logs())
	}
	return tr
}
