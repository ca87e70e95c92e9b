package export

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./export -run TestGolden -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file.\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

func jsonOf(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func TestGolden(t *testing.T) {
	tr := sample()
	golden(t, "srt_default.golden", SRT(tr, 0))
	golden(t, "srt_32.golden", SRT(tr, 32))
	golden(t, "vtt_default.golden", VTT(tr, 0))
	golden(t, "vtt_32.golden", VTT(tr, 32))
	golden(t, "sentences.golden", jsonOf(t, Sentences(tr)))
	golden(t, "paragraphs.golden", jsonOf(t, Paragraphs(tr)))
	golden(t, "search.golden", jsonOf(t, Search(tr, []string{"new york", "hello", "$25", "r&d", "absent", "NEW  YORK"})))
}
