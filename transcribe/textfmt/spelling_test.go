package textfmt

import (
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
)

func TestCustomSpelling(t *testing.T) {
	sp := []transcribe.CustomSpelling{
		{From: []string{"sarah"}, To: "Sara"},
		{From: []string{"assembly ai", "assembly a i"}, To: "AssemblyAI"},
		{From: []string{"k eight s"}, To: "k8s"},
		{From: []string{"Inc"}, To: "Inc."},
	}
	cases := []struct{ in, want string }{
		{"My name is Sarah.", "My name is Sara."},
		{"we use Assembly AI, daily", "we use AssemblyAI, daily"},
		{"we use assembly a i.", "we use AssemblyAI."},
		{"run k eight s now", "run k8s now"},
		{"acme inc.", "acme Inc."},
		{"assembly. ai", "assembly. ai"}, // never across a sentence end
		{"sarahs", "sarahs"},
	}
	for _, c := range cases {
		got := text(CustomSpelling{}.Respell(words(c.in), sp))
		if got != c.want {
			t.Errorf("Respell(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	ws := words("use assembly a i now")
	out := CustomSpelling{}.Respell(ws, sp)
	if out[1].Start != ws[1].Start || out[1].End != ws[3].End {
		t.Errorf("span %d-%d, want %d-%d", out[1].Start, out[1].End, ws[1].Start, ws[3].End)
	}
	if (CustomSpelling{}).Enabled(params(nil)) {
		t.Error("enabled without custom_spelling")
	}
}
