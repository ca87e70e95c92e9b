package openai

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// DefaultPromptTokens is whisper's prompt limit: the decoder keeps at most
// n_text_ctx/2 = 224 tokens of prompt (OpenAI: "the model only considers
// the final 224 tokens of the prompt"; whisper.cpp trims the same way).
const DefaultPromptTokens = 224

// disfluencyPrompt is OpenAI's documented example of a prompt that makes
// whisper keep filler words ("Umm, let me think like, hmm... Okay, here's
// what I'm, like, thinking."), sent when RecognizeOptions.Disfluencies is
// set.
const disfluencyPrompt = "Umm, let me think like, hmm... Okay, here's what I'm, like, thinking."

// estimateTokens over-estimates how many tokens whisper's byte-level BPE
// (GPT-2's vocabulary) makes of s: one per word of up to four ASCII
// characters and one more per further four, two per non-ASCII rune, one per
// punctuation mark. Common English words are one token, so the estimate
// errs towards sending less than the limit, never more.
func estimateTokens(s string) int {
	n := 0
	for _, w := range strings.Fields(s) {
		letters := 0
		for _, r := range w {
			switch {
			case r >= utf8.RuneSelf:
				n += 2
			case unicode.IsLetter(r) || unicode.IsDigit(r):
				letters++
			default:
				n++
			}
		}
		if letters > 0 {
			n += 1 + (letters-1)/4
		}
	}
	return n
}

// buildPrompt makes the prompt of one request from the boost terms and the
// free-text prompt, within budget estimated tokens.
//
// Whisper reads the prompt as the transcript that came before the audio,
// so the terms go first as a comma-separated list ("Earshot, Kubernetes,
// TensorFlow.") — spellings the decoder then prefers — and the free text
// last, nearest to the audio. With both, the terms get at most half the
// budget and the text the rest; terms that do not fit are dropped from the
// end of the list (the request's order is its priority), and text that
// does not fit is cut from its start, as whisper itself would cut it. An
// empty result means no prompt.
func buildPrompt(text string, terms []string, disfluencies bool, budget int) string {
	if budget <= 0 {
		return ""
	}
	var parts []string
	if disfluencies {
		if t := estimateTokens(disfluencyPrompt); t < budget/2 {
			parts = append(parts, disfluencyPrompt)
			budget -= t
		}
	}
	text = strings.Join(strings.Fields(text), " ")
	termBudget := budget
	if text != "" {
		termBudget = max(budget/2, budget-estimateTokens(text))
	}
	var list []string
	used := 0
	seen := map[string]bool{}
	for _, t := range terms {
		t = strings.Join(strings.Fields(t), " ")
		key := strings.ToLower(t)
		if t == "" || seen[key] {
			continue
		}
		// ", " before each further term; "." after the last.
		cost := estimateTokens(t) + 1
		if used+cost > termBudget {
			break
		}
		seen[key] = true
		list = append(list, t)
		used += cost
	}
	if len(list) > 0 {
		parts = append(parts, strings.Join(list, ", ")+".")
	}
	if text != "" {
		if tail := lastTokens(text, budget-used); tail != "" {
			parts = append(parts, tail)
		}
	}
	return strings.Join(parts, " ")
}

// lastTokens returns the longest run of whole words at the end of text
// whose estimate is within budget.
func lastTokens(text string, budget int) string {
	words := strings.Fields(text)
	n := 0
	i := len(words)
	for i > 0 {
		c := estimateTokens(words[i-1])
		if n+c > budget {
			break
		}
		n += c
		i--
	}
	return strings.Join(words[i:], " ")
}
