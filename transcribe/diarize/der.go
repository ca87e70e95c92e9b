package diarize

import (
	"math"
	"sort"
	"time"
)

// DERResult is a diarization error rate breakdown. Durations are scored
// time only (outside the collars).
type DERResult struct {
	// Scored is the reference speech time that was scored.
	Scored time.Duration
	// Missed is reference speech the hypothesis left unlabelled.
	Missed time.Duration
	// FalseAlarm is hypothesis speech where the reference has none.
	FalseAlarm time.Duration
	// Confusion is speech attributed to the wrong speaker under the best
	// one-to-one mapping of hypothesis to reference speakers.
	Confusion time.Duration
	// DER is (Missed + FalseAlarm + Confusion) / Scored; 0 when nothing
	// was scored.
	DER float64
	// Mapping maps hypothesis speakers to the reference speakers they were
	// matched with; unmatched hypothesis speakers are absent.
	Mapping map[int]int
}

// ScoreDER computes the diarization error rate of hyp against ref, the
// standard way (NIST md-eval): a no-score collar of the given width either
// side of every reference segment boundary, overlapping speech allowed on
// both sides, and the speaker mapping that maximizes matched time. Times are
// evaluated on a 10 ms grid.
func ScoreDER(ref, hyp []Segment, collar time.Duration) DERResult {
	const step = 10 // ms
	var end int64
	for _, s := range append(append([]Segment(nil), ref...), hyp...) {
		end = max(end, s.End)
	}
	n := int((end + step - 1) / step)
	// every frame is scored except those within collar of a reference
	// boundary
	scored := make([]bool, n)
	for i := range scored {
		scored[i] = true
	}
	c := collar.Milliseconds()
	for _, s := range ref {
		for _, b := range []int64{s.Start, s.End} {
			for f := max(0, int((b-c)/step)); f < min(n, int((b+c+step-1)/step)); f++ {
				scored[f] = false
			}
		}
	}
	speakersAt := func(segs []Segment) [][]int {
		at := make([][]int, n)
		for _, s := range segs {
			for f := max(0, int(s.Start/step)); f < min(n, int((s.End+step-1)/step)); f++ {
				mid := int64(f)*step + step/2
				if mid < s.Start || mid >= s.End {
					continue
				}
				at[f] = appendUnique(at[f], s.Speaker)
			}
		}
		return at
	}
	r, h := speakersAt(ref), speakersAt(hyp)
	// co-occurrence of (hyp, ref) speaker pairs over scored frames
	refIDs, hypIDs := ids(ref), ids(hyp)
	ri, hi := index(refIDs), index(hypIDs)
	co := make([][]float64, len(hypIDs))
	for i := range co {
		co[i] = make([]float64, len(refIDs))
	}
	var res DERResult
	var total, missed, fa, overlapMin float64
	for f := 0; f < n; f++ {
		if !scored[f] {
			continue
		}
		nr, nh := len(r[f]), len(h[f])
		total += float64(nr)
		missed += math.Max(0, float64(nr-nh))
		fa += math.Max(0, float64(nh-nr))
		overlapMin += float64(min(nr, nh))
		for _, hs := range h[f] {
			for _, rs := range r[f] {
				co[hi[hs]][ri[rs]]++
			}
		}
	}
	assign, matched := bestMapping(co)
	res.Mapping = map[int]int{}
	for hIdx, rIdx := range assign {
		if rIdx >= 0 {
			res.Mapping[hypIDs[hIdx]] = refIDs[rIdx]
		}
	}
	conf := overlapMin - matched
	ms := func(frames float64) time.Duration { return time.Duration(frames*step) * time.Millisecond }
	res.Scored, res.Missed, res.FalseAlarm, res.Confusion = ms(total), ms(missed), ms(fa), ms(conf)
	if total > 0 {
		res.DER = (missed + fa + conf) / total
	}
	return res
}

func appendUnique(s []int, v int) []int {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

func ids(segs []Segment) []int {
	seen := map[int]bool{}
	var out []int
	for _, s := range segs {
		if !seen[s.Speaker] {
			seen[s.Speaker] = true
			out = append(out, s.Speaker)
		}
	}
	sort.Ints(out)
	return out
}

func index(ids []int) map[int]int {
	m := make(map[int]int, len(ids))
	for i, id := range ids {
		m[id] = i
	}
	return m
}

// bestMapping returns the one-to-one assignment of rows (hypothesis
// speakers) to columns (reference speakers), -1 for none, maximizing the
// summed weights, and that sum. Exact by dynamic programming over subsets of
// columns when there are at most 16 columns, greedy beyond.
func bestMapping(w [][]float64) ([]int, float64) {
	rows := len(w)
	assign := make([]int, rows)
	for i := range assign {
		assign[i] = -1
	}
	if rows == 0 || len(w[0]) == 0 {
		return assign, 0
	}
	cols := len(w[0])
	if cols > 16 {
		type cell struct {
			i, j int
			v    float64
		}
		var cells []cell
		for i := range w {
			for j, v := range w[i] {
				cells = append(cells, cell{i, j, v})
			}
		}
		sort.Slice(cells, func(a, b int) bool { return cells[a].v > cells[b].v })
		usedC := make([]bool, cols)
		sum := 0.0
		for _, c := range cells {
			if assign[c.i] < 0 && !usedC[c.j] && c.v > 0 {
				assign[c.i], usedC[c.j] = c.j, true
				sum += c.v
			}
		}
		return assign, sum
	}
	full := 1 << cols
	// dp[i][mask]: best sum using rows < i and columns in mask.
	dp := make([][]float64, rows+1)
	choice := make([][]int8, rows+1)
	for i := range dp {
		dp[i] = make([]float64, full)
		choice[i] = make([]int8, full)
		for m := range dp[i] {
			dp[i][m] = math.Inf(-1)
		}
	}
	dp[0][0] = 0
	for i := 0; i < rows; i++ {
		for m := 0; m < full; m++ {
			if math.IsInf(dp[i][m], -1) {
				continue
			}
			if v := dp[i][m]; v > dp[i+1][m] {
				dp[i+1][m], choice[i+1][m] = v, -1
			}
			for j := 0; j < cols; j++ {
				if m&(1<<j) != 0 {
					continue
				}
				nm := m | 1<<j
				if v := dp[i][m] + w[i][j]; v > dp[i+1][nm] {
					dp[i+1][nm], choice[i+1][nm] = v, int8(j)
				}
			}
		}
	}
	bestM := 0
	for m := range dp[rows] {
		if dp[rows][m] > dp[rows][bestM] {
			bestM = m
		}
	}
	sum := dp[rows][bestM]
	m := bestM
	for i := rows; i > 0; i-- {
		j := choice[i][m]
		if j >= 0 {
			assign[i-1] = int(j)
			m &^= 1 << j
		}
	}
	return assign, sum
}
