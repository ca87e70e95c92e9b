package openapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/jsonschema/v6"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	liberrors "github.com/pb33f/libopenapi-validator/errors"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/earshot-dev/earshot/httpapi/openapi"
	"github.com/earshot-dev/earshot/transcribe"
)

// spec is the parsed document and a strict validator over it, built once.
type spec struct {
	doc   libopenapi.Document
	model *v3.Document
	v     validator.Validator
	raw   map[string]any
}

var (
	specOnce sync.Once
	specVal  *spec
	specErr  error
)

// loadSpec parses the embedded document and builds the validator the tests
// use: strict mode (a key, query parameter or header the document does not
// declare is an error), format assertions (uuid, uri, date), and the
// standard body codecs (text/plain and binary bodies are checked against
// their media types too).
func loadSpec(t testing.TB) *spec {
	t.Helper()
	specOnce.Do(func() {
		s := &spec{}
		if err := json.Unmarshal(openapi.JSON(), &s.raw); err != nil {
			specErr = fmt.Errorf("openapi.json is not JSON: %w", err)
			return
		}
		s.doc, specErr = libopenapi.NewDocument(openapi.JSON())
		if specErr != nil {
			return
		}
		m, err := s.doc.BuildV3Model()
		if err != nil {
			specErr = fmt.Errorf("building the model: %w", err)
			return
		}
		s.model = &m.Model
		var errs []error
		s.v, errs = validator.NewValidator(s.doc,
			config.WithStrictMode(),
			// Parameters echoed as given (any JSON value) have no
			// properties to declare.
			config.WithStrictIgnorePaths(anyValued...),
			config.WithFormatAssertions(),
			config.WithStandardBodyDecoders(),
		)
		if len(errs) > 0 {
			specErr = fmt.Errorf("building the validator: %v", errs)
			return
		}
		specVal = s
	})
	if specErr != nil {
		t.Fatal(specErr)
	}
	return specVal
}

// anyValued are the response keys strict mode must not look into: the
// Transcript keys that echo any JSON value the client sent (or are
// reserved), and the maps (label -> score, language -> text), whose keys
// strict mode would report although additionalProperties declares them.
var anyValued = []string{"$.body.speech_understanding.**", "$.body.redact_pii_audio_options.**",
	"$.body.redact_static_entities.**", "$.body.remove_audio_tags.**", "$.body.custom_topics_results.**",
	"$.body.content_safety_labels.summary.**", "$.body.content_safety_labels.severity_score_summary.**",
	"$.body.iab_categories_result.summary.**", "$.body.translated_texts.**"}

func describe(errs []*liberrors.ValidationError) string {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "\n  - %s: %s", e.Message, e.Reason)
		for _, s := range e.SchemaValidationErrors {
			fmt.Fprintf(&b, "\n      %s at %s (%s)", s.Reason, s.FieldPath, s.KeywordLocation)
		}
	}
	return b.String()
}

// TestDocumentIsValidOpenAPI31 validates the document against the OpenAPI
// 3.1 JSON Schema and compiles every schema in it as JSON Schema 2020-12.
func TestDocumentIsValidOpenAPI31(t *testing.T) {
	t.Parallel()
	s := loadSpec(t)
	if v := s.doc.GetVersion(); !strings.HasPrefix(v, "3.1.") {
		t.Fatalf("openapi version %q, want 3.1.x", v)
	}
	if ok, errs := s.v.ValidateDocument(); !ok {
		t.Fatalf("openapi.json is not a valid OpenAPI 3.1 document:%s", describe(errs))
	}

	// Every component schema, and every schema under paths, compiles on
	// its own (with the document as the resource its $refs resolve in).
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	docVal, err := jsonschema.UnmarshalJSON(bytes.NewReader(openapi.JSON()))
	if err != nil {
		t.Fatal(err)
	}
	const base = "https://earshot.invalid/openapi.json"
	if err := c.AddResource(base, docVal); err != nil {
		t.Fatal(err)
	}
	var ptrs []string
	for name := range s.raw["components"].(map[string]any)["schemas"].(map[string]any) {
		ptrs = append(ptrs, "/components/schemas/"+name)
	}
	walk(s.raw["paths"], "/paths", func(ptr string, key string, v any) {
		if key == "schema" {
			ptrs = append(ptrs, ptr)
		}
	})
	sort.Strings(ptrs)
	for _, p := range ptrs {
		if _, err := c.Compile(base + "#" + p); err != nil {
			t.Errorf("schema %s does not compile: %v", p, err)
		}
	}
	if len(ptrs) < 60 {
		t.Fatalf("only %d schemas found; the walk is broken", len(ptrs))
	}
}

