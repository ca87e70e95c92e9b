// Package topicdata reads the public labelled news sets that train and
// evaluate the topic family model of package topics, maps their
// categories to IAB Content Taxonomy 2.0 tier-1 categories, and splits
// them into fixed train, dev and test parts.
//
// Sets (none is written by Earshot's authors):
//
//   - BBC News (D. Greene and P. Cunningham, ICML 2006,
//     http://mlg.ucd.ie/datasets/bbc.html): 2,225 articles from 2004-2005
//     in five classes, one file per article (bbc/<class>/<NNN>.txt). The
//     articles' copyright is the BBC's, so no text of it is committed;
//     read from a copy, e.g. the mirror in
//     github.com/dejanbatanjac/bbc-article-classify-bert (commit
//     8265dc84e88b82b87ce7f5b2df5bbbb1159ae922, folder bbc).
//   - News Category Dataset (Rishabh Misra, arXiv:2209.11429; HuffPost
//     headlines and short descriptions 2012-2022), licence Creative
//     Commons Attribution 4.0: one JSON object per line with "category",
//     "headline" and "short_description". Read from a copy, e.g. the
//     first 10,000 records in github.com/Limpery/MGO (commit
//     6229ca6e9d6d63af0a5c1dcf0d3fd9bdbe0580c6,
//     News_Category_Dataset_v3.json).
//
// Splits are fixed by a document's number, never by chance: BBC file
// NNN is test when NNN mod 5 = 0, dev when NNN mod 5 = 1, else train;
// HuffPost record i (0-based, counting parsed records) is test when
// i mod 10 = 0, dev when i mod 10 = 1, else train. The test parts are
// never trained or tuned on.
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: the class
// tables of the public sets (BBCClasses, HuffPostClasses, Class) that the
// training command and the evaluations share.
package topicdata

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Split names.
const (
	Train = "train"
	Dev   = "dev"
	Test  = "test"
)

// Doc is one labelled document.
type Doc struct {
	ID    string // "bbc/business/001", "huffpost/123"
	Class string // the family (a Classes name)
	Text  string
	Split string // Train, Dev or Test
}

// Class is one class of the family model: a name and the IAB tier-1
// categories it stands for. A text of the class is rightly labelled when
// its first label's tier-1 category is one of Members.
type Class struct {
	Name    string
	Members []string
}

// Classes are the family model's classes: the 29 IAB tier-1 categories,
// with the entertainment categories (which news sets do not tell apart)
// and the two health categories as one class each.
var Classes = []Class{
	{"NewsAndPolitics", []string{"NewsAndPolitics"}},
	{"Sports", []string{"Sports"}},
	{"BusinessAndFinance", []string{"BusinessAndFinance"}},
	{"Technology&Computing", []string{"Technology&Computing"}},
	{"Entertainment", []string{"PopCulture", "Movies", "MusicAndAudio", "Television", "BooksAndLiterature", "FineArt"}},
	{"Science", []string{"Science"}},
	{"Style&Fashion", []string{"Style&Fashion"}},
	{"Home&Garden", []string{"Home&Garden"}},
	{"Health", []string{"MedicalHealth", "HealthyLiving"}},
	{"FamilyAndRelationships", []string{"FamilyAndRelationships"}},
	{"Food&Drink", []string{"Food&Drink"}},
	{"Religion&Spirituality", []string{"Religion&Spirituality"}},
	{"Travel", []string{"Travel"}},
	{"Education", []string{"Education"}},
	{"PersonalFinance", []string{"PersonalFinance"}},
	{"Automotive", []string{"Automotive"}},
	{"Careers", []string{"Careers"}},
	{"EventsAndAttractions", []string{"EventsAndAttractions"}},
	{"Hobbies&Interests", []string{"Hobbies&Interests"}},
	{"Pets", []string{"Pets"}},
	{"RealEstate", []string{"RealEstate"}},
	{"Shopping", []string{"Shopping"}},
	{"VideoGaming", []string{"VideoGaming"}},
}

// ClassOf returns the class a tier-1 category belongs to.
func ClassOf(tier1 string) (string, bool) {
	for _, c := range Classes {
		for _, m := range c.Members {
			if m == tier1 {
				return c.Name, true
			}
		}
	}
	return "", false
}

// Members returns the tier-1 categories of a class.
func Members(class string) []string {
	for _, c := range Classes {
		if c.Name == class {
			return c.Members
		}
	}
	return nil
}

// BBCClasses maps the BBC set's folders to classes.
var BBCClasses = map[string]string{
	"business":      "BusinessAndFinance",
	"entertainment": "Entertainment",
	"politics":      "NewsAndPolitics",
	"sport":         "Sports",
	"tech":          "Technology&Computing",
}

