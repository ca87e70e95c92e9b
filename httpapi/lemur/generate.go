package lemur

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/earshot-dev/earshot/transcribe/analysis/llm"
)

// Tokens are estimated from characters: three characters a token, fewer
// than English text has (about four) so that numbers, names and other
// languages, which take more tokens, still fit. A model that refuses a
// prompt as too long anyway gets it again in parts half the size.
const charsPerToken = 3

func estTokens(s string) int { return (utf8.RuneCountInString(s) + charsPerToken - 1) / charsPerToken }

// minPartTokens is the smallest part of the input worth a model call.
const minPartTokens = 200

// result is what a generate request produced.
type result struct {
	text    string // task, summary, action items
	answers []QA   // question-answer
	usage   usage
	parts   int // 1 when the input was read at once
	smaller bool
}

// usage counts tokens over every model call: what the server reported,
// or the estimate from characters for a call whose answer had none.
type usage struct {
	mu            sync.Mutex
	input, output int64
	estimated     bool
}

func (u *usage) add(prompt []llm.Message, answer string, got *llm.Usage) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if got != nil {
		u.input += got.PromptTokens
		u.output += got.CompletionTokens
		return
	}
	for _, m := range prompt {
		u.input += int64(estTokens(m.Content))
	}
	u.output += int64(estTokens(answer))
	u.estimated = true
}

// job is one generate request on its way through the model.
type job struct {
	h       *Handler
	kind    Kind
	p       *params
	client  *llm.Client
	maxOut  int
	context string // the request's context, "" for none
	usage   *usage
}

// budget is the part of the model's context left for input text once
// the answer (maxOut), the instructions and the context are counted, with
// a margin of a twentieth for the estimate and the chat template.
func (j *job) budget() int {
	instr := max(estTokens(instruction(j.kind, j.p)), estTokens(partInstruction(j.kind, j.p, 99, 99)), estTokens(combineHead(99)))
	over := estTokens(systemPrompt) + instr + estTokens(j.context) + 32
	return j.h.cfg.ContextTokens - j.maxOut - over - j.h.cfg.ContextTokens/20
}

// run answers the request: in one call when the input fits the budget,
// otherwise map-reduce (see mapReduce); a model that refuses a prompt as
// longer than its context gets parts half as large, three times at most.
func (j *job) run(ctx context.Context, srcs []source) (*result, error) {
	budget := j.budget()
	if budget < minPartTokens {
		return nil, badRequest("The request leaves no room for the transcripts in the model's context of %d tokens: "+
			"the instructions (prompt, questions, answer formats) take about %d tokens, context about %d and max_output_size %d",
			j.h.cfg.ContextTokens, max(estTokens(instruction(j.kind, j.p)), estTokens(partInstruction(j.kind, j.p, 99, 99))),
			estTokens(j.context), j.maxOut)
	}
	smaller, halvings := false, 0
	for {
		parts := pack(srcs, budget)
		if len(parts) > j.h.cfg.MaxParts {
			field := "transcript_ids"
			if j.p.InputText != nil {
				field = "input_text"
			}
			return nil, badRequest("%s is too long: the text (about %d tokens) would take %d parts of the model's context; this server reads at most %d parts (%d tokens each) for one request",
				field, tokensOf(srcs), len(parts), j.h.cfg.MaxParts, budget)
		}
		res, err := j.answer(ctx, parts, budget)
		if err != nil && isContextOverflow(err) && halvings < 3 && budget/2 >= minPartTokens && ctx.Err() == nil {
			budget /= 2
			smaller, halvings = true, halvings+1
			continue
		}
		if res != nil {
			res.smaller = smaller
		}
		return res, err
	}
}

func tokensOf(srcs []source) int {
	n := 0
	for _, s := range srcs {
		for _, l := range s.lines {
			n += estTokens(l) + 1
		}
	}
	return n
}

