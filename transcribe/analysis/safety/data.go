package safety

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/earshot-dev/earshot/transcribe/analysis/topics/topicdata"
)

// Tweet is one row of Davidson et al.'s labelled tweets
// (data/labeled_data.csv): Class 0 hate speech, 1 offensive language, 2
// neither, in the annotators' majority.
type Tweet struct {
	ID    int
	Class int
	Text  string
	Split string // topicdata.Train, Dev or Test
}

// DavidsonSplit is the fixed split of the tweets by row id: test when
// id mod 10 = 0, dev when id mod 10 = 1, else train. The test part is
// never trained or tuned on.
func DavidsonSplit(id int) string {
	switch id % 10 {
	case 0:
		return topicdata.Test
	case 1:
		return topicdata.Dev
	}
	return topicdata.Train
}

// ReadDavidson reads data/labeled_data.csv of
// github.com/t-davidson/hate-speech-and-offensive-language (header
// ",count,hate_speech,offensive_language,neither,class,tweet").
func ReadDavidson(r io.Reader) ([]Tweet, error) {
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("safety: Davidson CSV: %w", err)
	}
	if len(recs) < 2 || len(recs[0]) != 7 || recs[0][5] != "class" || recs[0][6] != "tweet" {
		return nil, fmt.Errorf("safety: Davidson CSV: want the header \",count,hate_speech,offensive_language,neither,class,tweet\"")
	}
	out := make([]Tweet, 0, len(recs)-1)
	for n, r := range recs[1:] {
		id, err1 := strconv.Atoi(r[0])
		c, err2 := strconv.Atoi(r[5])
		if err1 != nil || err2 != nil || c < 0 || c > 2 {
			return nil, fmt.Errorf("safety: Davidson CSV: row %d: bad id or class", n+2)
		}
		out = append(out, Tweet{ID: id, Class: c, Text: strings.Join(strings.Fields(r[6]), " "), Split: DavidsonSplit(id)})
	}
	return out, nil
}

// Context domains of the context model: what a stretch of text is
// about, at the grain that decides how its ambiguous words read.
// Leisure domains are sport, arts (entertainment, culture, comedy), tech
// and lifestyle (style, home, food, travel).
const (
	DomainSport     = "sport"
	DomainArts      = "arts"
	DomainTech      = "tech"
	DomainLifestyle = "lifestyle"
	DomainNews      = "news"
	DomainBusiness  = "business"
	DomainHealth    = "health"
	DomainScience   = "science"
)

// Domains lists the context model's classes in its order.
var Domains = []string{DomainSport, DomainArts, DomainTech, DomainLifestyle, DomainNews, DomainBusiness, DomainHealth, DomainScience}

// DomainOf maps a topicdata class (BBC News and HuffPost categories
// mapped to IAB families) to a context domain; ok is false for classes
// the context model leaves out (family, religion, education: news sets
// have too few of them to learn from).
func DomainOf(class string) (domain string, ok bool) {
	switch class {
	case "Sports":
		return DomainSport, true
	case "Entertainment":
		return DomainArts, true
	case "Technology&Computing":
		return DomainTech, true
	case "Style&Fashion", "Home&Garden", "Food&Drink", "Travel":
		return DomainLifestyle, true
	case "NewsAndPolitics":
		return DomainNews, true
	case "BusinessAndFinance", "PersonalFinance":
		return DomainBusiness, true
	case "Health":
		return DomainHealth, true
	case "Science":
		return DomainScience, true
	}
	return "", false
}

// IsLeisure reports whether a domain is one whose texts use violent and
// medical words figuratively or about games ("shot", "attack",
// "injury", a computer "virus").
func IsLeisure(domain string) bool {
	switch domain {
	case DomainSport, DomainArts, DomainTech, DomainLifestyle:
		return true
	}
	return false
}
