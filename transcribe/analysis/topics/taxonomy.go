package topics

import (
	"bufio"
	"embed"
	"fmt"
	"strings"
)

// data holds the shipped taxonomy files: labels.txt and
// content-taxonomy-2.0.tsv are the IAB Tech Lab Content Taxonomy 2.0
// (CC BY 3.0, attribution in data/README.md); keywords.txt is Earshot's own.
//
//go:embed data/labels.txt data/content-taxonomy-2.0.tsv data/keywords.txt data/README.md
var data embed.FS

// node is one category of the taxonomy.
type node struct {
	label  string // API form, "Sports>Tennis"
	name   string // the taxonomy's own name, "Tennis"
	parent int    // index of the parent node; -1 for a tier-1 category
	root   int    // index of the tier-1 ancestor (itself for tier 1)
	depth  int    // 1 for tier 1
}

// taxonomy is the 698 categories in labels.txt order (a parent always comes
// before its children).
type taxonomy struct {
	nodes []node
	index map[string]int // label -> node index
}

// apiLabel turns the tiers of a taxonomy row into the API's label form:
// tier names joined with ">", spaces removed and the word "and" capitalised
// ("News and Politics" -> "NewsAndPolitics", "Home & Garden" ->
// "Home&Garden"), as data/README.md describes.
func apiLabel(tiers []string) string {
	parts := make([]string, 0, len(tiers))
	for _, t := range tiers {
		ws := strings.Fields(t)
		for i, w := range ws {
			if w == "and" {
				ws[i] = "And"
			}
		}
		parts = append(parts, strings.Join(ws, ""))
	}
	return strings.Join(parts, ">")
}

// loadTaxonomy reads labels.txt and takes each category's name from the
// TSV. It fails when the two files disagree, which a test checks.
func loadTaxonomy() (*taxonomy, error) {
	raw, err := data.ReadFile("data/labels.txt")
	if err != nil {
		return nil, err
	}
	tx := &taxonomy{index: map[string]int{}}
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if _, dup := tx.index[l]; dup {
			return nil, fmt.Errorf("topics: duplicate label %q", l)
		}
		n := node{label: l, parent: -1, depth: strings.Count(l, ">") + 1}
		if i := strings.LastIndex(l, ">"); i >= 0 {
			p, ok := tx.index[l[:i]]
			if !ok {
				return nil, fmt.Errorf("topics: label %q comes before its parent", l)
			}
			n.parent = p
			n.root = tx.nodes[p].root
		} else {
			n.root = len(tx.nodes)
		}
		tx.index[l] = len(tx.nodes)
		tx.nodes = append(tx.nodes, n)
	}
	names, err := tsvNames()
	if err != nil {
		return nil, err
	}
	for i := range tx.nodes {
		name, ok := names[tx.nodes[i].label]
		if !ok {
			return nil, fmt.Errorf("topics: label %q is not in the taxonomy TSV", tx.nodes[i].label)
		}
		tx.nodes[i].name = name
	}
	if len(names) != len(tx.nodes) {
		return nil, fmt.Errorf("topics: the TSV has %d content categories, labels.txt %d", len(names), len(tx.nodes))
	}
	return tx, nil
}

// tsvNames maps the API label of every content category of the TSV to its
// name, skipping the "Content ..." metadata dimensions that the API does
// not use.
func tsvNames() (map[string]string, error) {
	f, err := data.Open("data/content-taxonomy-2.0.tsv")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		cols := strings.Split(strings.TrimRight(sc.Text(), "\r"), "\t")
		if line <= 2 || len(cols) < 4 {
			continue // title and header rows
		}
		name := strings.TrimSpace(cols[2])
		var tiers []string
		for _, t := range cols[3:] {
			if t = strings.TrimSpace(t); t != "" {
				tiers = append(tiers, t)
			}
		}
		if len(tiers) == 0 || strings.HasPrefix(tiers[0], "Content ") {
			continue
		}
		out[apiLabel(tiers)] = name
	}
	return out, sc.Err()
}