// answer makes the final answer from parts of at most budget tokens.
func (j *job) answer(ctx context.Context, parts []string, budget int) (*result, error) {
	res := &result{parts: len(parts)}
	input := parts[0]
	if len(parts) > 1 {
		notes, err := j.mapReduce(ctx, parts, budget)
		if err != nil {
			return nil, err
		}
		input = notes
	}
	user := j.frame(input, instruction(j.kind, j.p))
	var err error
	// A complete answer that cannot be used (empty, not the JSON asked
	// for) is asked for once more: small models miss a format now and
	// then.
	for try := 0; try < 2; try++ {
		var out string
		if out, err = j.call(ctx, user, j.kind == KindQuestionAnswer); err != nil {
			return nil, err
		}
		if j.kind == KindQuestionAnswer {
			res.answers, err = parseAnswers(out, j.p.Questions)
		} else {
			res.text, err = cleanAnswer(out)
		}
		if !errors.Is(err, errUnusable) {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// mapReduce reads each part on its own for notes (partInstruction), then
// returns the notes as the input of the final call: the notes of every
// part when they fit the budget, otherwise the notes read again, in
// parts, for notes of notes (three rounds at most).
func (j *job) mapReduce(ctx context.Context, parts []string, budget int) (string, error) {
	for round := 0; ; round++ {
		notes := make([]string, len(parts))
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(j.h.cfg.Parallel)
		for i, part := range parts {
			g.Go(func() error {
				out, err := j.call(gctx, j.frame(part, partInstruction(j.kind, j.p, i+1, len(parts))), false)
				if err != nil {
					return err
				}
				if notes[i] = strings.TrimSpace(llm.PlainText(out)); notes[i] == "" {
					notes[i] = "(nothing)"
				}
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return "", err
		}
		var b strings.Builder
		b.WriteString(combineHead(len(parts)))
		units := make([]source, len(notes))
		for i, n := range notes {
			fmt.Fprintf(&b, "\n\n--- Notes of part %d ---\n%s", i+1, n)
			units[i] = source{label: fmt.Sprintf("Notes of part %d", i+1), lines: strings.Split(n, "\n")}
		}
		if estTokens(b.String()) <= budget {
			return b.String(), nil
		}
		if round == 2 {
			return "", fmt.Errorf("%w: the notes of %d parts are still longer than the model's context after three rounds", errUnusable, len(parts))
		}
		parts = pack(units, budget)
	}
}

// frame is the user message: the context, the input, then what to do.
func (j *job) frame(input, instr string) string {
	var b strings.Builder
	if j.context != "" {
		b.WriteString("Context from the user: " + j.context + "\n\n")
	}
	b.WriteString(input)
	b.WriteString("\n\n")
	b.WriteString(instr)
	return b.String()
}

func (j *job) call(ctx context.Context, user string, wantJSON bool) (string, error) {
	msgs := []llm.Message{{Role: "system", Content: systemPrompt}, {Role: "user", Content: user}}
	out, u, err := j.client.CompleteUsage(ctx, msgs, wantJSON)
	if err != nil {
		return "", err
	}
	j.usage.add(msgs, out, u)
	return out, nil
}

// pack cuts the sources into parts of at most budget tokens (estimated),
// line by line; a line longer than a part is cut after a sentence where
// it can be, else between words, else between characters. Each part
// names the transcript its lines come from ("=== Transcript 2
// (continued) ===").
func pack(srcs []source, budget int) []string {
	limit := budget * charsPerToken // in characters
	var parts []string
	var cur strings.Builder
	n := 0 // characters in cur
	flush := func() {
		if n > 0 {
			parts = append(parts, strings.TrimRight(cur.String(), "\n"))
			cur.Reset()
			n = 0
		}
	}
	write := func(s string) {
		cur.WriteString(s)
		cur.WriteByte('\n')
		n += utf8.RuneCountInString(s) + 1
	}
	for _, src := range srcs {
		header := func(cont bool) {
			if src.label == "" {
				return
			}
			if cont {
				write("=== " + src.label + " (continued) ===")
			} else {
				write("=== " + src.label + " ===")
			}
		}
		if n > 0 && n+len(src.label)+20 > limit {
			flush()
		}
		header(false)
		for _, line := range src.lines {
			for _, piece := range cutLine(line, limit/2) {
				l := utf8.RuneCountInString(piece) + 1
				if n > 0 && n+l > limit {
					flush()
					header(true)
				}
				write(piece)
			}
		}
	}
	flush()
	return parts
}

// cutLine cuts s into pieces of at most limit characters: after the last
// sentence end (". ", "? ", "! ") in the second half of a piece, else at
// the last space, else anywhere.
func cutLine(s string, limit int) []string {
	limit = max(limit, 1)
	var out []string
	for {
		// The byte offset of the limit-th rune; -1 when s is no longer
		// (only the head is scanned: linear in the whole line).
		end, k := -1, 0
		for i := range s {
			if k == limit {
				end = i
				break
			}
			k++
		}
		if end < 0 {
			break
		}
		head := s[:end]
		cut := -1
		for _, mark := range []string{". ", "? ", "! "} {
			if k := strings.LastIndex(head, mark); k >= 0 && k+2 > cut && k >= end/2 {
				cut = k + 2
			}
		}
		if cut < 0 {
			if k := strings.LastIndex(head, " "); k > 0 {
				cut = k + 1
			} else {
				cut = end
			}
		}
		out = append(out, strings.TrimSpace(s[:cut]))
		s = strings.TrimSpace(s[cut:])
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}
