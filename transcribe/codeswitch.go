package transcribe

import (
	"encoding/json"
	"math"
	"slices"
	"sort"
)

// pieceLanguage is what the recognition of one piece of the audio said of
// its language.
type pieceLanguage struct {
	code  string
	words int
}

// codeSwitching reports whether t asks for code switching
// (language_detection with language_detection_options.code_switching).
func codeSwitching(t *Transcript) bool {
	o := t.LanguageDetectionOptions
	return isTrue(t.LanguageDetection) && o != nil && isTrue(o.CodeSwitching)
}

// CodeSwitchingLanguage is one entry of
// language_detection_results.code_switching_languages.
type CodeSwitchingLanguage struct {
	LanguageCode string  `json:"language_code"`
	Confidence   float64 `json:"confidence"`
}

// applyCodeSwitching fills language_detection_results and language_codes
// from the languages the engine detected piece by piece (long audio is
// recognized in pieces of at most a minute cut at pauses, each detected
// on its own; process sends a file in pieces rather than whole when code
// switching is asked of an engine that detects):
//
//   - a language's confidence is the share of the transcript's words in
//     the pieces detected as that language (0..1; the shares add up to 1);
//   - languages whose share is below code_switching_confidence_threshold
//     are left out; when every one is, the transcript keeps the one with
//     the highest share (the spec: "below it the transcript uses the
//     language with the highest detection confidence");
//   - code_switching_languages lists the kept languages, highest share
//     first, and language_codes becomes their codes when the request did
//     not give language_codes (a given list is echoed as it was).
//
// Without code switching, or when no piece named a language (an engine
// that does not detect), nothing changes and the results stay null.
func applyCodeSwitching(t *Transcript, pieces []pieceLanguage) {
	if !codeSwitching(t) {
		return
	}
	count := map[string]int{}
	total := 0
	for _, p := range pieces {
		if p.code != "" && p.words > 0 {
			count[p.code] += p.words
			total += p.words
		}
	}
	if total == 0 {
		return
	}
	var all []CodeSwitchingLanguage
	for code, n := range count {
		all = append(all, CodeSwitchingLanguage{LanguageCode: code, Confidence: math.Round(float64(n)/float64(total)*1e4) / 1e4})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].Confidence != all[j].Confidence {
			return all[i].Confidence > all[j].Confidence
		}
		return all[i].LanguageCode < all[j].LanguageCode
	})
	th := DefaultCodeSwitchingConfidenceThreshold
	if v := t.LanguageDetectionOptions.CodeSwitchingConfidenceThreshold; v != nil {
		th = *v
	}
	kept := slices.DeleteFunc(slices.Clone(all), func(l CodeSwitchingLanguage) bool { return l.Confidence < th })
	if len(kept) == 0 {
		kept = all[:1]
	}
	b, err := json.Marshal(struct {
		Languages []CodeSwitchingLanguage `json:"code_switching_languages"`
	}{kept})
	if err != nil {
		return
	}
	t.LanguageDetectionResults = b
	if len(t.LanguageCodes) == 0 {
		t.LanguageCodes = nil
		for _, l := range kept {
			t.LanguageCodes = append(t.LanguageCodes, l.LanguageCode)
		}
	}
}
