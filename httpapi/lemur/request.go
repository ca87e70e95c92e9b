package lemur

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/earshot-dev/earshot/transcribe"
)

// Limits of a request, as the Go SDK v1.10.0 documents them.
const (
	// MaxOutputSize is the largest max_output_size ("up to 4000").
	MaxOutputSize = 4000
	// DefaultOutputSize is max_output_size when the request has none
	// (the service's default), or a quarter of the model's context when
	// that is smaller.
	DefaultOutputSize = 2000
	// MaxTranscripts is the most transcript_ids in one request.
	MaxTranscripts = 100
	// MaxQuestions is the most questions in one question-answer request.
	MaxQuestions = 100
)

// Kind is one of the four generate endpoints.
type Kind string

// The generate endpoints: POST /lemur/v3/generate/{kind}.
const (
	KindTask           Kind = "task"
	KindSummary        Kind = "summary"
	KindQuestionAnswer Kind = "question-answer"
	KindActionItems    Kind = "action-items"
)

// params is the body of every generate endpoint (the Go SDK's
// LeMURBaseParams and each endpoint's own fields).
type params struct {
	TranscriptIDs []string        `json:"transcript_ids"`
	InputText     *string         `json:"input_text"`
	Context       json.RawMessage `json:"context"`
	FinalModel    *string         `json:"final_model"`
	MaxOutputSize *int64          `json:"max_output_size"`
	Temperature   *float64        `json:"temperature"`
	Prompt        *string         `json:"prompt"`
	AnswerFormat  *string         `json:"answer_format"`
	Questions     []question      `json:"questions"`
}

// question is one entry of "questions" (LeMURQuestion).
type question struct {
	Question      *string         `json:"question"`
	Context       json.RawMessage `json:"context"`
	AnswerFormat  *string         `json:"answer_format"`
	AnswerOptions []string        `json:"answer_options"`
}

// decode reads the JSON body: one object, at most Config.MaxRequestBytes;
// a wrong type is a 400 naming the field.
func (h *Handler) decode(w http.ResponseWriter, r *http.Request, p *params) error {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.cfg.MaxRequestBytes))
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return &apiError{status: http.StatusRequestEntityTooLarge, msg: fmt.Sprintf("The request body is larger than %d bytes", h.cfg.MaxRequestBytes)}
	case err != nil:
		return badRequest("The request body could not be read")
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return badRequest("The request body must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(p); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return badRequest("%s: must be %s, not a JSON %s", te.Field, jsonType(te.Type.String()), te.Value)
		}
		return badRequest("The request body is not valid JSON")
	}
	if dec.More() {
		return badRequest("The request body must be one JSON object")
	}
	return nil
}

func jsonType(goType string) string {
	switch strings.TrimLeft(goType, "*") {
	case "string":
		return "a string"
	case "int64":
		return "an integer"
	case "float64":
		return "a number"
	case "[]string":
		return "an array of strings"
	case "[]lemur.question":
		return "an array of question objects"
	case "lemur.question":
		return "a question object"
	}
	return "another type"
}

