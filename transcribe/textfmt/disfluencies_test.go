package textfmt

import (
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
)

func TestDisfluencies(t *testing.T) {
	cases := []struct{ in, want string }{
		{"um i think uh we should", "i think we should"},
		{"Umm, well hmm. mhm yes", "well. yes"},
		{"uh huh that is right", "that is right"},
		{"huh? what", "huh? what"},
		{"it was fine um.", "it was fine."},
		{"it was fine, um.", "it was fine."},
		{"it was fine. um.", "it was fine."},
		{"uhm hm mm er erm Uh-huh", ""},
		{"summer umbrella", "summer umbrella"},
	}
	for _, c := range cases {
		got := text(Disfluencies{}.Remove(words(c.in)))
		if got != c.want {
			t.Errorf("Remove(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if !IsFiller("UM,") || IsFiller("umbrella") {
		t.Error("IsFiller")
	}
}

func TestDisfluenciesEnabled(t *testing.T) {
	if !(Disfluencies{}).Enabled(params(nil)) {
		t.Error("fillers must be removed by default")
	}
	if (Disfluencies{}).Enabled(params(func(p *transcribe.TranscriptParams) { p.Disfluencies = transcribe.Ptr(true) })) {
		t.Error("disfluencies true must keep fillers")
	}
}
