package childenv

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestMinimal: secrets in the parent's environment never reach a child,
// the variables a child needs do, and extra entries override.
func TestMinimal(t *testing.T) {
	t.Setenv("EARSHOT_API_KEYS", "secret-key-0123456789:p")
	t.Setenv("EARSHOT_ENCRYPTION_KEY", "c2VjcmV0")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "aws-secret")
	t.Setenv("PATH", "/usr/bin:/bin")
	t.Setenv("TMPDIR", "/tmp/x")
	t.Setenv("LANG", "de_DE.UTF-8")
	env := Minimal("TMPDIR=/tmp/y", "EXTRA=1")
	for _, e := range env {
		if strings.Contains(e, "secret") || strings.HasPrefix(e, "EARSHOT_") || strings.HasPrefix(e, "AWS_") {
			t.Errorf("child environment holds %q", e)
		}
	}
	for _, want := range []string{"PATH=/usr/bin:/bin", "TMPDIR=/tmp/y", "EXTRA=1", "LANG=C", "LC_ALL=C"} {
		if !slices.Contains(env, want) {
			t.Errorf("child environment %q lacks %q", env, want)
		}
	}
	if slices.Contains(env, "TMPDIR=/tmp/x") || slices.Contains(env, "LANG=de_DE.UTF-8") {
		t.Errorf("overridden entries kept: %q", env)
	}

	// What a real child sees.
	cmd := exec.Command("/usr/bin/env")
	cmd.Env = Minimal()
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("/usr/bin/env: %v", err)
	}
	if strings.Contains(string(out), "secret") || !strings.Contains(string(out), "PATH=/usr/bin:/bin\n") {
		t.Errorf("child's environment:\n%s", out)
	}
}
