package topicdata

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// NewsgroupClasses maps the 20 Newsgroups set's groups to classes. Every
// group has a topic of the taxonomy; the hardware, software and
// cryptography groups are all Technology & Computing, the religion groups
// (atheism among them) Religion & Spirituality.
var NewsgroupClasses = map[string]string{
	"alt.atheism":              "Religion&Spirituality",
	"comp.graphics":            "Technology&Computing",
	"comp.os.ms-windows.misc":  "Technology&Computing",
	"comp.sys.ibm.pc.hardware": "Technology&Computing",
	"comp.sys.mac.hardware":    "Technology&Computing",
	"comp.windows.x":           "Technology&Computing",
	"misc.forsale":             "Shopping",
	"rec.autos":                "Automotive",
	"rec.motorcycles":          "Automotive",
	"rec.sport.baseball":       "Sports",
	"rec.sport.hockey":         "Sports",
	"sci.crypt":                "Technology&Computing",
	"sci.electronics":          "Technology&Computing",
	"sci.med":                  "Health",
	"sci.space":                "Science",
	"soc.religion.christian":   "Religion&Spirituality",
	"talk.politics.guns":       "NewsAndPolitics",
	"talk.politics.mideast":    "NewsAndPolitics",
	"talk.politics.misc":       "NewsAndPolitics",
	"talk.religion.misc":       "Religion&Spirituality",
}

// NewsgroupWords is how many words of a post's own text are kept: a few
// posts are whole FAQs of thousands of words, which would outweigh the
// rest of their class.
const NewsgroupWords = 300

// Read20News reads the "bydate" version of the 20 Newsgroups set (Ken
// Lang, 1995; 18,846 Usenet posts of 1993 in 20 groups, sorted by date
// into a train and a test folder): dir holds 20news-bydate-train/ and
// 20news-bydate-test/, with one folder per group of numbered files. A
// post's text is its subject and its own lines: the headers, quoted
// lines ("> ...", "|> ..."), attribution lines ("... writes:") and the
// signature after a "--" line are dropped, as in the usual
// "headers, footers, quotes removed" reading of the set, and at most
// NewsgroupWords words are kept. Posts left without text are skipped.
//
// Splits: the test folder is Test; a train-folder post is Dev when its
// number mod 5 = 1, else Train.
func Read20News(dir string) ([]Doc, error) {
	groups := make([]string, 0, len(NewsgroupClasses))
	for g := range NewsgroupClasses {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	var out []Doc
	for _, part := range []string{"train", "test"} {
		for _, g := range groups {
			folder := filepath.Join(dir, "20news-bydate-"+part, g)
			files, err := os.ReadDir(folder)
			if err != nil {
				return nil, fmt.Errorf("topicdata: 20 Newsgroups: %w", err)
			}
			names := make([]string, 0, len(files))
			for _, f := range files {
				if !f.IsDir() {
					names = append(names, f.Name())
				}
			}
			sort.Strings(names)
			for _, name := range names {
				n, err := strconv.Atoi(name)
				if err != nil {
					continue // not a post
				}
				b, err := os.ReadFile(filepath.Join(folder, name))
				if err != nil {
					return nil, err
				}
				text := postText(latin1(b))
				if text == "" {
					continue
				}
				split := Test
				if part == "train" {
					split = Train
					if n%5 == 1 {
						split = Dev
					}
				}
				out = append(out, Doc{ID: "20news/" + g + "/" + name, Class: NewsgroupClasses[g], Text: text, Split: split})
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("topicdata: no 20 Newsgroups posts in %s", dir)
	}
	return out, nil
}

// postText is a Usenet post's subject and own lines (see Read20News).
func postText(post string) string {
	sc := bufio.NewScanner(strings.NewReader(post))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var subject string
	for sc.Scan() { // headers
		l := sc.Text()
		if strings.TrimSpace(l) == "" {
			break
		}
		if s, ok := strings.CutPrefix(l, "Subject:"); ok {
			subject = strings.TrimSpace(s)
			for {
				t := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(subject, "Re:"), "RE:"))
				if t == subject {
					break
				}
				subject = t
			}
		}
	}
	var body []string
	for sc.Scan() {
		l := strings.TrimRight(sc.Text(), " \t")
		t := strings.TrimSpace(l)
		switch {
		case t == "--" || strings.HasPrefix(l, "-- "):
			body = append(body, "\x00") // a signature follows (until the end)
		case strings.HasPrefix(t, ">") || strings.HasPrefix(t, "|") || strings.HasPrefix(t, ":"):
		case strings.HasSuffix(t, "writes:") || strings.HasSuffix(t, "wrote:") || strings.HasPrefix(t, "In article"):
		default:
			body = append(body, t)
		}
	}
	for i := len(body) - 1; i >= 0; i-- { // the last signature mark ends the text
		if body[i] == "\x00" {
			body = body[:i]
			break
		}
	}
	words := strings.Fields(subject + "\n" + strings.Join(body, "\n"))
	for i, w := range words {
		if w == "\x00" {
			words[i] = ""
		}
	}
	if len(words) > NewsgroupWords {
		words = words[:NewsgroupWords]
	}
	return strings.Join(strings.Fields(strings.Join(words, " ")), " ")
}
