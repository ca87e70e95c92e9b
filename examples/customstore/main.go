// Command customstore shows a driver.Store of one's own: an audit log
// that wraps any other Store and writes a line for every state change of a
// transcript (created, queued -> processing -> completed or error, deleted)
// without ever seeing its content, which the Service seals before a store
// gets it. The program transcribes a generated tone on the in-memory
// store through it and prints the log.
//
// A store adapter proves it keeps the contract with the conformance suite
// every adapter runs: main_test.go runs drivertest.RunStoreTests on it.
//
//	go run ./examples/customstore
package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"sync"
	"time"

	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/transcribe/media"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// auditStore is a driver.Store that logs every write of another.
// Embedding the interface passes the methods it does not override through.
type auditStore struct {
	driver.Store
	mu sync.Mutex
	w  io.Writer
}

func (s *auditStore) log(event string, r *driver.Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	deleted := ""
	if r.Deleted {
		deleted = " (deleted)"
	}
	fmt.Fprintf(s.w, "%s %s project=%s status=%s%s\n", event, r.ID, r.ProjectID, r.Status, deleted)
}

func (s *auditStore) Create(ctx context.Context, r *driver.Record) error {
	err := s.Store.Create(ctx, r)
	if err == nil {
		s.log("create", r)
	}
	return err
}

func (s *auditStore) Update(ctx context.Context, r *driver.Record) error {
	err := s.Store.Update(ctx, r)
	if err == nil {
		s.log("update", r)
	}
	return err
}

func (s *auditStore) ClaimJob(ctx context.Context, c driver.Claim) (*driver.Record, error) {
	r, err := s.Store.ClaimJob(ctx, c)
	if err == nil {
		s.log("claim", r)
	}
	return r, err
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run transcribes two seconds of a tone through the audit store and
// deletes the transcript, the log going to w.
func run(ctx context.Context, w io.Writer) error {
	mem := memory.New()
	store := &auditStore{Store: mem, w: w}
	dec, err := media.NewDecoder(media.Config{})
	if err != nil {
		return err
	}
	svc, err := transcribe.NewService(transcribe.Config{
		Store: store, Uploads: mem, Blobs: memory.NewBlobStore(), Decoder: dec, Key: transcribe.NewKey(),
		// A scripted recognizer keeps the example free of a speech engine.
		Recognizer:   &transcribetest.FakeRecognizer{Text: "hello from the audit log"},
		PollInterval: 10 * time.Millisecond,
	})
	if err != nil {
		return err
	}
	svc.Start()
	defer svc.Close(ctx)

	up, err := svc.Upload(ctx, "p1", bytes.NewReader(transcribetest.ToneWAV(2)))
	if err != nil {
		return err
	}
	tr, err := svc.Submit(ctx, "p1", transcribe.SubmitRequest{UploadID: up.ID, Params: transcribe.TranscriptParams{AudioURL: "https://example.com/tone.wav"}})
	if err != nil {
		return err
	}
	for !tr.Status.Final() {
		time.Sleep(10 * time.Millisecond)
		if tr, err = svc.Get(ctx, "p1", tr.ID); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "text: %s\n", *tr.Text)
	_, err = svc.Delete(ctx, "p1", tr.ID)
	return err
}
