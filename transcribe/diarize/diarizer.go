package diarize

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/earshot-dev/earshot/transcribe"
)

// ErrBadInput is wrapped by the errors Diarize returns for unusable
// arguments (a non-positive sample rate, contradictory speaker bounds).
var ErrBadInput = errors.New("diarize: bad input")

// Segment is one stretch of speech attributed to one speaker. Times are
// milliseconds from the start of the audio given to Diarize.
type Segment struct {
	Start, End int64
	// Speaker is a 0-based speaker index. Diarizers number speakers in
	// order of first appearance (the first segment has speaker 0).
	Speaker int
}

// Options bound the number of speakers a Diarizer may report. Zero means
// "no bound" for either field.
type Options struct {
	// MinSpeakers is the fewest speakers to report when there is enough
	// speech to tell them apart. Default 1.
	MinSpeakers int
	// MaxSpeakers is the most speakers to report. Default
	// transcribe.MaxSpeakersExpected (10).
	MaxSpeakers int
}

func (o Options) bounds() (lo, hi int, err error) {
	lo, hi = o.MinSpeakers, o.MaxSpeakers
	if lo < 0 || hi < 0 {
		return 0, 0, fmt.Errorf("%w: speaker bounds must not be negative (min %d, max %d)", ErrBadInput, lo, hi)
	}
	if lo == 0 {
		lo = 1
	}
	if hi == 0 {
		hi = max(transcribe.MaxSpeakersExpected, lo)
	}
	if lo > hi {
		return 0, 0, fmt.Errorf("%w: MinSpeakers %d exceeds MaxSpeakers %d", ErrBadInput, lo, hi)
	}
	return lo, hi, nil
}

// Diarizer finds who spoke when in one channel of audio.
//
//   - Diarize returns the speech segments of audio (16-bit mono samples at
//     sampleRate), in time order and not overlapping, each with a speaker
//     index numbered in order of first appearance. Pauses may be left out.
//   - It honours opts: never more than MaxSpeakers speakers, and at least
//     MinSpeakers when the audio has that many distinguishable stretches
//     of speech.
//   - Silence or empty audio yields no segments and a nil error.
//   - It returns an error wrapping ErrBadInput for a non-positive sample
//     rate or MinSpeakers > MaxSpeakers, ctx.Err() when cancelled, and an
//     error wrapping transcribe.ErrUnavailable when an engine's library or
//     model is missing.
//
// Implementations are safe for concurrent use.
type Diarizer interface {
	Diarize(ctx context.Context, audio []int16, sampleRate int, opts Options) ([]Segment, error)
}

// BICConfig tunes the default diarizer. Zero values mean the documented
// default.
type BICConfig struct {
	// Coefficients is the number of MFCCs per frame (c1..cN). Default 12.
	Coefficients int
	// Bands is the number of mel filters. Default 24.
	Bands int
	// SpeechRangeDB: frames more than this far below the loud frames of
	// the recording are non-speech. Default 45.
	SpeechRangeDB float64
	// ChangeLambda weights the BIC model-size penalty when looking for
	// speaker changes inside a stretch of speech; smaller values propose
	// more change points (spurious ones are merged back by clustering).
	// Default 1.2.
	ChangeLambda float64
	// ClusterLambda weights the BIC penalty when merging clusters; larger
	// values find fewer speakers. Default 4.
	ClusterLambda float64
	// ChangeWindow is the length of each of the two windows compared at a
	// candidate change point. Default 1500 ms.
	ChangeWindowMS int
	// MaxMergeDistance: after BIC clustering stops, clusters whose
	// per-frame log-likelihood ratio (one Gaussian versus two) is below
	// this are still merged. It keeps long recordings, where ΔBIC between
	// big clusters of one speaker grows with their size, from being split
	// into too many speakers. Default 0.6; negative disables it.
	MaxMergeDistance float64
	// SwitchPenalty is the log-likelihood cost of a speaker switch in the
	// final Viterbi resegmentation. Default 60.
	SwitchPenalty float64
	// MergeGapMS joins two segments of the same speaker separated by a
	// pause shorter than this. Default 500 ms.
	MergeGapMS int
}

func (c *BICConfig) validate() error {
	switch {
	case c.Coefficients < 0 || c.Coefficients > 40:
		return errors.New("diarize: BICConfig.Coefficients must be between 1 and 40")
	case c.Bands < 0 || (c.Bands > 0 && c.Bands < max(c.Coefficients, 12)+1) || c.Bands > 128:
		return errors.New("diarize: BICConfig.Bands must exceed Coefficients and be at most 128")
	case c.SpeechRangeDB < 0:
		return errors.New("diarize: BICConfig.SpeechRangeDB must not be negative")
	case c.ChangeLambda < 0 || c.ClusterLambda < 0:
		return errors.New("diarize: BICConfig.ChangeLambda and ClusterLambda must not be negative")
	case c.ChangeWindowMS < 0 || c.SwitchPenalty < 0 || c.MergeGapMS < 0:
		return errors.New("diarize: BICConfig.ChangeWindowMS, SwitchPenalty and MergeGapMS must not be negative")
	}
	return nil
}