// walk calls f for every object member below v, with its JSON pointer.
func walk(v any, ptr string, f func(ptr, key string, v any)) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			p := ptr + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
			f(p, k, c)
			walk(c, p, f)
		}
	case []any:
		for i, c := range x {
			walk(c, fmt.Sprintf("%s/%d", ptr, i), f)
		}
	}
}

// TestDocumentConventions checks what the OpenAPI schema leaves open:
// unique operation ids, a description on every response, every $ref
// resolving, every component used, and every JSON error response being the
// Error schema.
func TestDocumentConventions(t *testing.T) {
	t.Parallel()
	s := loadSpec(t)
	ids := map[string]string{}
	refs := map[string]bool{}
	walk(s.raw, "", func(ptr, key string, v any) {
		if key == "$ref" {
			ref := v.(string)
			refs[ref] = true
			if !strings.HasPrefix(ref, "#/") {
				t.Errorf("%s: external reference %q", ptr, ref)
			} else if resolve(s.raw, ref[1:]) == nil {
				t.Errorf("%s: %q does not resolve", ptr, ref)
			}
		}
		if key == "operationId" {
			if prev, dup := ids[v.(string)]; dup {
				t.Errorf("operationId %q used by %s and %s", v, prev, ptr)
			}
			ids[v.(string)] = ptr
		}
	})
	comps := s.raw["components"].(map[string]any)
	for kind, m := range comps {
		if kind == "securitySchemes" {
			continue
		}
		for name := range m.(map[string]any) {
			if !refs["#/components/"+kind+"/"+name] {
				t.Errorf("components/%s/%s is never referenced", kind, name)
			}
		}
	}
	for path, item := range s.model.Paths.PathItems.FromOldest() {
		for method, op := range item.GetOperations().FromOldest() {
			for code, r := range op.Responses.Codes.FromOldest() {
				if r.Description == "" {
					t.Errorf("%s %s %s: response without a description", method, path, code)
				}
				if r.Content == nil {
					continue
				}
				if mt, ok := r.Content.Get("application/json"); ok && code[0] != '2' {
					if ref := mt.Schema.GetReference(); ref != "#/components/schemas/Error" {
						t.Errorf("%s %s %s: JSON error body is %q, not the Error schema", method, path, code, ref)
					}
				}
			}
			if op.OperationId == "" {
				t.Errorf("%s %s: no operationId", method, path)
			}
		}
	}
}

func resolve(doc any, ptr string) any {
	cur := doc
	for _, seg := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		switch x := cur.(type) {
		case map[string]any:
			var ok bool
			if cur, ok = x[seg]; !ok {
				return nil
			}
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			cur = x[i]
		default:
			return nil
		}
	}
	return cur
}

