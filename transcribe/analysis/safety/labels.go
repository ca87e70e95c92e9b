package safety

// The 19 content safety labels, as the API returns them
// (content_safety_labels.results[].labels[].label and the keys of summary
// and severity_score_summary).
//
// Company financials are "financials": that is the key the API sends, as
// AssemblyAI's label table ("Model Output" column) and its Python SDK's
// ContentSafetyLabel enum show (assemblyai/types.py: financials =
// "financials"); the Python SDK validates labels against that enum, so
// any other spelling breaks its parsing of the transcript.
const (
	Accidents             = "accidents"
	Alcohol               = "alcohol"
	Financials            = "financials"
	CrimeViolence         = "crime_violence"
	Drugs                 = "drugs"
	Gambling              = "gambling"
	HateSpeech            = "hate_speech"
	HealthIssues          = "health_issues"
	Manga                 = "manga"
	Marijuana             = "marijuana"
	Disasters             = "disasters"
	NegativeNews          = "negative_news"
	NSFW                  = "nsfw"
	Pornography           = "pornography"
	Profanity             = "profanity"
	SensitiveSocialIssues = "sensitive_social_issues"
	Terrorism             = "terrorism"
	Tobacco               = "tobacco"
	Weapons               = "weapons"
)

// Labels returns the 19 labels in the API's documented order.
func Labels() []string {
	return []string{Accidents, Alcohol, Financials, CrimeViolence, Drugs, Gambling, HateSpeech,
		HealthIssues, Manga, Marijuana, Disasters, NegativeNews, NSFW, Pornography, Profanity,
		SensitiveSocialIssues, Terrorism, Tobacco, Weapons}
}

// HasSeverity reports whether the API gives a label a severity score: all
// labels but financials, manga, negative_news and nsfw, whose severity is
// null and which are absent from severity_score_summary.
func HasSeverity(label string) bool {
	switch label {
	case Financials, Manga, NegativeNews, NSFW:
		return false
	}
	return true
}
