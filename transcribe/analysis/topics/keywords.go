package topics

import "github.com/earshot-dev/earshot/transcribe"

// KeywordLabels ranks the output of Stems by the keyword profiles alone,
// without the family model (see doc.go, "How labels are scored"): the
// scoring the classifier had before the family model, at most max labels
// (0 means DefaultMaxLabels) with relevance of at least minRel.
//
// Classify and ClassifyStems are for labelling a paragraph or a
// transcript; KeywordLabels is for comparing short spans with each other
// (chapter segmentation in transcribe/analysis/summary): its relevance
// grows smoothly with every keyword said, where the family model, made to
// decide what a whole text is about, swings a span's labels from one
// family to another on a few words.
func (c *Classifier) KeywordLabels(stems []string, max int, minRel float64) []transcribe.TopicLabel {
	if max <= 0 {
		max = DefaultMaxLabels
	}
	return c.rank(c.evidence(stems), max, minRel)
}
