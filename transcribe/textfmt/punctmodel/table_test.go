package punctmodel

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestStrTable: the table answers as the map it replaces, whether built
// from unsorted slices, from a map, or line by line in or out of order.
func TestStrTable(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	m := map[string]string{}
	for len(m) < 2000 {
		k := strconv.Itoa(r.IntN(1 << 20))
		m[k] = "V" + k
	}
	m["a b"], m["a"], m["ab"] = "", "A", "AB" // a prefix, a space, an empty value
	var inOrder, shuffled tableBuilder
	mt := mapTable(m)
	keys := make([]string, 0, len(m))
	mt.each(func(k, v string) {
		keys = append(keys, k)
		inOrder.add([]byte(k), []byte(v), true)
	})
	for _, i := range r.Perm(len(keys)) {
		shuffled.add([]byte(keys[i]), []byte(m[keys[i]]), true)
	}
	if !shuffled.unsorted || inOrder.unsorted {
		t.Fatalf("builder order: in order unsorted=%v, shuffled unsorted=%v", inOrder.unsorted, shuffled.unsorted)
	}
	for name, tb := range map[string]strTable{"map": mt, "in order": inOrder.table(), "shuffled": shuffled.table()} {
		if tb.len() != len(m) {
			t.Fatalf("%s: %d entries, want %d", name, tb.len(), len(m))
		}
		for k, v := range m {
			if got, ok := tb.get(k); !ok || got != v {
				t.Fatalf("%s: get(%q) = %q, %v; want %q", name, k, got, ok, v)
			}
		}
		for _, k := range []string{"", "zz", "a c", "-1", "A"} {
			if _, ok := tb.get(k); ok || tb.has(k) {
				t.Errorf("%s: %q found", name, k)
			}
		}
		prev := ""
		tb.each(func(k, _ string) {
			if k <= prev && prev != "" {
				t.Fatalf("%s: %q after %q", name, k, prev)
			}
			prev = k
		})
	}
	set := setTable(map[string]struct{}{"x": {}, "y": {}})
	if !set.has("x") || !set.has("y") || set.has("z") {
		t.Error("set lookups")
	}
	if v, ok := set.get("x"); !ok || v != "" {
		t.Errorf("set get = %q, %v", v, ok)
	}
	var empty strTable
	if empty.len() != 0 || empty.has("x") {
		t.Error("empty table")
	}
	var none tableBuilder
	if e := none.table(); e.len() != 0 || e.has("") {
		t.Error("empty builder")
	}
}
