package lemur

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/earshot-dev/earshot/transcribe/analysis/llm"
)

// systemPrompt keeps the model to the text it is given.
const systemPrompt = "You work on transcripts of recorded speech. Use only what the transcripts and the user's context say; " +
	"never invent names, numbers or facts. Text such as [PERSON_NAME] or #### was redacted on purpose: keep it as it is " +
	"and never guess what it hid. Answer in plain text, without Markdown headings or an introduction."

// instruction is what each kind asks of the whole input.
func instruction(kind Kind, p *params) string {
	switch kind {
	case KindTask:
		return "Task: " + strings.TrimSpace(*p.Prompt)
	case KindSummary:
		return "Summarize the transcripts." + answerFormat(p.AnswerFormat, "")
	case KindActionItems:
		return "List the action items of the transcripts: what someone agreed, promised or was asked to do, " +
			"with who is to do it when the transcripts say." + answerFormat(p.AnswerFormat, "Bullet Points")
	default: // question-answer
		var b strings.Builder
		b.WriteString("Answer each question below from the transcripts. Answer with a JSON object of this form and nothing else: " +
			`{"answers": [{"question": "<the question>", "answer": "<its answer>"}]}` +
			", one entry per question, in the order given. If the transcripts do not say, answer that they do not say.\n")
		for i, q := range p.Questions {
			fmt.Fprintf(&b, "%d. %s", i+1, strings.TrimSpace(*q.Question))
			if c := contextText(q.Context); c != "" {
				fmt.Fprintf(&b, " (Context: %s)", c)
			}
			if q.AnswerFormat != nil && strings.TrimSpace(*q.AnswerFormat) != "" {
				fmt.Fprintf(&b, " (Answer format: %s)", strings.TrimSpace(*q.AnswerFormat))
			}
			if len(q.AnswerOptions) > 0 {
				fmt.Fprintf(&b, " (Answer with exactly one of: %s)", strings.Join(q.AnswerOptions, " | "))
			}
			b.WriteByte('\n')
		}
		return strings.TrimRight(b.String(), "\n")
	}
}

func answerFormat(f *string, def string) string {
	if f != nil && strings.TrimSpace(*f) != "" {
		return " Answer format: " + strings.TrimSpace(*f) + "."
	}
	if def != "" {
		return " Answer format: " + def + "."
	}
	return ""
}

// partInstruction is what each kind asks of one part of a long input
// (the map step): notes the reduce step combines.
func partInstruction(kind Kind, p *params, i, n int) string {
	head := fmt.Sprintf("This is part %d of %d of the transcripts, which were too long to read at once. ", i, n)
	switch kind {
	case KindTask:
		return head + "Write down everything in this part that the task below needs, as short notes; the notes of every part " +
			"will be combined to carry out the task.\nTask: " + strings.TrimSpace(*p.Prompt)
	case KindSummary:
		return head + "Summarize this part in a few sentences; the summaries of every part will be combined."
	case KindActionItems:
		return head + "List the action items of this part, one per line: what someone agreed, promised or was asked to do, " +
			"with who is to do it when it says. Write \"none\" if there are none."
	default:
		var b strings.Builder
		b.WriteString(head + "For each question below, write what this part says that answers it, one line per question " +
			"starting with its number; write \"not in this part\" when it says nothing.\n")
		for i, q := range p.Questions {
			fmt.Fprintf(&b, "%d. %s\n", i+1, strings.TrimSpace(*q.Question))
		}
		return strings.TrimRight(b.String(), "\n")
	}
}

// combineHead introduces the notes of the parts to the reduce step.
func combineHead(n int) string {
	return fmt.Sprintf("The transcripts were too long to read at once, so they were cut into %d parts and each part was read on its own. "+
		"Below are the notes made from each part, in order. Use them as the transcripts.", n)
}

// cleanAnswer makes a free-form answer plain text (llm.PlainText) and
// refuses one with nothing left.
func cleanAnswer(s string) (string, error) {
	s = strings.TrimSpace(llm.PlainText(s))
	if s == "" {
		return "", fmt.Errorf("%w: it was empty once cleaned", errUnusable)
	}
	return s, nil
}

// QA is one answer of question-answer, the SDK's LeMURQuestionAnswer.
type QA struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// parseAnswers reads the answers of question-answer: a JSON object with
// "answers" (or a bare array), possibly fenced or with text around it,
// with as many entries as questions. An answer to a question with
// answer_options must name one of them; it is returned as the option.
func parseAnswers(out string, qs []question) ([]QA, error) {
	s := strings.TrimSpace(out)
	if i := strings.Index(s, "</think>"); i >= 0 {
		s = s[i+len("</think>"):]
	}
	var entries []json.RawMessage
	if i, j := strings.Index(s, "{"), strings.LastIndex(s, "}"); i >= 0 && j > i {
		var obj struct {
			Answers []json.RawMessage `json:"answers"`
		}
		if json.Unmarshal([]byte(s[i:j+1]), &obj) == nil {
			entries = obj.Answers
		}
	}
	if entries == nil {
		if i, j := strings.Index(s, "["), strings.LastIndex(s, "]"); i >= 0 && j > i {
			_ = json.Unmarshal([]byte(s[i:j+1]), &entries)
		}
	}
	if len(entries) != len(qs) {
		return nil, fmt.Errorf("%w: %d answers for %d questions, or not the JSON asked for", errUnusable, len(entries), len(qs))
	}
	res := make([]QA, len(qs))
	for i, raw := range entries {
		var e struct {
			Answer any `json:"answer"`
		}
		var text string
		if json.Unmarshal(raw, &e) == nil && e.Answer != nil {
			if s, ok := e.Answer.(string); ok {
				text = s
			} else {
				b, _ := json.Marshal(e.Answer)
				text = string(b)
			}
		} else if json.Unmarshal(raw, &text) != nil {
			return nil, fmt.Errorf("%w: answer %d has no \"answer\"", errUnusable, i+1)
		}
		text = strings.TrimSpace(llm.PlainText(text))
		if text == "" {
			return nil, fmt.Errorf("%w: answer %d is empty", errUnusable, i+1)
		}
		if opts := qs[i].AnswerOptions; len(opts) > 0 {
			o, ok := pickOption(text, opts)
			if !ok {
				return nil, fmt.Errorf("%w: answer %d %q is none of the options %q", errUnusable, i+1, text, opts)
			}
			text = o
		}
		res[i] = QA{Question: strings.TrimSpace(*qs[i].Question), Answer: text}
	}
	return res, nil
}

// pickOption returns the option an answer names: the option itself (case
// and a final period aside), or the one option the answer contains as
// words.
func pickOption(ans string, opts []string) (string, bool) {
	norm := func(s string) string { return strings.ToLower(strings.Trim(strings.TrimSpace(s), ".!\"'")) }
	a := norm(ans)
	for _, o := range opts {
		if norm(o) == a {
			return o, true
		}
	}
	words := " " + strings.Join(strings.FieldsFunc(a, func(r rune) bool {
		return !(r == '-' || r == '\'' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 127)
	}), " ") + " "
	found, n := "", 0
	for _, o := range opts {
		ow := strings.Join(strings.FieldsFunc(norm(o), func(r rune) bool {
			return !(r == '-' || r == '\'' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 127)
		}), " ")
		if ow != "" && strings.Contains(words, " "+ow+" ") {
			found, n = o, n+1
		}
	}
	return found, n == 1
}
