package buildtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestBinary(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/hello\n\ngo 1.22\n")
	write("main.go", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n")
	t.Chdir(dir)
	bin := Binary(t, ".")
	if again := Binary(t, "."); again != bin {
		t.Errorf("second build %q, want the first %q", again, bin)
	}
	out, err := exec.Command(bin).Output()
	if err != nil || strings.TrimSpace(string(out)) != "hello" {
		t.Fatalf("running %s: %q %v", bin, out, err)
	}
	os.RemoveAll(filepath.Dir(bin))

	// A package that does not compile: the error carries the compiler's
	// words.
	write("main.go", "package main\n\nfunc main() { undefinedThing() }\n")
	_, err = goBuild(".")
	if err == nil || !strings.Contains(err.Error(), "undefinedThing") {
		t.Errorf("broken package: %v", err)
	}
}