// validate checks what does not depend on the transcripts, returning the
// effective max_output_size and temperature.
func (h *Handler) validate(kind Kind, p *params) (maxOut int, temp float64, err error) {
	switch {
	case len(p.TranscriptIDs) == 0 && p.InputText == nil:
		return 0, 0, badRequest("transcript_ids or input_text is required: give the ids of completed transcripts, or the text itself")
	case len(p.TranscriptIDs) > 0 && p.InputText != nil:
		return 0, 0, badRequest("Use either transcript_ids or input_text, not both")
	case len(p.TranscriptIDs) > MaxTranscripts:
		return 0, 0, badRequest("transcript_ids: at most %d transcripts, got %d", MaxTranscripts, len(p.TranscriptIDs))
	case p.InputText != nil && strings.TrimSpace(*p.InputText) == "":
		return 0, 0, badRequest("input_text is empty")
	case p.InputText != nil && !utf8.ValidString(*p.InputText):
		return 0, 0, badRequest("input_text is not valid UTF-8")
	}
	for i, id := range p.TranscriptIDs {
		if strings.TrimSpace(id) == "" {
			return 0, 0, badRequest("transcript_ids[%d] is empty", i)
		}
	}
	if p.FinalModel != nil && (strings.TrimSpace(*p.FinalModel) == "" || len(*p.FinalModel) > 100) {
		return 0, 0, badRequest("final_model must be a model name of 1 to 100 characters")
	}
	maxOut = min(DefaultOutputSize, h.cfg.ContextTokens/4)
	if p.MaxOutputSize != nil {
		if *p.MaxOutputSize < 1 || *p.MaxOutputSize > MaxOutputSize {
			return 0, 0, badRequest("max_output_size must be between 1 and %d tokens, got %d", MaxOutputSize, *p.MaxOutputSize)
		}
		maxOut = int(*p.MaxOutputSize)
	}
	if p.Temperature != nil {
		if *p.Temperature < 0 || *p.Temperature > 1 {
			return 0, 0, badRequest("temperature must be between 0.0 and 1.0, got %v", *p.Temperature)
		}
		temp = *p.Temperature
	}
	if len(p.Context) > 0 && !bytes.Equal(p.Context, []byte("null")) && contextText(p.Context) == "" {
		return 0, 0, badRequest("context is empty")
	}
	switch kind {
	case KindTask:
		if p.Prompt == nil || strings.TrimSpace(*p.Prompt) == "" {
			return 0, 0, badRequest("prompt is required: the task for the model")
		}
	case KindQuestionAnswer:
		if len(p.Questions) == 0 {
			return 0, 0, badRequest("questions is required: at least one question")
		}
		if len(p.Questions) > MaxQuestions {
			return 0, 0, badRequest("questions: at most %d questions, got %d", MaxQuestions, len(p.Questions))
		}
		for i, q := range p.Questions {
			switch {
			case q.Question == nil || strings.TrimSpace(*q.Question) == "":
				return 0, 0, badRequest("questions[%d].question is required", i)
			case q.AnswerFormat != nil && len(q.AnswerOptions) > 0:
				return 0, 0, badRequest("questions[%d]: answer_format and answer_options cannot be used together", i)
			case len(q.AnswerOptions) == 1:
				return 0, 0, badRequest("questions[%d].answer_options: give at least two options", i)
			}
			for j, o := range q.AnswerOptions {
				if strings.TrimSpace(o) == "" {
					return 0, 0, badRequest("questions[%d].answer_options[%d] is empty", i, j)
				}
			}
		}
	}
	return maxOut, temp, nil
}

// contextText is the request's context as the prompt shows it: a string
// as it is, any other JSON value as compact JSON.
func contextText(raw json.RawMessage) string {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return ""
	}
	return b.String()
}

// source is one input document: a transcript's lines or the input_text.
type source struct {
	label string   // "Transcript 1" or ""
	lines []string // utterances ("Speaker A: ...") or the text
}

// sources reads the project's transcripts (completed, not deleted) or
// the input_text. The text of a transcript made with redact_pii is
// already redacted (the pipeline redacts the words before anything is
// stored), so only redacted text is sent to the model.
func (h *Handler) sources(ctx context.Context, project string, p *params) ([]source, error) {
	if p.InputText != nil {
		return []source{{lines: []string{strings.TrimSpace(*p.InputText)}}}, nil
	}
	var out []source
	seen := map[string]bool{}
	for _, id := range p.TranscriptIDs {
		if seen[id] {
			continue
		}
		seen[id] = true
		if uuid.Validate(id) != nil {
			return nil, &apiError{status: http.StatusNotFound, msg: fmt.Sprintf("Transcript %q not found", id)}
		}
		sctx, cancel := context.WithTimeout(ctx, h.cfg.StoreTimeout)
		t, err := h.cfg.Service.Get(sctx, project, id)
		cancel()
		switch {
		case errors.Is(err, transcribe.ErrNotFound):
			return nil, &apiError{status: http.StatusNotFound, msg: fmt.Sprintf("Transcript %s not found", id)}
		case err != nil:
			return nil, err
		case t.IsDeleted:
			return nil, badRequest("Transcript %s was deleted; LeMUR needs completed transcripts", id)
		case t.Status != transcribe.StatusCompleted:
			return nil, badRequest("Transcript %s is %s; LeMUR needs completed transcripts", id, t.Status)
		}
		src := source{label: fmt.Sprintf("Transcript %d", len(out)+1)}
		if len(t.Utterances) > 0 {
			for _, u := range t.Utterances {
				if s := strings.TrimSpace(u.Text); s != "" {
					src.lines = append(src.lines, "Speaker "+u.Speaker+": "+s)
				}
			}
		} else if t.Text != nil && strings.TrimSpace(*t.Text) != "" {
			src.lines = []string{strings.TrimSpace(*t.Text)}
		}
		if len(src.lines) == 0 {
			src.lines = []string{"(no speech)"}
		}
		out = append(out, src)
	}
	return out, nil
}
