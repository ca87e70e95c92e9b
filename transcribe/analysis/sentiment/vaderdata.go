package sentiment

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"io"
	"strconv"
	"strings"
)

// Rated is one sentence of VADER's human-rated sets (Hutto and Gilbert,
// ICWSM 2014; cjhutto/vaderSentiment, additional_resources/
// hutto_ICWSM_2014.tar.gz, MIT licence): its id, the mean of about 20
// people's ratings on -4..4, and the text.
type Rated struct {
	ID     string
	Rating float64
	Text   string
}

// ReadRated reads a *_GroundTruth.txt file of VADER's sets: lines of id,
// mean rating and text separated by tabs.
func ReadRated(r io.Reader) ([]Rated, error) {
	var out []Rated
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		p := strings.SplitN(line, "\t", 3)
		if len(p) < 3 {
			return nil, fmt.Errorf("line %d: want id, rating and text separated by tabs", n)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(p[1]), 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: rating: %w", n, err)
		}
		out = append(out, Rated{ID: p[0], Rating: v, Text: p[2]})
	}
	return out, sc.Err()
}

// GoldBand is the least mean rating (in absolute value, on VADER's -4..4
// scale) of a sentence taken as POSITIVE or NEGATIVE in the external
// evaluation and in training; between -GoldBand and GoldBand it is
// NEUTRAL. Half a step of the raters' scale, fixed before any measuring.
const GoldBand = 0.5

// GoldLabel is the label of a mean rating (see GoldBand).
func GoldLabel(rating float64) string {
	switch {
	case rating >= GoldBand:
		return Positive
	case rating <= -GoldBand:
		return Negative
	}
	return Neutral
}

// HeldOut reports whether the sentence id of VADER set name ("tweets",
// "movieReviewSnippets", "amazonReviewSnippets", "nytEditorialSnippets")
// is in the fixed held-out half (FNV-1a hash of "name/id", odd), which
// training never reads.
func HeldOut(name, id string) bool {
	h := fnv.New32a()
	h.Write([]byte(name + "/" + id))
	return h.Sum32()%2 == 1
}

// VADERSets are the names of VADER's four human-rated sets.
var VADERSets = []string{"tweets", "movieReviewSnippets", "amazonReviewSnippets", "nytEditorialSnippets"}
