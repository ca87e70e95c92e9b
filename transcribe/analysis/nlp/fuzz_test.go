package nlp_test

import (
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp"
)

// FuzzTokens checks that tokenizing and tagging any words never panics,
// that a token's parts rebuild the word, and that every token is tagged.
func FuzzTokens(f *testing.F) {
	for _, s := range []string{"Hello, world.", "\"Don’t!\" [PERSON_NAME]. #####", "$25.50 50% U.S. e-mail — …", "can't won't cannot y'all's", "( [ ] ) \x00 \xff", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var ws []transcribe.Word
		for i, w := range strings.Split(s, " ") {
			ws = append(ws, transcribe.Word{Text: w, Start: int64(i) * 10, End: int64(i)*10 + 5})
		}
		toks := nlp.Tokens(ws)
		if len(toks) != len(ws) {
			t.Fatalf("%d tokens for %d words", len(toks), len(ws))
		}
		for i, tk := range toks {
			rebuilt := tk.Pre + tk.Text + tk.Post
			if trimmed := strings.TrimSpace(ws[i].Text); rebuilt != trimmed {
				t.Fatalf("word %q rebuilt as %q", ws[i].Text, rebuilt)
			}
		}
		if err := nlp.Tag(toks); err != nil {
			t.Fatal(err)
		}
		for _, tk := range toks {
			if tk.Tag == "" {
				t.Fatalf("untagged token %+v", tk)
			}
		}
	})
}
