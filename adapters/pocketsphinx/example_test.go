package pocketsphinx_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/earshot-dev/earshot/adapters/pocketsphinx"
	"github.com/earshot-dev/earshot/transcribe"
)

func Example() {
	r, err := pocketsphinx.New(pocketsphinx.Config{Decoders: 1})
	if err != nil {
		log.Fatal(err) // wraps transcribe.ErrUnavailable without the Debian packages
	}
	defer r.Close()
	silence := make([]int16, 2*pocketsphinx.SampleRate)
	rec, err := r.Recognize(context.Background(), silence, transcribe.RecognizeOptions{
		WordBoost:  []string{"earshot"},
		BoostParam: "high",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(rec.Words), rec.Model, strings.Join(r.Features().Languages, ","))
	// Output: 0 pocketsphinx-en-us en
}
