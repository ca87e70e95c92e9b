package transcribe

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Engine is a speech engine the Service can run a job on, chosen by the
// request's speech_model.
type Engine struct {
	// Name is the speech_model value that selects the engine
	// ("pocketsphinx", "whisper"), echoed as the transcript's speech_model.
	Name string
	// Aliases are more speech_model values that select it, typically the
	// API's own model names ("best", "nano"). An alias claimed by no
	// engine goes to the default engine (see Config.Engines).
	Aliases []string
	// Recognizer does the work.
	Recognizer Recognizer
}

// engines is the Service's resolved engine table.
type engines struct {
	list   []Engine
	byName map[string]*Engine
}

// newEngines checks the configured engines: names unique, recognizers set.
// The API's model names not claimed by an engine select the first.
func newEngines(list []Engine) (*engines, error) {
	if len(list) == 0 {
		return nil, errors.New("transcribe: Config.Engines (or Config.Recognizer) is required")
	}
	e := &engines{list: list, byName: map[string]*Engine{}}
	add := func(name string, eng *Engine) error {
		if strings.TrimSpace(name) == "" {
			return errors.New("transcribe: Config.Engines: an engine name is empty")
		}
		if prev, ok := e.byName[name]; ok && prev != eng {
			return fmt.Errorf("transcribe: Config.Engines: the name %q is used by engines %q and %q", name, prev.Name, eng.Name)
		}
		e.byName[name] = eng
		return nil
	}
	for i := range list {
		eng := &list[i]
		if eng.Recognizer == nil {
			return nil, fmt.Errorf("transcribe: Config.Engines: engine %q has no Recognizer", eng.Name)
		}
		if err := add(eng.Name, eng); err != nil {
			return nil, err
		}
		for _, a := range eng.Aliases {
			if err := add(a, eng); err != nil {
				return nil, err
			}
		}
	}
	for _, m := range KnownSpeechModels() {
		if _, ok := e.byName[m]; !ok {
			e.byName[m] = &list[0]
		}
	}
	return e, nil
}

// names describes the configured engines for error messages.
func (e *engines) names() string {
	var out []string
	for _, eng := range e.list {
		out = append(out, fmt.Sprintf("%q", eng.Name))
	}
	return strings.Join(out, ", ") + fmt.Sprintf(" (the API's names %s select %q unless an engine claims them)",
		strings.Join(KnownSpeechModels(), ", "), e.list[0].Name)
}

// get returns the engine called name ("" for the default), or nil.
func (e *engines) get(name string) *Engine {
	if name == "" {
		return &e.list[0]
	}
	return e.byName[name]
}

// detecting names the engines that detect languages, for an error.
func (e *engines) detecting() string {
	var out []string
	for _, eng := range e.list {
		if eng.Recognizer.Features().LanguageDetection {
			out = append(out, fmt.Sprintf("%q", eng.Name))
		}
	}
	if len(out) == 0 {
		return "configure an engine that detects languages (none of this server's does)"
	}
	return "choose one that detects with speech_model: " + strings.Join(out, ", ")
}

// choose picks the engine for p (speech_model, else the first of
// speech_models that exists, else the default), checks what the engine
// must support for p (the language_code; a language_confidence_threshold
// above 0 needs an engine that detects languages; a prompt), and returns
// it. A *ParamError names the configured
// engines or languages otherwise.
func (e *engines) choose(p *TranscriptParams) (*Engine, error) {
	var eng *Engine
	switch {
	case p.SpeechModel != nil:
		if eng = e.get(*p.SpeechModel); eng == nil {
			return nil, paramErr("speech_model", "unknown model %q; this server has %s", *p.SpeechModel, e.names())
		}
	case len(p.SpeechModels) > 0:
		for _, m := range p.SpeechModels {
			if eng = e.get(m); eng != nil {
				break
			}
		}
		if eng == nil {
			return nil, paramErr("speech_models", "none of %q is available; this server has %s", p.SpeechModels, e.names())
		}
	default:
		eng = e.get("")
	}
	f := eng.Recognizer.Features()
	if p.LanguageCode != nil && len(f.Languages) > 0 && !supports(f.Languages, *p.LanguageCode) {
		return nil, paramErr("language_code", "engine %q transcribes %s, not %q", eng.Name, strings.Join(f.Languages, ", "), *p.LanguageCode)
	}
	if th := p.LanguageConfidenceThreshold; th != nil && *th > 0 && !f.LanguageDetection && p.languageDetectionEnabled() {
		return nil, paramErr("language_confidence_threshold", "engine %q does not detect languages (it transcribes %s), so there is no language confidence to compare; leave the threshold out or %s", eng.Name, strings.Join(f.Languages, ", "), e.detecting())
	}
	if p.Prompt != nil && !f.Prompt && p.SpeechModel != nil && !isAPIModel(*p.SpeechModel) {
		return nil, paramErr("prompt", "engine %q does not take a prompt", eng.Name)
	}
	return eng, nil
}

// supports reports whether an engine listing langs can transcribe code,
// whose region ("en_us") is read as its base language ("en") when the
// engine lists only that.
func supports(langs []string, code string) bool {
	if slices.Contains(langs, code) {
		return true
	}
	base, _, _ := strings.Cut(code, "_")
	return slices.Contains(langs, base)
}
