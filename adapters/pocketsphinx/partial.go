package pocketsphinx

import "math"

// Confidence of the words of an open utterance.
//
// A final word's confidence is its posterior probability in the lattice
// that ps_end_utt builds (-bestpath yes). While an utterance is open there
// is no lattice: the segment iterator walks the search's backpointer
// table, whose segments carry no probability (ps_seg_prob returns 0,
// "bogus", for them), and building a lattice in mid-utterance
// (ps_get_lattice) crashes Debian's 0.8+5prealpha library. What the
// backpointer segments do carry is the word's acoustic score: the log
// likelihood of its frames on the decoded path relative to the best
// senone of each frame (0 when every frame took the best senone). Its mean
// per frame predicts the posterior the word gets once its utterance ends,
// and partialConfidence maps it to that scale with a logistic curve fitted
// to the final posteriors:
//
//	confidence = 1 / (1 + exp(-(partialConfA + partialConfB × ascr / frames)))
//
// The fit: the five LibriVox clips of pocketsphinx-testdata (public
// recordings, 1255 word observations: every partial word that its final
// kept with the same text and start) streamed in 100 ms chunks, each
// partial word paired with its final posterior. Mean absolute error
// against the final posterior, leaving each clip out of the fit in turn:
// 0.222, where the best constant (the mean posterior) gives 0.274 and the
// former constant 0 gives 0.69; on flite speech not used in the fit
// 0.239 against 0.268, mean 0.727 against the finals' 0.720. Partial words
// are so on the same 0..1 scale as final ones: a word whose frames match
// the model well is near the 0.9 to 1 of a clear final word, a poorly
// matching one near the 0.2 to 0.5 of a doubtful one.
const (
	partialConfA = 3.272
	partialConfB = 0.07088
)

// partialConfidence estimates the posterior of a word of the open
// utterance from its acoustic score per frame, in 0..1.
func partialConfidence(sg segWord) float64 {
	frames := float64(sg.ef - sg.sf + 1)
	if frames < 1 {
		frames = 1
	}
	c := 1 / (1 + math.Exp(-(partialConfA + partialConfB*float64(sg.ascr)/frames)))
	if math.IsNaN(c) {
		return 0
	}
	return min(max(c, 0), 1)
}
