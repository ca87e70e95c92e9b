package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestRun: the stage runs in the pipeline, after formatting and before the
// analyses: the stored text is formatted and carries no code name, and no
// key phrase does either.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	t.Log("\n" + got)
	if !strings.Contains(got, "text: The [project] launch moves to Friday and the [project] budget doubles.") {
		t.Errorf("stored text: want the code name replaced in the formatted text")
	}
	if strings.Contains(strings.ToLower(got), "falcon") {
		t.Errorf("a code name reached the stored transcript")
	}
	if !strings.Contains(got, "key phrase:") {
		t.Errorf("no key phrases: the analyses did not run after the stage")
	}
}

// TestStagePlace: the stage sits right after custom_spelling.
func TestStagePlace(t *testing.T) {
	st := stages()
	for i, s := range st {
		if s.Name() == "mask_code_names" {
			if i == 0 || st[i-1].Name() != "custom_spelling" {
				t.Errorf("mask_code_names at %d, after %q", i, st[i-1].Name())
			}
			return
		}
	}
	t.Error("mask_code_names is not in the pipeline")
}
