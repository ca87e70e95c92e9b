package whispercpp_test

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"

	"github.com/earshot-dev/earshot/adapters/whispercpp"
	"github.com/earshot-dev/earshot/transcribe"
)

// whisper-server answers with BPE tokens; the recognizer merges them into
// words whose confidence is the mean token probability.
func ExampleRecognizer_Recognize() {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/health" {
			_, _ = io.WriteString(w, `{"status":"ok"}`)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"task":"transcribe","language":"english","duration":1.0,"text":" Hello whisper.\n",
			"segments":[{"id":0,"text":" Hello whisper.","start":0.1,"end":0.9,"tokens":[1,2,3,4],
			"words":[{"word":" Hello","start":0.1,"end":0.4,"t_dtw":-1,"probability":0.9},
			         {"word":" wh","start":0.45,"end":0.6,"t_dtw":-1,"probability":0.8},
			         {"word":"isper","start":0.6,"end":0.85,"t_dtw":-1,"probability":0.6},
			         {"word":".","start":0.85,"end":0.9,"t_dtw":-1,"probability":0.7}],
			"temperature":0.0,"avg_logprob":-0.3,"no_speech_prob":0.01}]}`)
	}))
	defer server.Close()

	rec, err := whispercpp.New(whispercpp.Config{URL: server.URL})
	if err != nil {
		panic(err)
	}
	defer rec.Close()
	if err := rec.Health(context.Background()); err != nil {
		panic(err)
	}
	audio := make([]int16, 16000)
	for i := range audio {
		audio[i] = int16(8000 * math.Sin(float64(i)/5))
	}
	r, err := rec.Recognize(context.Background(), audio, transcribe.RecognizeOptions{LanguageCode: "en"})
	if err != nil {
		panic(err)
	}
	for _, w := range r.Words {
		fmt.Printf("%s %d-%d %.2f\n", w.Text, w.Start, w.End, w.Confidence)
	}
	// Output:
	// hello 100-400 0.90
	// whisper 450-900 0.70
}
