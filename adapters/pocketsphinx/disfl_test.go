package pocketsphinx

import (
	"context"
	"testing"

	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe"
)

// TestDisfluencies: the fillers are in the dictionary and the language
// model; spoken fillers are recognized when Fillers are boosted (low), and
// boosting them inserts none into fluent speech.
func TestDisfluencies(t *testing.T) {
	r := rec(t)
	d, err := r.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"um", "uh", "hmm", "mhm"} {
		if d.lookup(w) == "" || d.l.ngramWid(d.lm, w) == d.l.ngramUnknownWid(d.lm) {
			t.Errorf("filler %q missing from the dictionary or language model", w)
		}
	}
	r.release(d)
	ctx := context.Background()
	boost := transcribe.RecognizeOptions{Disfluencies: true}
	found := 0
	voices := []string{"rms", "awb"}
	for _, v := range voices {
		audio := wav(t, testaudio.Speech(t, v, "well um i think uh we should go"))
		res, err := r.Recognize(ctx, audio, boost)
		if err != nil {
			t.Fatal(err)
		}
		if ok, _ := hasWord(res.Words, "um"); ok {
			found++
		}
		t.Logf("%s with Fillers boosted: %q", v, words(res.Words))
	}
	if found < len(voices) {
		t.Errorf("\"um\" recognized for %d of %d voices", found, len(voices))
	}
	fluent := wav(t, testaudio.Speech(t, "slt", "the quick brown fox jumps over the lazy dog"))
	res, err := r.Recognize(ctx, fluent, boost)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range Fillers {
		if ok, _ := hasWord(res.Words, f); ok {
			t.Errorf("filler %q inserted into fluent speech: %q", f, words(res.Words))
		}
	}
}
