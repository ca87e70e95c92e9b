package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/earshot-dev/earshot/transcribe/analysis/summary"

	"github.com/earshot-dev/earshot/transcribe"
)

var _ summary.Generator = (*Client)(nil)

// systemPrompt keeps the model to the transcript.
const systemPrompt = "You write summaries of transcripts of recorded speech. Use only what the transcript says; " +
	"never add facts. Speakers are named as in the transcript (\"Speaker A\"). Answer with the summary only: " +
	"no introduction, no notes, no Markdown headings."

// typeInstructions says what each summary_type looks like (the API's own
// descriptions, made into instructions).
var typeInstructions = map[transcribe.SummaryType]string{
	transcribe.SummaryBullets:        "Write a bulleted summary with the most important points: 3 to 7 lines, each starting with \"- \".",
	transcribe.SummaryBulletsVerbose: "Write a longer bulleted list summarizing the entire transcript: 5 to 12 lines, each starting with \"- \", each one or two full sentences.",
	transcribe.SummaryGist:           "Write a gist: a few words (at most six) naming what the transcript is about, with no final period.",
	transcribe.SummaryHeadline:       "Write a single sentence summarizing the entire transcript.",
	transcribe.SummaryParagraph:      "Write a single paragraph summarizing the entire transcript.",
}

// modelInstructions says what each summary_model favours.
var modelInstructions = map[transcribe.SummaryModel]string{
	transcribe.SummaryInformative:    "Be neutral and informative, as for a presentation or lecture.",
	transcribe.SummaryConversational: "It is a conversation: say who said, asked or agreed to what, naming the speakers as labelled.",
	transcribe.SummaryCatchy:         "Make it catchy and short, like the title of a video or podcast episode.",
}

// Summarize asks the model for a summary of req.Text of type req.Type in
// the style of req.Model (unknown values mean bullets and informative)
// and tidies the answer: reasoning and code fences removed, bullets as
// "- " lines, a gist or headline on one line. It fails as Complete does,
// and with ErrUnusable when the answer has no bullet lines (bullets), is
// longer than maxGistWords words (gist), or is empty once tidied.
func (c *Client) Summarize(ctx context.Context, req summary.Request) (string, error) {
	typ, ok := typeInstructions[req.Type]
	if !ok {
		req.Type, typ = transcribe.SummaryBullets, typeInstructions[transcribe.SummaryBullets]
	}
	style, ok := modelInstructions[req.Model]
	if !ok {
		style = modelInstructions[transcribe.SummaryInformative]
	}
	out, err := c.Complete(ctx, []Message{
		{Role: "system", Content: systemPrompt},
		{Role: "user", Content: typ + " " + style + "\n\nTranscript:\n" + req.Text},
	}, false)
	if err != nil {
		return "", err
	}
	return tidy(req.Type, out)
}

// chapterPrompt asks for the three texts of one chapter as JSON.
const chapterPrompt = "This is one chapter of a transcript. Answer with a JSON object with three string fields: " +
	"\"gist\" (a few words, at most six, naming the chapter's topic, no final period), " +
	"\"headline\" (one sentence) and \"summary\" (one paragraph of two to four sentences)."

// Chapter asks the model for a chapter's gist, headline and summary as a
// JSON object (with response_format json_object unless
// Config.NoResponseFormat) and parses it, also from inside a code fence
// or surrounding text. It fails as Complete does, and with ErrUnusable
// when no object with the three non-empty fields can be read.
func (c *Client) Chapter(ctx context.Context, req summary.Request) (summary.ChapterText, error) {
	out, err := c.Complete(ctx, []Message{
		{Role: "system", Content: systemPrompt},
		{Role: "user", Content: chapterPrompt + "\n\nChapter:\n" + req.Text},
	}, true)
	if err != nil {
		return summary.ChapterText{}, err
	}
	return parseChapter(out)
}

var (
	thinkBlock = regexp.MustCompile(`(?s)<think>.*?</think>`)
	fence      = regexp.MustCompile("(?s)^```[a-zA-Z]*\\s*\n?(.*?)\\s*```$")
	listMark   = regexp.MustCompile(`^\s*(?:[-*•–]|\d{1,2}[.)])\s+`)
	preamble   = regexp.MustCompile(`(?i)^(?:here(?:'s| is| are)|sure|certainly|summary|bullets?|gist|headline)\b[^\n]*:\s*$`)
)

