package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// maxChooseText caps the transcript text sent with a Choose request (about
// 6,000 tokens); the rest is cut at a line end.
const maxChooseText = 24000

// choosePrompt asks for a JSON array of options copied from a list.
const choosePrompt = "You judge transcripts of recorded speech. Use only what the transcript says. " +
	"Answer with a JSON array of strings, each copied exactly from the list of options, and nothing else."

// Choose asks the model which of options best fit text for task (for
// example "the key phrases of this transcript" or "the topics this
// transcript is about"), at most max of them, best first, and returns
// them as they are written in options. The answer is untrusted: only
// entries equal to an option (ignoring case and surrounding space) are
// kept, each once, at most max; a JSON array found inside a code fence or
// surrounding text is read. It fails as Complete does, and with
// ErrUnusable when the answer holds no array or no option. An empty
// answer array is not an error: the model found that none fits. The key
// phrase, topic and content safety stages use it through their Chooser
// option, and keep their own result on any error.
func (c *Client) Choose(ctx context.Context, task, text string, options []string, max int) ([]string, error) {
	if len(options) == 0 || max <= 0 {
		return []string{}, nil
	}
	if len(text) > maxChooseText {
		cut := strings.LastIndexByte(text[:maxChooseText], '\n')
		if cut <= 0 {
			cut = maxChooseText
			for cut > 0 && !utf8.RuneStart(text[cut]) {
				cut--
			}
		}
		text = text[:cut]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Task: choose %s, at most %d, most important first, from the options below.\n\nOptions:\n", task, max)
	for _, o := range options {
		b.WriteString("- " + oneLine(o) + "\n")
	}
	b.WriteString("\nTranscript:\n" + text)
	out, err := c.Complete(ctx, []Message{
		{Role: "system", Content: choosePrompt},
		{Role: "user", Content: b.String()},
	}, false)
	if err != nil {
		return nil, err
	}
	return parseChoice(out, options, max)
}

// parseChoice reads a JSON array of strings from a model's answer and
// keeps the entries that name an option.
func parseChoice(out string, options []string, max int) ([]string, error) {
	s := strings.TrimSpace(thinkBlock.ReplaceAllString(out, ""))
	if m := fence.FindStringSubmatch(s); m != nil {
		s = strings.TrimSpace(m[1])
	}
	i, j := strings.IndexByte(s, '['), strings.LastIndexByte(s, ']')
	if i < 0 || j < i {
		return nil, fmt.Errorf("%w: no JSON array in %q", ErrUnusable, short(s))
	}
	var raw []any
	if err := json.Unmarshal([]byte(s[i:j+1]), &raw); err != nil {
		return nil, fmt.Errorf("%w: %q is not a JSON array: %v", ErrUnusable, short(s[i:j+1]), err)
	}
	byKey := make(map[string]string, len(options))
	for _, o := range options {
		byKey[strings.ToLower(strings.TrimSpace(o))] = o
	}
	chosen := []string{}
	seen := map[string]bool{}
	for _, r := range raw {
		str, ok := r.(string)
		if !ok {
			continue
		}
		o, ok := byKey[strings.ToLower(strings.TrimSpace(str))]
		if !ok || seen[o] {
			continue
		}
		seen[o] = true
		chosen = append(chosen, o)
		if len(chosen) == max {
			break
		}
	}
	if len(chosen) == 0 && len(raw) > 0 {
		return nil, fmt.Errorf("%w: none of %q is one of the options", ErrUnusable, short(s[i:j+1]))
	}
	return chosen, nil
}
