package punctmodel

import (
	"sort"
	"strings"
)

// strTable is a sorted table of strings, each with a value ("" in a set),
// held in two blocks of bytes with their offsets. Written here because
// the casing lexicon's 220,000 short entries as Go maps took about 12 MB
// and 25 MB of allocation to read, which the server keeps (and, with the
// garbage collector's headroom, about twice that) for as long as it runs;
// as a table they take about 4 MB. Lookups are a binary search.
type strTable struct {
	keys, vals string
	ko, vo     []uint32 // key i is keys[ko[i]:ko[i+1]], value i vals[vo[i]:vo[i+1]]
}

// newTable returns the table of keys and their values (vals nil: a set).
// Keys must be distinct.
func newTable(keys, vals []string) strTable {
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	if !sort.SliceIsSorted(idx, func(a, b int) bool { return keys[idx[a]] < keys[idx[b]] }) {
		sort.Slice(idx, func(a, b int) bool { return keys[idx[a]] < keys[idx[b]] })
	}
	var kb, vb strings.Builder
	nk, nv := 0, 0
	for i, k := range keys {
		nk += len(k)
		if vals != nil {
			nv += len(vals[i])
		}
	}
	kb.Grow(nk)
	vb.Grow(nv)
	t := strTable{ko: make([]uint32, 1, len(keys)+1)}
	if vals != nil {
		t.vo = make([]uint32, 1, len(keys)+1)
	}
	for _, i := range idx {
		kb.WriteString(keys[i])
		t.ko = append(t.ko, uint32(kb.Len()))
		if vals != nil {
			vb.WriteString(vals[i])
			t.vo = append(t.vo, uint32(vb.Len()))
		}
	}
	t.keys, t.vals = kb.String(), vb.String()
	return t
}

// mapTable and setTable return the table of a map.
func mapTable(m map[string]string) strTable {
	keys, vals := make([]string, 0, len(m)), make([]string, 0, len(m))
	for k, v := range m {
		keys, vals = append(keys, k), append(vals, v)
	}
	return newTable(keys, vals)
}

func setTable(m map[string]struct{}) strTable {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return newTable(keys, nil)
}

func (t *strTable) len() int { return max(len(t.ko)-1, 0) }

func (t *strTable) key(i int) string { return t.keys[t.ko[i]:t.ko[i+1]] }

func (t *strTable) find(k string) int {
	n := t.len()
	i := sort.Search(n, func(i int) bool { return t.key(i) >= k })
	if i < n && t.key(i) == k {
		return i
	}
	return -1
}

func (t *strTable) has(k string) bool { return t.find(k) >= 0 }

// get returns k's value.
func (t *strTable) get(k string) (string, bool) {
	i := t.find(k)
	if i < 0 {
		return "", false
	}
	if t.vo == nil {
		return "", true
	}
	return t.vals[t.vo[i]:t.vo[i+1]], true
}

// each calls fn with each key and its value, in key order.
func (t *strTable) each(fn func(k, v string)) {
	for i := range t.len() {
		v := ""
		if t.vo != nil {
			v = t.vals[t.vo[i]:t.vo[i+1]]
		}
		fn(t.key(i), v)
	}
}

// bytes is the memory the table takes.
func (t *strTable) bytes() int { return len(t.keys) + len(t.vals) + 4*len(t.ko) + 4*len(t.vo) }

// tableBuilder builds a table from entries added in order, copying them
// into its blocks as they come (no string per entry); entries out of
// order are sorted at the end.
type tableBuilder struct {
	keys, vals []byte
	ko, vo     []uint32
	unsorted   bool
}

func (b *tableBuilder) add(k, v []byte, withVal bool) {
	if len(b.ko) == 0 {
		b.ko = append(b.ko, 0)
		if withVal {
			b.vo = append(b.vo, 0)
		}
	}
	if n := len(b.ko); n > 1 && string(b.keys[b.ko[n-2]:b.ko[n-1]]) >= string(k) {
		b.unsorted = true
	}
	b.keys = append(b.keys, k...)
	b.ko = append(b.ko, uint32(len(b.keys)))
	if withVal {
		b.vals = append(b.vals, v...)
		b.vo = append(b.vo, uint32(len(b.vals)))
	}
}

func (b *tableBuilder) table() strTable {
	t := strTable{keys: string(b.keys), vals: string(b.vals), ko: b.ko, vo: b.vo}
	if !b.unsorted {
		return t
	}
	keys := make([]string, t.len())
	var vals []string
	if t.vo != nil {
		vals = make([]string, t.len())
	}
	for i := range keys {
		keys[i] = t.key(i)
		if vals != nil {
			vals[i] = t.vals[t.vo[i]:t.vo[i+1]]
		}
	}
	return newTable(keys, vals)
}