// BIC is the default Diarizer: pure Go, no model files. See the package
// documentation for the algorithm. It is safe for concurrent use.
type BIC struct{ cfg BICConfig }

// NewBIC returns the default diarizer with cfg's defaults filled in.
func NewBIC(cfg BICConfig) (*BIC, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.Coefficients == 0 {
		cfg.Coefficients = 12
	}
	if cfg.Bands == 0 {
		cfg.Bands = max(24, cfg.Coefficients+1)
	}
	if cfg.SpeechRangeDB == 0 {
		cfg.SpeechRangeDB = 45
	}
	if cfg.ChangeLambda == 0 {
		cfg.ChangeLambda = 1.2
	}
	if cfg.ClusterLambda == 0 {
		cfg.ClusterLambda = 4
	}
	if cfg.ChangeWindowMS == 0 {
		cfg.ChangeWindowMS = 1500
	}
	if cfg.MaxMergeDistance == 0 {
		cfg.MaxMergeDistance = 0.6
	}
	if cfg.SwitchPenalty == 0 {
		cfg.SwitchPenalty = 60
	}
	if cfg.MergeGapMS == 0 {
		cfg.MergeGapMS = 500
	}
	return &BIC{cfg: cfg}, nil
}

// Config returns the effective configuration.
func (b *BIC) Config() BICConfig { return b.cfg }

const (
	regularize   = 1e-3 // added to covariance diagonals (features are unit variance)
	minSegFrames = 30   // segments shorter than this are left to resegmentation
	blockFrames  = 10   // change-point candidates every 100 ms
)