// HuffPostClasses maps the News Category Dataset's categories to classes.
// Categories about a community or a tone rather than a topic (BLACK
// VOICES, QUEER VOICES, WOMEN, IMPACT, WEIRD NEWS, GOOD NEWS, FIFTY,
// MEDIA) are left out.
var HuffPostClasses = map[string]string{
	"POLITICS": "NewsAndPolitics", "U.S. NEWS": "NewsAndPolitics", "WORLD NEWS": "NewsAndPolitics",
	"WORLDPOST": "NewsAndPolitics", "THE WORLDPOST": "NewsAndPolitics", "CRIME": "NewsAndPolitics",
	"ENTERTAINMENT": "Entertainment", "COMEDY": "Entertainment", "CULTURE & ARTS": "Entertainment",
	"ARTS": "Entertainment", "ARTS & CULTURE": "Entertainment",
	"SPORTS": "Sports", "BUSINESS": "BusinessAndFinance", "MONEY": "PersonalFinance",
	"TECH": "Technology&Computing", "SCIENCE": "Science", "ENVIRONMENT": "Science", "GREEN": "Science",
	"STYLE & BEAUTY": "Style&Fashion", "STYLE": "Style&Fashion", "HOME & LIVING": "Home&Garden",
	"WELLNESS": "Health", "HEALTHY LIVING": "Health", "PARENTING": "FamilyAndRelationships",
	"PARENTS": "FamilyAndRelationships", "WEDDINGS": "FamilyAndRelationships", "DIVORCE": "FamilyAndRelationships",
	"FOOD & DRINK": "Food&Drink", "TASTE": "Food&Drink", "RELIGION": "Religion&Spirituality",
	"TRAVEL": "Travel", "EDUCATION": "Education", "COLLEGE": "Education",
}

// streamingListing matches the text of HuffPost's HOME & LIVING lists of
// what streams where ("The Most Popular Movies On Netflix Right Now",
// "New On Netflix July 2022"): half of that category's records.
var streamingListing = regexp.MustCompile(`(?i)\b(netflix|hulu|amazon prime|prime video|disney\+|hbo max|streaming)\b`)

// TrainingClass is the class a training command counts d under: its
// class, except that a HuffPost HOME & LIVING record that lists films or
// shows on a streaming service is Entertainment. Taken as Home & Garden,
// 56 such training records taught the model that Netflix is about the
// home (a list of new Netflix shows got Home & Garden 0.62). The gold
// labels of the dev and test parts are left as published.
func TrainingClass(d Doc) string {
	if d.Class == "Home&Garden" && strings.HasPrefix(d.ID, "huffpost/") && streamingListing.MatchString(d.Text) {
		return "Entertainment"
	}
	return d.Class
}

// ReadBBC reads the BBC News set from dir (holding business/,
// entertainment/, politics/, sport/ and tech/). Its files are Latin-1
// or UTF-8 text: title line, blank line, body.
func ReadBBC(dir string) ([]Doc, error) {
	var out []Doc
	folders := make([]string, 0, len(BBCClasses))
	for f := range BBCClasses {
		folders = append(folders, f)
	}
	sort.Strings(folders)
	for _, folder := range folders {
		files, err := filepath.Glob(filepath.Join(dir, folder, "*.txt"))
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("topicdata: no BBC articles in %s", filepath.Join(dir, folder))
		}
		sort.Strings(files)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			base := strings.TrimSuffix(filepath.Base(f), ".txt")
			n, err := strconv.Atoi(base)
			if err != nil {
				return nil, fmt.Errorf("topicdata: %s: not a numbered article", f)
			}
			split := Train
			switch n % 5 {
			case 0:
				split = Test
			case 1:
				split = Dev
			}
			out = append(out, Doc{ID: "bbc/" + folder + "/" + base, Class: BBCClasses[folder], Text: latin1(b), Split: split})
		}
	}
	return out, nil
}

// latin1 returns b as text, reading it as Latin-1 when it is not UTF-8.
func latin1(b []byte) string {
	s := string(b)
	if strings.ToValidUTF8(s, "\uFFFD") == s {
		return s
	}
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}

// ReadHuffPost reads the News Category Dataset (JSON lines), keeping the
// records whose category HuffPostClasses maps; a record's text is its
// headline and short description. A line that is not a JSON object
// (a truncated copy's last line) is skipped and not counted.
func ReadHuffPost(path string) ([]Doc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var out []Doc
	i := 0
	for sc.Scan() {
		var r struct {
			Category, Headline string
			Desc               string `json:"short_description"`
		}
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			continue
		}
		n := i
		i++
		c, ok := HuffPostClasses[r.Category]
		if !ok {
			continue
		}
		split := Train
		switch n % 10 {
		case 0:
			split = Test
		case 1:
			split = Dev
		}
		text := strings.TrimSpace(r.Headline)
		if d := strings.TrimSpace(r.Desc); d != "" {
			if !strings.HasSuffix(text, ".") && !strings.HasSuffix(text, "?") && !strings.HasSuffix(text, "!") {
				text += "."
			}
			text += " " + d
		}
		out = append(out, Doc{ID: "huffpost/" + strconv.Itoa(n), Class: c, Text: text, Split: split})
	}
	return out, sc.Err()
}
