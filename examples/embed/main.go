// Command embed serves an application's own routes and Earshot's
// AssemblyAI-compatible API from one net/http mux: the in-memory store
// (nothing persists), Debian's pocketsphinx in this process, and the
// default feature pipeline. Point an AssemblyAI SDK at it with the key
// below and the base URL it prints.
//
//	go run ./examples/embed -addr 127.0.0.1:8080
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/earshot-dev/earshot/adapters/pocketsphinx"
	"github.com/earshot-dev/earshot/httpapi"
	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/media"
	"github.com/earshot-dev/earshot/transcribe/pipeline"
)

// apiKey is the one key of this example; a real application keeps its keys
// out of the source.
const apiKey = "example-key-change-me"

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	app, err := newApp("http://" + ln.Addr().String())
	if err != nil {
		log.Fatal(err)
	}
	defer app.Close()
	fmt.Printf("listening on http://%s (API key %q)\n", ln.Addr(), apiKey)
	log.Fatal(http.Serve(ln, app))
}

// app is the application: its mux, and the transcription service behind
// the part of it that Earshot serves.
type app struct {
	http.Handler
	svc *transcribe.Service
	rec *pocketsphinx.Recognizer
}

// newApp builds the application for the public base URL its clients use
// (Earshot writes it into upload URLs).
func newApp(publicURL string) (*app, error) {
	dec, err := media.NewDecoder(media.Config{})
	if err != nil {
		return nil, err
	}
	rec, err := pocketsphinx.New(pocketsphinx.Config{})
	if err != nil {
		return nil, err // install libpocketsphinx3 and pocketsphinx-en-us
	}
	store := memory.New()
	svc, err := transcribe.NewService(transcribe.Config{
		Store: store, Uploads: store, Blobs: memory.NewBlobStore(), Decoder: dec,
		Key:     transcribe.NewKey(), // seals transcripts at rest; keep it to read them after a restart
		Engines: []transcribe.Engine{{Name: "pocketsphinx", Recognizer: rec}},
		Stages:  pipeline.Default(pipeline.Options{}),
	})
	if err != nil {
		rec.Close()
		return nil, err
	}
	urls, err := httpapi.NewURLs(publicURL, nil)
	if err != nil {
		return nil, err
	}
	api, err := httpapi.New(httpapi.Config{Service: svc, URLs: urls, Auth: httpapi.Keys{apiKey: "my-app"}})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /app/hello", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "the application's own route\n")
	})
	// The SDKs call /v2/... at the root of their base URL (they drop any
	// path prefix), so Earshot is mounted at "/", after the app's routes.
	mux.Handle("/", api)
	svc.Start()
	return &app{Handler: mux, svc: svc, rec: rec}, nil
}

// Close stops the service, letting running jobs finish for up to 10 s.
func (a *app) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := a.svc.Close(ctx)
	a.rec.Close()
	return err
}
