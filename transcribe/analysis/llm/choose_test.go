package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/keyphrases"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp/nlptest"
	"github.com/earshot-dev/earshot/transcribe/analysis/safety"
	"github.com/earshot-dev/earshot/transcribe/analysis/topics"
)

// answering serves every chat completion with content as the assistant's
// answer (the shape llama-server and Ollama send).
func answering(t *testing.T, content string) *server {
	return newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"object": "chat.completion",
			"choices": []map[string]any{{
				"index": 0, "finish_reason": "stop",
				"message": map[string]string{"role": "assistant", "content": content},
			}},
		})
	})
}

func TestChoose(t *testing.T) {
	options := []string{"interest rates", "central bank", "housing market", "Bank of England"}
	for _, c := range []struct {
		name, answer string
		max          int
		want         []string
		err          error
	}{
		{"plain", `["central bank", "interest rates"]`, 5, []string{"central bank", "interest rates"}, nil},
		{"fenced with preamble", "Here you go:\n```json\n[\"Housing Market\", \"bank of england\"]\n```", 5, []string{"housing market", "Bank of England"}, nil},
		{"think block and prose", "<think>the list [x]</think>The key phrases are [\"interest rates\"] as asked.", 5, []string{"interest rates"}, nil},
		{"unknown, repeated and non-string entries dropped", `["mortgages", "central bank", "Central Bank", 3, null, "interest rates"]`, 5, []string{"central bank", "interest rates"}, nil},
		{"capped at max", `["central bank", "interest rates", "housing market"]`, 2, []string{"central bank", "interest rates"}, nil},
		{"none fits", `[]`, 5, []string{}, nil},
		{"only unknown", `["bitcoin"]`, 5, nil, ErrUnusable},
		{"no array", `central bank, interest rates`, 5, nil, ErrUnusable},
		{"broken array", `["central bank", ]`, 5, nil, ErrUnusable},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := answering(t, c.answer)
			got, err := client(t, s, nil).Choose(context.Background(), "the key phrases of this transcript", "Speaker A: The central bank raised interest rates.", options, c.max)
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("Choose = %q, %v; want an error wrapping %v", got, err, c.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, c.want) {
				t.Fatalf("Choose = %q, %v; want %q", got, err, c.want)
			}
			// The request names the task, the limit, every option and the text.
			s.mu.Lock()
			msg := s.requests[0].Messages[len(s.requests[0].Messages)-1].Content
			s.mu.Unlock()
			for _, want := range append([]string{"the key phrases of this transcript", "at most", "The central bank raised"}, options...) {
				if !strings.Contains(msg, want) {
					t.Errorf("the prompt lacks %q:\n%s", want, msg)
				}
			}
		})
	}
}

func TestChooseSendsNothingForNoOptions(t *testing.T) {
	s := answering(t, `["x"]`)
	got, err := client(t, s, nil).Choose(context.Background(), "topics", "text", nil, 5)
	if err != nil || len(got) != 0 {
		t.Fatalf("Choose with no options = %q, %v", got, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.requests) != 0 {
		t.Errorf("%d requests sent for no options", len(s.requests))
	}
}

func TestChooseCutsLongText(t *testing.T) {
	s := answering(t, `["a"]`)
	long := strings.Repeat("Speaker A: a sentence of the transcript.\n", 2000) // 82,000 bytes
	if _, err := client(t, s, nil).Choose(context.Background(), "topics", long, []string{"a"}, 1); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.requests[0].Messages[1].Content); n > maxChooseText+1000 {
		t.Errorf("prompt of %d bytes for a %d-byte text (cap %d)", n, len(long), maxChooseText)
	}
}

// TestStagesChoose runs the key phrase, topic and content safety stages
// with a Client over loopback as their Chooser: a model that always keeps
// the first option of the list it is given.
func TestStagesChoose(t *testing.T) {
	var asked []string
	var s *server
	s = newServer(t, func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		req := s.requests[len(s.requests)-1]
		prompt := req.Messages[len(req.Messages)-1].Content
		first := ""
		if _, after, ok := strings.Cut(prompt, "\nOptions:\n- "); ok {
			first, _, _ = strings.Cut(after, "\n")
		}
		asked = append(asked, first)
		s.mu.Unlock()
		answer, _ := json.Marshal([]string{first})
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{{
			"finish_reason": "stop", "message": map[string]string{"role": "assistant", "content": "```json\n" + string(answer) + "\n```"},
		}}})
	})
	c := client(t, s, nil)
	tr := nlptest.Transcript(nlptest.Words("He pulled a gun and shot the cashier during the robbery at the bank.\n\n" +
		"The striker scored twice in the second half and the club moved to the top of the league table."))
	tr.AutoHighlights, tr.IABCategories, tr.ContentSafety = transcribe.Ptr(true), transcribe.Ptr(true), transcribe.Ptr(true)
	var stages []transcribe.Stage
	stages = append(stages, keyphrases.Stages(keyphrases.Options{Chooser: c})...)
	stages = append(stages, safety.Stages(safety.Options{Chooser: c})...)
	stages = append(stages, topics.Stages(topics.Options{Chooser: c})...)
	for _, st := range stages {
		if !st.Enabled(&tr.TranscriptParams) {
			continue
		}
		if err := st.Apply(context.Background(), nlptest.Job(tr)); err != nil {
			t.Fatalf("%s: %v", st.Name(), err)
		}
	}
	if hs := tr.AutoHighlightsResult.Results; len(hs) != 1 || hs[0].Text != asked[0] {
		t.Errorf("key phrases %+v; the model chose %q", hs, asked[0])
	}
	for _, r := range tr.ContentSafetyLabels.Results {
		if len(r.Labels) != 1 {
			t.Errorf("content safety segment %q keeps %d labels; the model chose one", r.Text, len(r.Labels))
		}
	}
	if n := len(tr.IABCategoriesResult.Summary); n != 1 {
		t.Errorf("topic summary %v; the model chose one label", tr.IABCategoriesResult.Summary)
	}
	if len(asked) < 3 {
		t.Errorf("the model was asked %d times (%q); want key phrases, each flagged segment and topics", len(asked), asked)
	}
}