// TestEnumerationsMatchTranscribe checks that every enumeration in the
// document is the list transcribe validates against, in the same order.
func TestEnumerationsMatchTranscribe(t *testing.T) {
	t.Parallel()
	s := loadSpec(t)
	schemas := s.raw["components"].(map[string]any)["schemas"].(map[string]any)
	enum := func(ptr string) []string {
		t.Helper()
		v := resolve(s.raw, ptr)
		if v == nil {
			t.Fatalf("%s: not in the document", ptr)
		}
		var out []string
		for _, e := range v.([]any) {
			if e != nil {
				out = append(out, e.(string))
			}
		}
		return out
	}
	var statuses []string
	for _, st := range transcribe.Statuses() {
		statuses = append(statuses, string(st))
	}
	for ptr, want := range map[string][]string{
		"/components/schemas/LanguageCode/enum":                                              transcribe.LanguageCodes(),
		"/components/schemas/PiiPolicy/enum":                                                 transcribe.PIIPolicies(),
		"/components/schemas/EntityType/enum":                                                transcribe.PIIPolicies(),
		"/components/schemas/SpeechModel/anyOf/0/enum":                                       transcribe.KnownSpeechModels(),
		"/components/schemas/SummaryType/enum":                                               transcribe.Strings(transcribe.SummaryTypes()),
		"/components/schemas/SummaryModel/enum":                                              transcribe.Strings(transcribe.SummaryModels()),
		"/components/schemas/SubstitutionPolicy/enum":                                        transcribe.Strings(transcribe.SubstitutionPolicies()),
		"/components/schemas/RedactPiiAudioQuality/enum":                                     transcribe.Strings(transcribe.AudioQualities()),
		"/components/schemas/BoostParam/enum":                                                transcribe.Strings(transcribe.BoostParams()),
		"/components/schemas/TranscriptStatus/enum":                                          statuses,
		"/components/schemas/TranscriptParams/properties/domain/enum":                        transcribe.Strings(transcribe.Domains()),
		"/components/schemas/LanguageDetectionOptions/properties/localization/items/enum":    transcribe.Localizations(),
		"/components/schemas/LanguageDetectionOptions/properties/on_no_speech_detected/enum": transcribe.NoSpeechPolicies(),
	} {
		if got := enum(ptr); !slices.Equal(got, want) {
			t.Errorf("%s = %v\nwant (from transcribe) %v", ptr, got, want)
		}
	}

	// The request parameters are exactly the JSON keys of
	// transcribe.TranscriptParams, and the Transcript's keys are exactly
	// those of a marshalled transcribe.Transcript (plus audio_channels,
	// which is omitted when unset).
	params := schemas["TranscriptParams"].(map[string]any)["properties"].(map[string]any)
	if got, want := keys(params), jsonKeys(t, transcribe.TranscriptParams{
		ContentSafetyConfidence: transcribe.Ptr(int64(50)), WebhookAuthHeaderValue: transcribe.Ptr("x"),
	}); !slices.Equal(got, want) {
		t.Errorf("TranscriptParams properties:\n got %v\nwant %v", got, want)
	}
	tr := schemas["Transcript"].(map[string]any)
	n := int64(1)
	full := (&transcribe.Transcript{AudioChannels: &n}).Public()
	if got, want := keys(tr["properties"].(map[string]any)), jsonKeys(t, full); !slices.Equal(got, want) {
		t.Errorf("Transcript properties:\n got %v\nwant %v", got, want)
	}
	var required []string
	for _, r := range tr["required"].([]any) {
		required = append(required, r.(string))
	}
	sort.Strings(required)
	if want := jsonKeys(t, (&transcribe.Transcript{}).Public()); !slices.Equal(required, want) {
		t.Errorf("Transcript required:\n got %v\nwant %v", required, want)
	}
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func jsonKeys(t *testing.T, v any) []string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return keys(m)
}

// TestHandler serves the document and checks it is the embedded one.
func TestHandler(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(openapi.Handler())
	defer srv.Close()
	res, err := http.Get(srv.URL + openapi.Path)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	buf.ReadFrom(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/json" || !bytes.Equal(buf.Bytes(), openapi.JSON()) {
		t.Fatalf("GET: %d %q, %d bytes", res.StatusCode, res.Header.Get("Content-Type"), buf.Len())
	}
	res, err = http.Head(srv.URL + openapi.Path)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || res.ContentLength != int64(len(openapi.JSON())) {
		t.Fatalf("HEAD: %d, length %d", res.StatusCode, res.ContentLength)
	}
	res, err = http.Post(srv.URL+openapi.Path, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	buf.ReadFrom(res.Body)
	res.Body.Close()
	var e struct{ Error string }
	if res.StatusCode != 405 || res.Header.Get("Allow") != "GET, HEAD" || json.Unmarshal(buf.Bytes(), &e) != nil || !strings.Contains(e.Error, "POST") {
		t.Fatalf("POST: %d %q %s", res.StatusCode, res.Header.Get("Allow"), buf.Bytes())
	}
	// JSON returns a copy.
	b := openapi.JSON()
	b[0] = 'x'
	if openapi.JSON()[0] != '{' {
		t.Fatal("JSON returned the embedded slice")
	}
}
