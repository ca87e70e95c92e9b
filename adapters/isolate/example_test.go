package isolate_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/earshot-dev/earshot/adapters/isolate"
	"github.com/earshot-dev/earshot/adapters/pocketsphinx"
	"github.com/earshot-dev/earshot/transcribe"
)

// A host binary registers its engines and calls Main before anything else;
// the same binary, re-executed, is the worker.
func ExampleMain() {
	// In init, or at the top of main before isolate.Main:
	//
	//	isolate.Register("pocketsphinx", isolate.JSONFactory(
	//		func(c pocketsphinx.Config) (transcribe.Recognizer, error) { return pocketsphinx.New(c) }))
	isolate.Main() // a worker serves here and exits; the host goes on
	rec, err := isolate.New(isolate.Config{
		Engine:       "pocketsphinx",
		EngineConfig: pocketsphinx.Config{Decoders: 1}, // one decoder per worker
		Processes:    4,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer rec.Close()
	// Use rec as transcribe.Config.Recognizer and realtime.Config.Recognizer.
}

// New starts one worker and caches the engine's features; calls run in
// workers (this test binary registers "pocketsphinx" in its init).
func ExampleNew() {
	rec, err := isolate.New(isolate.Config{
		Engine:       "pocketsphinx",
		EngineConfig: pocketsphinx.Config{Decoders: 1},
		Processes:    2,
	})
	if err != nil {
		log.Fatal(err) // wraps transcribe.ErrUnavailable without the Debian packages
	}
	defer rec.Close()
	silence := make([]int16, 16000)
	r, err := rec.Recognize(context.Background(), silence, transcribe.RecognizeOptions{})
	if errors.Is(err, transcribe.ErrEngineCrashed) {
		fmt.Println(err) // "the speech engine crashed (signal SIGSEGV) while processing this audio"
		return
	}
	if err != nil {
		log.Fatal(err)
	}
	f := rec.Features()
	fmt.Println(len(r.Words), r.Model, f.SampleRate, f.Streaming, rec.Stats().Processes)
	// Output: 0 pocketsphinx-en-us 16000 true 1
}
