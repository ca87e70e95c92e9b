package openai_test

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"

	"github.com/earshot-dev/earshot/adapters/openai"
	"github.com/earshot-dev/earshot/transcribe"
)

// An engine such as speaches answers verbose_json with word times; the
// recognizer hands back contract words: lowercase, unpunctuated, numbers
// spoken for the formatting stages, times in milliseconds.
func ExampleRecognizer_Recognize() {
	engine := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"duration":1.0,"language":"en","text":"Pay $25 now.",
			"segments":[{"id":1,"start":0.0,"end":0.9,"text":" Pay $25 now.","avg_logprob":-0.1}],
			"words":[{"word":" Pay","start":0.1,"end":0.3},{"word":" $25","start":0.3,"end":0.7},{"word":" now.","start":0.7,"end":0.9}]}`)
	}))
	defer engine.Close()

	rec, err := openai.New(openai.Config{BaseURL: engine.URL + "/v1", Model: "Systran/faster-whisper-small"})
	if err != nil {
		panic(err)
	}
	defer rec.Close()
	audio := make([]int16, openai.SampleRate) // one second of a tone
	for i := range audio {
		audio[i] = int16(8000 * math.Sin(float64(i)/5))
	}
	r, err := rec.Recognize(context.Background(), audio, transcribe.RecognizeOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Model, r.Language)
	for _, w := range r.Words {
		fmt.Printf("%s %d-%d %.2f\n", w.Text, w.Start, w.End, w.Confidence)
	}
	// Output:
	// Systran/faster-whisper-small en
	// pay 100-300 0.90
	// twenty 300-441 0.90
	// five 441-535 0.90
	// dollars 535-700 0.90
	// now 700-900 0.90
}
