package punctmodel

// align aligns recognized words (hyp) to reference words (ref) with the
// word-level edit distance and returns, for each hyp word, the index of its
// reference word (matched or substituted), or -1 for an inserted word.
func align(ref, hyp []string) []int {
	n, m := len(ref), len(hyp)
	// d[i][j]: cost of ref[:i] against hyp[:j].
	d := make([][]int32, n+1)
	for i := range d {
		d[i] = make([]int32, m+1)
		d[i][0] = int32(i)
	}
	for j := range m + 1 {
		d[0][j] = int32(j)
	}
	for i := 1; i <= n; i++ {
		for j := 1; j <= m; j++ {
			sub := d[i-1][j-1]
			if ref[i-1] != hyp[j-1] {
				sub++
			}
			d[i][j] = min(sub, d[i-1][j]+1, d[i][j-1]+1)
		}
	}
	out := make([]int, m)
	for i, j := n, m; j > 0; {
		switch {
		case i > 0 && d[i][j] == d[i-1][j-1]+b2i(ref[i-1] != hyp[j-1]):
			out[j-1] = i - 1
			i, j = i-1, j-1
		case i > 0 && d[i][j] == d[i-1][j]+1:
			i--
		default:
			out[j-1] = -1
			j--
		}
	}
	return out
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// transferMarks gives each recognized word the gold mark of the reference
// text, through an alignment from align: a hyp word takes the mark of its
// reference word, and the marks of reference words the recognizer dropped
// move to the hyp word before them (the strongest mark wins: "?" over "."
// over ","), so that no sentence end is lost.
func transferMarks(refMarks []Mark, align []int) []Mark {
	out := make([]Mark, len(align))
	last := -1 // last hyp word with a reference word
	for j, i := range align {
		if i < 0 {
			continue
		}
		if last >= 0 {
			// reference words strictly between the previous matched one
			// and this one were dropped: their marks go to the hyp word
			// before this one.
			for k := align[last] + 1; k < i; k++ {
				out[j-1] = stronger(out[j-1], refMarks[k])
			}
		}
		out[j] = stronger(out[j], refMarks[i])
		last = j
	}
	if last >= 0 {
		for k := align[last] + 1; k < len(refMarks); k++ {
			out[len(out)-1] = stronger(out[len(out)-1], refMarks[k])
		}
	}
	return out
}

func stronger(a, b Mark) Mark {
	rank := [numMarks]int{None: 0, Comma: 1, Period: 2, Question: 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}
