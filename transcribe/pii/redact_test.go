package pii

import (
	"context"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
)

func TestHashText(t *testing.T) {
	for in, want := range map[string]string{
		"Sarah":            "#####",
		"555-1234.":        "########.",
		"(555)":            "(###)",
		"\"Johnson,\"":     "\"#######,\"",
		"José":             "####",
		"$25?":             "###?",
		"":                 "",
		"john@example.com": "################",
	} {
		if got := hashText(in); got != want {
			t.Errorf("hashText(%q) = %q, want %q", in, got, want)
		}
	}
}

func redactText(text string, policies []string, sub string) (string, []transcribe.Word) {
	ws := words(text)
	out, _ := Redact(ws, Detector{}.Spans(ws), policies, sub)
	return transcribe.JoinWords(out), out
}

func TestRedactHash(t *testing.T) {
	got, ws := redactText("Hi, my name is Sarah Johnson and my number is 555-1234.", []string{"person_name", "phone_number"}, SubHash)
	want := "Hi, my name is ##### ####### and my number is ########."
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if len(ws) != 11 || ws[4].Start != 1200 || ws[10].End != 10*300+250 {
		t.Errorf("hash redaction must keep words and times: %+v", ws)
	}
}

func TestRedactOnlyPolicies(t *testing.T) {
	got, _ := redactText("Sarah paid $25 in Chicago.", []string{"money_amount"}, SubHash)
	if got != "Sarah paid ### in Chicago." {
		t.Errorf("got %q", got)
	}
}

func TestRedactEntityName(t *testing.T) {
	got, ws := redactText("Hi, my name is Sarah Johnson and my number is 555-1234.", []string{"person_name", "phone_number"}, SubEntityName)
	want := "Hi, my name is [PERSON_NAME] and my number is [PHONE_NUMBER]."
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if len(ws) != 10 {
		t.Fatalf("got %d words", len(ws))
	}
	if w := ws[4]; w.Start != 4*300 || w.End != 5*300+250 || w.Text != "[PERSON_NAME]" {
		t.Errorf("entity token %+v: want start..end of the entity's words", w)
	}
}

func TestRedactDoesNotModifyInput(t *testing.T) {
	ws := words("Sarah called 555-1234.")
	before := transcribe.JoinWords(ws)
	Redact(ws, Detector{}.Spans(ws), transcribe.PIIPolicies(), SubHash)
	if transcribe.JoinWords(ws) != before {
		t.Error("Redact changed its input")
	}
}

func TestRanges(t *testing.T) {
	ws := words("Sarah Johnson 555-1234 is here")
	spans := Detector{}.Spans(ws)
	rs := ranges(ws, spans, []string{"person_name", "phone_number"})
	if len(rs) != 2 || rs[0] != (transcribe.Timestamp{Start: 0, End: 550}) || rs[1] != (transcribe.Timestamp{Start: 600, End: 850}) {
		t.Errorf("ranges %+v", rs)
	}
	if rs := ranges(ws, spans, []string{"email_address"}); len(rs) != 0 {
		t.Errorf("ranges for a policy with no entity: %+v", rs)
	}
}

func job(text string, p transcribe.TranscriptParams) *transcribe.Job {
	p.Normalize()
	return &transcribe.Job{Transcript: &transcribe.Transcript{ID: "t1", TranscriptParams: p, Words: words(text)}}
}

func yes() *bool { b := true; return &b }

func TestStagesTextOnly(t *testing.T) {
	j := job("My name is Sarah Johnson and I live in Boston.", transcribe.TranscriptParams{
		EntityDetection: yes(), RedactPII: yes(), RedactPIIPolicies: []string{"person_name"}})
	for _, s := range Stages(Options{}) {
		if s.Enabled(&j.Transcript.TranscriptParams) {
			if err := s.Apply(context.Background(), j); err != nil {
				t.Fatalf("%s: %v", s.Name(), err)
			}
		}
	}
	tr := j.Transcript
	if got := transcribe.JoinWords(tr.Words); got != "My name is ##### ####### and I live in Boston." {
		t.Errorf("words: %q", got)
	}
	if got := show(tr.Entities); got != "person_name:##### ####### | location:Boston" {
		t.Errorf("entities: %s", got)
	}
	for _, e := range tr.Entities {
		if strings.Contains(e.Text, "Sarah") {
			t.Errorf("unredacted entity text stored: %+v", e)
		}
	}
	if len(j.Artifacts) != 0 {
		t.Errorf("audio redacted without redact_pii_audio: %+v", j.Artifacts)
	}
	tr.Fill()
	if strings.Contains(*tr.Text, "Sarah") || strings.Contains(*tr.Text, "Johnson") {
		t.Errorf("text keeps the name: %q", *tr.Text)
	}
}

func TestEntityStageWithoutRedaction(t *testing.T) {
	j := job("Sarah lives in Boston.", transcribe.TranscriptParams{EntityDetection: yes()})
	var ran []string
	for _, s := range Stages(Options{}) {
		if s.Enabled(&j.Transcript.TranscriptParams) {
			ran = append(ran, s.Name())
			if err := s.Apply(context.Background(), j); err != nil {
				t.Fatal(err)
			}
		}
	}
	if strings.Join(ran, ",") != "entity_detection" {
		t.Errorf("stages run: %v", ran)
	}
	if got := show(j.Transcript.Entities); got != "person_name:Sarah | location:Boston" {
		t.Errorf("entities: %s", got)
	}
	j = job("Nothing to see.", transcribe.TranscriptParams{EntityDetection: yes()})
	_ = EntityStage{}.Apply(context.Background(), j)
	if j.Transcript.Entities == nil || len(j.Transcript.Entities) != 0 {
		t.Errorf("no entities must be an empty list, got %#v", j.Transcript.Entities)
	}
}

func TestEntityStageUnformatted(t *testing.T) {
	no := false
	j := job("my name is sarah johnson and my number is five five five one two three four", transcribe.TranscriptParams{EntityDetection: yes(), FormatText: &no})
	if err := (EntityStage{}).Apply(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	want := "person_name:sarah johnson | phone_number:five five five one two three four"
	if got := show(j.Transcript.Entities); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if e := j.Transcript.Entities[1]; e.Start != 9*300 || e.End != 15*300+250 {
		t.Errorf("phone times %d-%d", e.Start, e.End)
	}
	if transcribe.JoinWords(j.Transcript.Words) != "my name is sarah johnson and my number is five five five one two three four" {
		t.Error("words changed")
	}
}

func TestStageNamesAndEnabled(t *testing.T) {
	p := transcribe.TranscriptParams{}
	p.Normalize()
	for _, s := range Stages(Options{}) {
		if s.Enabled(&p) {
			t.Errorf("%s enabled by default", s.Name())
		}
	}
	names := []string{}
	for _, s := range Stages(Options{}) {
		names = append(names, s.Name())
	}
	if strings.Join(names, ",") != "entity_detection,redact_pii_audio,redact_pii" {
		t.Errorf("stage order %v", names)
	}
}
