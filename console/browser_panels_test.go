package console

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/earshot-dev/earshot/internal/testaudio"
)

// The fixture API for checkPanels: the transcript of
// testdata/analysis.json (every analysis result, shapes of wire-format.md
// section 3.4), a variant without results, and a list of 12 for paging.

func fixtureServer(t *testing.T, key string) *httptest.Server {
	t.Helper()
	audio := testaudio.Speech(t, "slt", "good morning and welcome to the planning meeting")
	full, err := os.ReadFile(filepath.Join("testdata", "analysis.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(full, &m); err != nil {
		t.Fatal(err)
	}
	// The same words with nothing analysed: nulls, and the "unavailable"
	// results the service gives analyses it could not produce.
	// Paragraphs for it (it has no utterances): one per utterance of the full one.
	var paragraphs []any
	for _, u := range m["utterances"].([]any) {
		u := u.(map[string]any)
		paragraphs = append(paragraphs, map[string]any{"text": u["text"], "start": u["start"], "end": u["end"], "confidence": u["confidence"], "words": u["words"]})
	}
	paragraphsJSON, _ := json.Marshal(map[string]any{"id": "fixture-null", "confidence": m["confidence"], "audio_duration": m["audio_duration"], "paragraphs": paragraphs})
	m["id"] = "fixture-null"
	m["audio_url"] = "AUDIO_URL" // a real file on the fixture server, filled in per request
	for _, k := range []string{"entities", "sentiment_analysis_results", "summary", "chapters", "utterances"} {
		m[k] = nil
	}
	for _, k := range []string{"entity_detection", "sentiment_analysis", "summarization", "auto_chapters", "redact_pii", "speaker_labels"} {
		m[k] = false
	}
	m["auto_highlights_result"] = map[string]any{"status": "unavailable", "results": []any{}}
	m["iab_categories_result"] = map[string]any{"status": "unavailable", "results": []any{}, "summary": map[string]any{}}
	m["content_safety_labels"] = map[string]any{"status": "unavailable", "results": []any{}, "summary": map[string]any{}, "severity_score_summary": map[string]any{}}
	null, _ := json.Marshal(m)

	var ids []string
	for i := 12; i >= 1; i-- {
		ids = append(ids, fmt.Sprintf("fixture-%02d", i))
	}
	ids[0], ids[1] = "fixture-full", "fixture-null"

	mux := http.NewServeMux()
	mux.Handle(Prefix, Handler())
	auth := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			if r.Header.Get("Authorization") != key {
				w.WriteHeader(401)
				io.WriteString(w, `{"error":"Authentication error, API token missing/invalid"}`)
				return
			}
			h(w, r)
		}
	}
	mux.HandleFunc("GET /v2/transcript/{id}", auth(func(w http.ResponseWriter, r *http.Request) {
		switch r.PathValue("id") {
		case "fixture-full":
			w.Write(full)
		case "fixture-null":
			w.Write(bytes.Replace(null, []byte("AUDIO_URL"), []byte("http://"+r.Host+"/media/planning.wav"), 1))
		default:
			w.WriteHeader(404)
			io.WriteString(w, `{"error":"Transcript not found"}`)
		}
	}))
	mux.HandleFunc("GET /v2/transcript/{id}/paragraphs", auth(func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") != "fixture-null" {
			w.WriteHeader(404)
			io.WriteString(w, `{"error":"Transcript not found"}`)
			return
		}
		w.Write(paragraphsJSON)
	}))
	// Uploads for the audio-store scenario: accepted and "completed" at
	// once (nothing is transcribed).
	var uploads atomic.Int64
	mux.HandleFunc("POST /v2/upload", auth(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		json.NewEncoder(w).Encode(map[string]any{"upload_url": fmt.Sprintf("http://%s/uploads/%d-%d", r.Host, uploads.Add(1), n)})
	}))
	mux.HandleFunc("POST /v2/transcript", auth(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			AudioURL string `json:"audio_url"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		json.NewEncoder(w).Encode(map[string]any{"id": fmt.Sprintf("fixture-upload-%d", uploads.Load()), "status": "completed",
			"audio_url": req.AudioURL, "text": "", "words": []any{}})
	}))
	mux.HandleFunc("GET /media/planning.wav", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, audio)
	})
	mux.HandleFunc("GET /v2/transcript", auth(func(w http.ResponseWriter, r *http.Request) {
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		if limit <= 0 {
			limit = 10
		}
		from := 0
		if b := r.URL.Query().Get("before_id"); b != "" {
			from = slices.Index(ids, b) + 1
		}
		page := ids[from:min(from+limit, len(ids))]
		items := []map[string]any{}
		for _, id := range page {
			items = append(items, map[string]any{"id": id, "resource_url": "https://api.example.com/v2/transcript/" + id,
				"status": "completed", "created": "2026-11-20T10:00:00.000000", "completed": "2026-11-20T10:01:00.000000",
				"audio_url": "https://media.example.com/" + id + ".mp3", "error": nil})
		}
		var prev any
		if from+limit < len(ids) {
			// Absolute, on the API's public origin (another host): the console must use only its path.
			prev = fmt.Sprintf("https://api.example.com/v2/transcript?limit=%d&before_id=%s", limit, page[len(page)-1])
		}
		json.NewEncoder(w).Encode(map[string]any{"transcripts": items, "page_details": map[string]any{
			"limit": limit, "result_count": len(items), "current_url": "https://api.example.com" + r.URL.RequestURI(), "prev_url": prev, "next_url": nil}})
	}))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

type panelsReport struct {
	Page1        []string             `json:"page1"`
	Page2        []string             `json:"page2"`
	Page1Again   []string             `json:"page1Again"`
	OlderDisabed bool                 `json:"olderDisabled"`
	Views        map[string]panelView `json:"views"`
}

type panelView struct {
	Panels                   []string `json:"panels"`
	NoAudioVisible           bool     `json:"noAudioVisible"`
	AudioSrc                 string   `json:"audioSrc"`
	AudioDuration            float64  `json:"audioDuration"`
	Blocks                   int      `json:"blocks"`
	EntityTypes              []string `json:"entityTypes"`
	EntityChips              []string `json:"entityChips"`
	Sentiments               []string `json:"sentiments"`
	KeyPhrases               []string `json:"keyPhrases"`
	Topics                   []string `json:"topics"`
	SafetyLabels             []string `json:"safetyLabels"`
	SafetyResults            int      `json:"safetyResults"`
	Summary                  []string `json:"summary"`
	Chapters                 []string `json:"chapters"`
	RedactedCount            int      `json:"redactedCount"`
	Unavailable              []string `json:"unavailable"`
	Speakers                 []string `json:"speakers"`
	SpeakerColours           []string `json:"speakerColours"`
	EntityWords              []string `json:"entityWords"`
	CurrentAfterChapterClick int      `json:"currentAfterChapterClick"`
}

// checkPanels: every analysis panel rendered from a JSON fixture (the
// server does not produce all of them yet), checks each shows exactly
// the fixture's results, that a transcript without results shows none
// (and says "unavailable" where the service said so), the no-audio note
// for a deleted upload, and list paging through an absolute prev_url.
func checkPanels(t *testing.T, r panelsReport, fixtureURL string) {
	if len(r.Page1) != 10 || len(r.Page2) != 2 || r.Page2[1] != "fixture-01" || !slices.Equal(r.Page1, r.Page1Again) || !r.OlderDisabed {
		t.Errorf("paging: page 1 %v, page 2 %v, back %v, older disabled at the end %v", r.Page1, r.Page2, r.Page1Again, r.OlderDisabed)
	}

	var fx struct {
		Entities []struct {
			Type string `json:"entity_type"`
			Text string `json:"text"`
		} `json:"entities"`
		Sentiments []struct{ Sentiment string } `json:"sentiment_analysis_results"`
		Highlights struct {
			Results []struct {
				Text string
				Rank float64
			}
		} `json:"auto_highlights_result"`
		IAB struct {
			Summary map[string]float64
		} `json:"iab_categories_result"`
		CS struct {
			Results []any
			Summary map[string]float64
		} `json:"content_safety_labels"`
		Chapters []struct{ Headline string } `json:"chapters"`
		Words    []struct{ Text string }     `json:"words"`
	}
	b, _ := os.ReadFile(filepath.Join("testdata", "analysis.json"))
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatal(err)
	}
	full := r.Views["fixture-full"]
	if want := expectedPanels(t, b); !slices.Equal(full.Panels, want) {
		t.Errorf("full fixture panels %v, want %v", full.Panels, want)
	}
	var chips []string
	types := map[string]bool{}
	for _, e := range fx.Entities {
		chips = append(chips, e.Text)
		types[humanize(e.Type)] = true
	}
	sort.Strings(chips)
	got := slices.Clone(full.EntityChips)
	sort.Strings(got)
	if !slices.Equal(got, chips) || len(full.EntityTypes) != len(types) {
		t.Errorf("entities: chips %v types %v; fixture %v", full.EntityChips, full.EntityTypes, chips)
	}
	if len(full.EntityWords) == 0 {
		t.Error("no transcript word is marked as an entity")
	}
	if len(full.Sentiments) != len(fx.Sentiments) {
		t.Errorf("%d sentiment rows, fixture has %d", len(full.Sentiments), len(fx.Sentiments))
	}
	for i, s := range fx.Sentiments {
		if i < len(full.Sentiments) && full.Sentiments[i] != "sent-"+strings.ToLower(s.Sentiment) {
			t.Errorf("sentiment row %d has class %q, want sent-%s", i, full.Sentiments[i], strings.ToLower(s.Sentiment))
		}
	}
	hl := slices.Clone(fx.Highlights.Results)
	sort.Slice(hl, func(i, j int) bool { return hl[i].Rank > hl[j].Rank })
	var wantPhrases []string
	for _, h := range hl {
		wantPhrases = append(wantPhrases, h.Text)
	}
	if !slices.Equal(full.KeyPhrases, wantPhrases) {
		t.Errorf("key phrases %v, want by rank %v", full.KeyPhrases, wantPhrases)
	}
	if len(full.Topics) != len(fx.IAB.Summary) || !strings.Contains(full.Topics[0], "Data Storage") || !strings.Contains(full.Topics[0], " › ") {
		t.Errorf("topics %v from summary %v", full.Topics, fx.IAB.Summary)
	}
	if len(full.SafetyLabels) != len(fx.CS.Summary) || full.SafetyResults != len(fx.CS.Results) || full.SafetyLabels[0] != "Negative news" {
		t.Errorf("content safety labels %v results %d", full.SafetyLabels, full.SafetyResults)
	}
	if len(full.Summary) != 3 || !strings.Contains(full.Summary[0], "data center") {
		t.Errorf("summary bullets %v", full.Summary)
	}
	if len(full.Chapters) != len(fx.Chapters) || full.Chapters[0] != fx.Chapters[0].Headline {
		t.Errorf("chapters %v", full.Chapters)
	}
	if full.RedactedCount != 2 {
		t.Errorf("redacted words counted %d, the fixture has 2 (#### #######)", full.RedactedCount)
	}
	if !slices.Equal(full.Speakers, []string{"Speaker A", "Speaker B"}) || len(full.SpeakerColours) != 4 ||
		full.SpeakerColours[0] == full.SpeakerColours[1] || full.SpeakerColours[0] != full.SpeakerColours[2] {
		t.Errorf("speakers %v colours %v: want A and B in two colours, alternating", full.Speakers, full.SpeakerColours)
	}
	if !full.NoAudioVisible || full.AudioSrc != "" {
		t.Errorf("the deleted upload's transcript: no-audio note visible %v, src %q", full.NoAudioVisible, full.AudioSrc)
	}
	if full.CurrentAfterChapterClick < 0 {
		t.Error("a chapter's time button did not mark its first word")
	}

	null := r.Views["fixture-null"]
	if want := []string{"key-phrases", "topics", "content-safety"}; !slices.Equal(null.Panels, want) || !slices.Equal(null.Unavailable, want) {
		t.Errorf("transcript without results: panels %v (unavailable %v), want only %v saying unavailable", null.Panels, null.Unavailable, want)
	}
	if null.NoAudioVisible || null.AudioSrc != fixtureURL+"/media/planning.wav" || null.AudioDuration < 2 {
		t.Errorf("a remote audio_url is not the player's source: src %q (duration %.1f s), no-audio note %v", null.AudioSrc, null.AudioDuration, null.NoAudioVisible)
	}
	if null.Blocks != 4 {
		t.Errorf("the transcript without utterances shows %d paragraphs, want the 4 of /paragraphs", null.Blocks)
	}
	if len(null.Speakers) != 0 {
		t.Errorf("speakers %v without utterances", null.Speakers)
	}
}

// humanize is util.js's humanize: "person_name" -> "Person name", "us_social_security_number" -> "US social security number".
func humanize(s string) string {
	ws := strings.Split(s, "_")
	for i, w := range ws {
		if slices.Contains([]string{"us", "ip", "cvv", "url", "id", "pii", "iab"}, w) {
			ws[i] = strings.ToUpper(w)
		}
	}
	s = strings.Join(ws, " ")
	return strings.ToUpper(s[:1]) + s[1:]
}