// Diarize implements Diarizer.
func (b *BIC) Diarize(ctx context.Context, audio []int16, sampleRate int, opts Options) ([]Segment, error) {
	if sampleRate < 8000 {
		return nil, fmt.Errorf("%w: sample rate %d Hz; need at least 8000", ErrBadInput, sampleRate)
	}
	lo, hi, err := opts.bounds()
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ex := newMFCCExtractor(sampleRate, b.cfg.Bands, b.cfg.Coefficients)
	feat := ex.extract(audio)
	speech := detectSpeech(feat.energy, b.cfg.SpeechRangeDB, 15, 10)
	if len(speech) == 0 {
		return nil, nil
	}
	normalize(feat.mfcc, speech)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d := b.cfg.Coefficients

	// 1. Change points inside each stretch of speech.
	var segs []span
	win := max(b.cfg.ChangeWindowMS/frameMS/blockFrames, 3)
	for _, sp := range speech {
		cuts := changePoints(feat.mfcc, sp, d, win, b.cfg.ChangeLambda)
		from := sp.from
		for _, c := range cuts {
			segs = append(segs, span{from, c})
			from = c
		}
		segs = append(segs, span{from, sp.to})
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// 2. Agglomerative clustering of the segments long enough to model.
	var clusters []cluster
	for _, s := range segs {
		if s.len() < minSegFrames {
			continue
		}
		st := newGstats(d)
		for f := s.from; f < s.to; f++ {
			st.addFrame(feat.mfcc[f])
		}
		clusters = append(clusters, cluster{stats: st})
	}
	if len(clusters) == 0 { // only fragments: one speaker
		st := newGstats(d)
		for _, s := range speech {
			for f := s.from; f < s.to; f++ {
				st.addFrame(feat.mfcc[f])
			}
		}
		clusters = append(clusters, cluster{stats: st})
	}
	clusters = premerge(clusters, maxClusters, b.cfg.ClusterLambda)
	clusters, err = agglomerate(ctx, clusters, lo, hi, b.cfg.ClusterLambda, b.cfg.MaxMergeDistance)
	if err != nil {
		return nil, err
	}

	// 3. Viterbi resegmentation of every speech frame, twice, re-estimating
	// the speaker models in between.
	labels := make([]int, len(feat.mfcc))
	for iter := 0; iter < 2; iter++ {
		models := make([]gaussian, len(clusters))
		for i, c := range clusters {
			models[i] = c.stats.gaussian(regularize)
		}
		for i := range labels {
			labels[i] = -1
		}
		for _, sp := range speech {
			viterbi(feat.mfcc, sp, models, b.cfg.SwitchPenalty, labels)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		next := make([]cluster, len(clusters))
		for i := range next {
			next[i].stats = newGstats(d)
		}
		for f, l := range labels {
			if l >= 0 {
				next[l].stats.addFrame(feat.mfcc[f])
			}
		}
		// speakers left with almost no frames are dropped
		kept := next[:0]
		for _, c := range next {
			if c.stats.n >= minSegFrames || (c.stats.n > 0 && len(clusters) == 1) {
				kept = append(kept, c)
			}
		}
		if len(kept) == 0 {
			break
		}
		if len(kept) < len(next) && iter == 1 {
			// a model lost its frames on the last pass: run once more
			// with the survivors so no frame keeps a dropped label.
			clusters = kept
			iter--
			continue
		}
		clusters = kept
	}
	return toSegments(labels, b.cfg.MergeGapMS/frameMS), nil
}

// normalize scales each coefficient to zero mean and unit variance over the
// speech frames (all frames are transformed).
func normalize(x [][]float64, speech []span) {
	if len(x) == 0 {
		return
	}
	d := len(x[0])
	mean, sq := make([]float64, d), make([]float64, d)
	n := 0.0
	for _, s := range speech {
		for f := s.from; f < s.to; f++ {
			for i, v := range x[f] {
				mean[i] += v
				sq[i] += v * v
			}
			n++
		}
	}
	for i := range mean {
		mean[i] /= n
		sq[i] = math.Sqrt(math.Max(sq[i]/n-mean[i]*mean[i], 1e-8))
	}
	for _, v := range x {
		for i := range v {
			v[i] = (v[i] - mean[i]) / sq[i]
		}
	}
}

// changePoints finds speaker changes inside sp by comparing the windows of
// win blocks either side of every block boundary with ΔBIC, keeping local
// maxima above zero at least a window apart.
func changePoints(x [][]float64, sp span, d, win int, lambda float64) []int {
	nb := sp.len() / blockFrames
	if nb < 2*minSegFrames/blockFrames {
		return nil
	}
	blocks := make([]gstats, nb)
	for bi := range blocks {
		blocks[bi] = newGstats(d)
		for f := sp.from + bi*blockFrames; f < sp.from+(bi+1)*blockFrames; f++ {
			blocks[bi].addFrame(x[f])
		}
	}
	// the last partial block belongs to the last full one
	for f := sp.from + nb*blockFrames; f < sp.to; f++ {
		blocks[nb-1].addFrame(x[f])
	}
	minSide := minSegFrames / blockFrames
	score := make([]float64, nb)
	for t := minSide; t <= nb-minSide; t++ {
		l, r := newGstats(d), newGstats(d)
		for k := max(0, t-win); k < t; k++ {
			l.add(blocks[k])
		}
		for k := t; k < min(nb, t+win); k++ {
			r.add(blocks[k])
		}
		score[t-1] = deltaBIC(l, r, lambda, regularize)
	}
	var cuts []int
	for t := minSide; t <= nb-minSide; t++ {
		s := score[t-1]
		if s <= 0 {
			continue
		}
		best := true
		for k := max(minSide, t-win); k <= min(nb-minSide, t+win); k++ {
			if k != t && (score[k-1] > s || (score[k-1] == s && k < t)) {
				best = false
				break
			}
		}
		if best {
			cuts = append(cuts, sp.from+t*blockFrames)
		}
	}
	return cuts
}

type cluster struct{ stats gstats }

// maxClusters bounds the segments agglomerate starts from: its distance
// matrix takes O(n²) memory and its merges O(n³) time, and hours of speech
// can hold tens of thousands of segments.
const maxClusters = 1200

// premerge reduces cs (in time order) to at most limit clusters by merging
// neighbours in time, first those that BIC says are one speaker, then with
// a rising tolerance. Merging neighbours is safe because a turn usually
// spans several segments, and resegmentation relabels every frame later.
func premerge(cs []cluster, limit int, lambda float64) []cluster {
	for tol := 0.0; len(cs) > limit; tol = tol*2 + 100 {
		out := cs[:1]
		for i, c := range cs[1:] {
			last := &out[len(out)-1]
			// clusters left if nothing more is merged: out, c and the rest
			left := len(out) + len(cs) - 1 - i
			if left > limit && deltaBIC(last.stats, c.stats, lambda, regularize) < tol {
				last.stats.add(c.stats)
				continue
			}
			out = append(out, c)
		}
		cs = out
	}
	return cs
}

// agglomerate clusters segments bottom-up. While there are more than lo
// clusters it merges the pair with the smallest ΔBIC as long as that is
// negative (or there are more than hi clusters); then, for recordings long
// enough that clusters hold many seconds each, it goes on merging the pair
// with the smallest per-frame likelihood ratio while that stays below
// maxGLR, since ΔBIC between two big clusters of one speaker grows with
// their size.
func agglomerate(ctx context.Context, cs []cluster, lo, hi int, lambda, maxGLR float64) ([]cluster, error) {
	n := len(cs)
	ld := make([]float64, n) // log|Σ| of each cluster
	for i := range cs {
		ld[i] = cs[i].stats.logdet(regularize)
	}
	bic := func(i, j int) float64 {
		return deltaBICWith(cs[i].stats, cs[j].stats, ld[i], ld[j], lambda, regularize)
	}
	dist := make([][]float64, n)
	for i := range dist {
		dist[i] = make([]float64, n)
		for j := 0; j < i; j++ {
			dist[i][j] = bic(i, j)
			dist[j][i] = dist[i][j]
		}
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
	}
	alive := make([]bool, n)
	for i := range alive {
		alive[i] = true
	}
	merge := func(bi, bj int) {
		cs[bj].stats.add(cs[bi].stats)
		ld[bj] = cs[bj].stats.logdet(regularize)
		alive[bi] = false
		for i := 0; i < n; i++ {
			if alive[i] && i != bj {
				dist[i][bj] = bic(i, bj)
				dist[bj][i] = dist[i][bj]
			}
		}
	}
	k := n
	for ; k > lo; k-- {
		bi, bj, best := -1, -1, math.Inf(1)
		for i := 0; i < n; i++ {
			if !alive[i] {
				continue
			}
			for j := 0; j < i; j++ {
				if alive[j] && dist[i][j] < best {
					bi, bj, best = i, j, dist[i][j]
				}
			}
		}
		if bi < 0 || (k <= hi && best >= 0) {
			break
		}
		merge(bi, bj)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	for ; k > lo && maxGLR > 0; k-- {
		bi, bj, best := -1, -1, math.Inf(1)
		for i := 0; i < n; i++ {
			if !alive[i] {
				continue
			}
			for j := 0; j < i; j++ {
				if !alive[j] {
					continue
				}
				if g := glrPerFrame(cs[i].stats, cs[j].stats, regularize); g < best {
					bi, bj, best = i, j, g
				}
			}
		}
		if bi < 0 || best >= maxGLR {
			break
		}
		merge(bi, bj)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	out := cs[:0]
	for i, c := range cs {
		if alive[i] {
			out = append(out, c)
		}
	}
	return out, nil
}

// viterbi labels the frames of sp with the model sequence of highest
// likelihood, paying penalty for every switch.
func viterbi(x [][]float64, sp span, models []gaussian, penalty float64, labels []int) {
	k := len(models)
	if k == 1 {
		for f := sp.from; f < sp.to; f++ {
			labels[f] = 0
		}
		return
	}
	n := sp.len()
	back := make([]int32, n*k)
	score := make([]float64, k)
	next := make([]float64, k)
	tmp := make([]float64, len(x[0]))
	for f := 0; f < n; f++ {
		bestPrev, bestScore := 0, math.Inf(-1)
		for s := 0; s < k; s++ {
			if score[s] > bestScore {
				bestPrev, bestScore = s, score[s]
			}
		}
		for s := 0; s < k; s++ {
			ll := models[s].logLik(x[sp.from+f], tmp)
			stay, sw := score[s], bestScore-penalty
			if f == 0 || stay >= sw || bestPrev == s {
				next[s] = stay + ll
				back[f*k+s] = int32(s)
			} else {
				next[s] = sw + ll
				back[f*k+s] = int32(bestPrev)
			}
		}
		score, next = next, score
	}
	s := 0
	for i := range score {
		if score[i] > score[s] {
			s = i
		}
	}
	for f := n - 1; f >= 0; f-- {
		labels[sp.from+f] = s
		s = int(back[f*k+s])
	}
}

// toSegments turns frame labels (-1 for non-speech) into segments, joining
// same-speaker runs separated by fewer than gap frames, and renumbers
// speakers in order of first appearance.
func toSegments(labels []int, gap int) []Segment {
	type run struct{ from, to, l int }
	var runs []run
	for f, l := range labels {
		if l < 0 {
			continue
		}
		if n := len(runs); n > 0 && runs[n-1].l == l && f-runs[n-1].to < gap {
			runs[n-1].to = f + 1
			continue
		}
		runs = append(runs, run{f, f + 1, l})
	}
	order := map[int]int{}
	segs := make([]Segment, 0, len(runs))
	for _, r := range runs {
		id, ok := order[r.l]
		if !ok {
			id = len(order)
			order[r.l] = id
		}
		segs = append(segs, Segment{Start: int64(r.from * frameMS), End: int64(r.to * frameMS), Speaker: id})
	}
	return segs
}

// renumber returns segs sorted by start with speakers renumbered 0, 1, ...
// in order of first appearance; diarizers that number speakers otherwise
// can use it before returning.
func renumber(segs []Segment) []Segment {
	out := append([]Segment(nil), segs...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	order := map[int]int{}
	for i, s := range out {
		id, ok := order[s.Speaker]
		if !ok {
			id = len(order)
			order[s.Speaker] = id
		}
		out[i].Speaker = id
	}
	return out
}