// clean removes what models wrap answers in: a reasoning block, a code
// fence, a preamble line ending in a colon, and markup (see plain).
func clean(s string) string {
	s = strings.TrimSpace(thinkBlock.ReplaceAllString(s, ""))
	if m := fence.FindStringSubmatch(s); m != nil {
		s = strings.TrimSpace(m[1])
	}
	lines := strings.Split(s, "\n")
	if len(lines) > 1 && preamble.MatchString(strings.TrimSpace(lines[0])) {
		lines = lines[1:]
	}
	return strings.TrimSpace(plain(strings.Join(lines, "\n")))
}

// tidy shapes an answer as the summary type requires.
func tidy(typ transcribe.SummaryType, s string) (string, error) {
	s = clean(s)
	switch typ {
	case transcribe.SummaryBullets, transcribe.SummaryBulletsVerbose:
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if loc := listMark.FindStringIndex(l); loc != nil {
				if t := strings.TrimSpace(l[loc[1]:]); t != "" {
					out = append(out, "- "+t)
				}
			}
		}
		if len(out) == 0 {
			return "", fmt.Errorf("%w: no bullet lines in %q", ErrUnusable, short(s))
		}
		if most := maxBullets[typ]; len(out) > most {
			return "", fmt.Errorf("%w: %d bullet lines (at most %d)", ErrUnusable, len(out), most)
		}
		return strings.Join(out, "\n"), nil
	case transcribe.SummaryGist:
		s = strings.TrimRight(trimQuotes(oneLine(s)), ".")
		if n := len(strings.Fields(s)); n == 0 || n > maxGistWords {
			return "", fmt.Errorf("%w: %q is not a gist", ErrUnusable, short(s))
		}
		return s, nil
	case transcribe.SummaryHeadline:
		s = trimQuotes(oneLine(s))
	default: // paragraph
		s = strings.Join(strings.Fields(s), " ")
	}
	if s == "" {
		return "", fmt.Errorf("%w: empty answer", ErrUnusable)
	}
	return s, nil
}

// trimQuotes returns s on one line with single spaces (a \r or a tab
// inside a line is a space), without the quotes, # marks and spaces
// around it.
func trimQuotes(s string) string {
	return strings.Trim(strings.Join(strings.Fields(s), " "), "\"'“”# ")
}

// oneLine returns the first non-empty line without list marks.
func oneLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(listMark.ReplaceAllString(l, "")); l != "" {
			return l
		}
	}
	return ""
}

func short(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// parseChapter reads {"gist", "headline", "summary"} from an answer,
// taking the outermost {...} when there is text around it.
func parseChapter(s string) (summary.ChapterText, error) {
	s = clean(s)
	if i, j := strings.Index(s, "{"), strings.LastIndex(s, "}"); i >= 0 && j > i {
		s = s[i : j+1]
	}
	var v struct {
		Gist     string `json:"gist"`
		Headline string `json:"headline"`
		Summary  string `json:"summary"`
	}
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return summary.ChapterText{}, fmt.Errorf("%w: chapter is not a JSON object: %v", ErrUnusable, err)
	}
	one := func(s string) string { return strings.Join(strings.Fields(plain(s)), " ") }
	ct := summary.ChapterText{
		Gist:     strings.TrimRight(one(v.Gist), "."),
		Headline: one(v.Headline),
		Summary:  one(v.Summary),
	}
	if ct.Gist == "" || ct.Headline == "" || ct.Summary == "" {
		return summary.ChapterText{}, fmt.Errorf("%w: chapter lacks gist, headline or summary", ErrUnusable)
	}
	return ct, nil
}

// maxGistWords is the longest generated gist accepted (the prompt asks
// for at most six words).
const maxGistWords = 10

// maxBullets is the most bullet lines accepted (the prompt asks for 3 to
// 7, and 5 to 12 verbose): an answer of pages is refused, not stored.
var maxBullets = map[transcribe.SummaryType]int{transcribe.SummaryBullets: 10, transcribe.SummaryBulletsVerbose: 16}
