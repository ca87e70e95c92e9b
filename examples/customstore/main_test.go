package main

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/transcribe/driver/drivertest"
)

// TestConformance: the audit store keeps the Store contract (the suite
// every store adapter runs).
func TestConformance(t *testing.T) {
	drivertest.RunStoreTests(t, func(t *testing.T) driver.Store {
		return &auditStore{Store: memory.New(), w: io.Discard}
	})
}

// TestRun: the program's log shows the transcript's life in order, and
// never its text (the Service seals content before the store sees it).
func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	log := out.String()
	t.Log("\n" + log)
	events := regexp.MustCompile(`(?m)^(create|claim|update) \S+ project=p1 status=(\w+)( \(deleted\))?$`).FindAllStringSubmatch(log, -1)
	var got []string
	for _, e := range events {
		got = append(got, e[1]+":"+e[2]+e[3])
	}
	want := []string{"create:queued", "claim:processing", "update:completed", "update:completed (deleted)"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("log events %v, want %v", got, want)
	}
	if !strings.Contains(log, "text: hello from the audit log") {
		t.Errorf("the program did not print the transcript's text")
	}
	if strings.Count(log, "audit log") != 1 {
		t.Errorf("the transcript's text reached the store's log")
	}
}
