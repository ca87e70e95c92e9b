package pocketsphinx

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe"
)

func hasWord(ws []transcribe.Word, w string) (bool, float64) {
	for _, x := range ws {
		if x.Text == w {
			return true, x.Confidence
		}
	}
	return false, 0
}

// TestWordBoostRealSpeech: "tensorflow" is not in the dictionary and
// "gastroenterology" is in the dictionary but not the language model, so
// neither can be recognized plainly; boosted (at every boost_param) both
// are, and a plain request afterwards is unaffected.
func TestWordBoostRealSpeech(t *testing.T) {
	r := rec(t)
	ctx := context.Background()
	cases := []struct {
		text, term, param string
	}{
		{"my colleague siobhan uses tensorflow and postgres", "tensorflow", "low"},
		{"please ask the doctor about the gastroenterology results", "gastroenterology", "high"},
	}
	for _, c := range cases {
		audio := wav(t, testaudio.Speech(t, "slt", c.text))
		plain, err := r.Recognize(ctx, audio, transcribe.RecognizeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if ok, _ := hasWord(plain.Words, c.term); ok {
			t.Fatalf("%q recognized without boost (%q): the test proves nothing", c.term, words(plain.Words))
		}
		for _, p := range []string{c.param} {
			res, err := r.Recognize(ctx, audio, transcribe.RecognizeOptions{WordBoost: []string{c.term, "siobhan"}, BoostParam: p})
			if err != nil {
				t.Fatal(err)
			}
			ok, conf := hasWord(res.Words, c.term)
			if !ok {
				t.Errorf("boost_param %s: %q not recognized: %q (plain %q)", p, c.term, words(res.Words), words(plain.Words))
			}
			t.Logf("boost_param %s: %q (confidence %.2f)\n   plain: %q", p, words(res.Words), conf, words(plain.Words))
		}
		again, err := r.Recognize(ctx, audio, transcribe.RecognizeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if words(again.Words) != words(plain.Words) {
			t.Errorf("plain request after a boosted one: %q, before %q", words(again.Words), words(plain.Words))
		}
	}
}

// TestWordBoostNoFalseInsertions: boosting terms that are not spoken does
// not put them into the transcript.
func TestWordBoostNoFalseInsertions(t *testing.T) {
	r := rec(t)
	audio := wav(t, testaudio.Speech(t, "slt", "the quick brown fox jumps over the lazy dog"))
	res, err := r.Recognize(context.Background(), audio, transcribe.RecognizeOptions{WordBoost: []string{"kubernetes", "quarterly revenue", "zanzibar"}, BoostParam: "high"})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"kubernetes", "quarterly", "revenue", "zanzibar"} {
		if ok, _ := hasWord(res.Words, w); ok {
			t.Errorf("unspoken boosted %q inserted: %q", w, words(res.Words))
		}
	}
}

func TestWordBoostStream(t *testing.T) {
	r := rec(t)
	audio := wav(t, testaudio.Speech(t, "slt", "my colleague siobhan uses tensorflow and postgres"))
	st, err := r.NewStream(context.Background(), transcribe.StreamOptions{SampleRate: SampleRate, WordBoost: []string{"tensorflow"}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Write(audio); err != nil {
		t.Fatal(err)
	}
	h, err := st.EndUtterance()
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := hasWord(h.Words, "tensorflow"); !ok {
		t.Errorf("boosted stream: %q", words(h.Words))
	}
}

func TestParseBoost(t *testing.T) {
	p, err := parseBoost([]string{"Kubernetes", "  ", "quarterly-revenue", "don't", "kubernetes"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if p.weight != boostWeights["default"] {
		t.Errorf("weight %v", p.weight)
	}
	want := [][]string{{"kubernetes"}, {"quarterly", "revenue"}, {"don't"}}
	if len(p.phrases) != len(want) {
		t.Fatalf("phrases %v, want %v", p.phrases, want)
	}
	for i := range want {
		if !slices.Equal(p.phrases[i], want[i]) {
			t.Errorf("phrase %d = %v, want %v", i, p.phrases[i], want[i])
		}
	}
	p, err = parseBoost([]string{"AWS lambda", "Café Noir"}, "low")
	if err != nil || !p.acronyms["aws"] || p.acronyms["lambda"] || !slices.Equal(p.phrases[1], []string{"cafe", "noir"}) {
		t.Errorf("acronyms/folding: %+v %v", p, err)
	}
	if got := spell("aws"); got != "EY D AH B AH L Y UW EH S" {
		t.Errorf("spell(aws) = %q", got)
	}
	// An acronym too long to spell within maxPronPhones (31 letters, 61
	// phones; found by FuzzBoostTerms) falls back to the spelling rules.
	long := "ABBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"
	for _, pr := range termPronunciations(strings.ToLower(long), true, func(string) string { return "" }) {
		if n := len(strings.Fields(pr)); n > maxPronPhones {
			t.Errorf("%s: %d phones", long, n)
		}
	}
	if got := termPronunciations("aws", true, func(string) string { return "" }); !slices.Equal(got, []string{"EY D AH B AH L Y UW EH S"}) {
		t.Errorf("acronym aws = %q", got)
	}
	if p, err := parseBoost(nil, "high"); p != nil || err != nil {
		t.Errorf("no terms: %v %v", p, err)
	}
	if p, err := parseBoost([]string{"!!"}, "high"); p != nil || err != nil {
		t.Errorf("no usable terms: %v %v", p, err)
	}
	_, err = parseBoost([]string{"x"}, "extreme")
	var pe *transcribe.ParamError
	if !errors.As(err, &pe) || pe.Field != "boost_param" {
		t.Errorf("boost_param extreme: %v", err)
	}
	arpa := (&boostPlan{phrases: [][]string{{"quarterly", "revenue"}, {"x"}}}).arpa([]string{"quarterly", "revenue", "x"})
	for _, s := range []string{"ngram 1=5", "ngram 2=1", "-0.6021 quarterly", "-0.3010 quarterly revenue", "\\end\\"} {
		if !strings.Contains(arpa, s) {
			t.Errorf("ARPA lacks %q:\n%s", s, arpa)
		}
	}
}

func TestPronounce(t *testing.T) {
	dict := map[string]string{"ear": "IH R", "shot": "SH AA T", "cloud": "K L AW D", "flare": "F L EH R", "web": "W EH B"}
	lookup := func(w string) string { return dict[w] }
	for in, want := range map[string]string{
		"ear":        "IH R",
		"earshot":    "IH R SH AA T",
		"cloudflare": "K L AW D F L EH R",
		"gpt":        "JH IY P IY T IY",
		"k8s":        "K EY EY T S",
		"tensorflow": "T EH N S AO R F L OW",
		"kate":       "K EY T",
		"city":       "S IH T IY",
		"shannon":    "SH AE N AA N",
		"café":       "",
		"":           "",
	} {
		if got := pronounce(in, lookup); got != want {
			t.Errorf("pronounce(%q) = %q, want %q", in, got, want)
		}
	}
	// Words with digits: numbers read as people say them, first the usual
	// reading, then alternates.
	for in, want := range map[string][]string{
		"11":           {"IH L EH V AH N", "W AH N W AH N"},
		"7":            {"S EH V AH N"},
		"007":          {"Z IH R OW Z IH R OW S EH V AH N"},
		"mp4":          {"EH M P IY F AO R"},
		"web3":         {"W EH B TH R IY"},
		"4o":           {"F AO R OW"},
		"1080p":        {"T EH N EY T IY P IY", "W AH N TH AW Z AH N D EY T IY P IY", "W AH N Z IH R OW EY T Z IH R OW P IY"},
		"2024":         {"T W EH N T IY T W EH N T IY F AO R", "T UW TH AW Z AH N D T W EH N T IY F AO R", "T UW Z IH R OW T UW F AO R"},
		"123456789012": nil, // digit by digit: more than maxPronPhones phones
	} {
		got := pronunciations(in, lookup)
		if in == "123456789012" {
			if len(got) != 1 || len(strings.Fields(got[0])) > maxPronPhones {
				t.Errorf("pronunciations(%q) = %q", in, got)
			}
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("pronunciations(%q) = %q, want %q", in, got, want)
		}
	}
	if got := pronunciations(strings.Repeat("9", 40), lookup); got != nil {
		t.Errorf("a 40-digit number: %q, want none (too long)", got)
	}
}

func TestNumberReadings(t *testing.T) {
	for in, want := range map[string]string{
		"0":       "zero",
		"19":      "nineteen|one nine",
		"40":      "forty|four zero",
		"105":     "one hundred five|one zero five",
		"1905":    "nineteen oh five|one thousand nine hundred five|one nine zero five",
		"1900":    "nineteen hundred|one thousand nine hundred|one nine zero zero",
		"2000":    "two thousand|two zero zero zero",
		"999999":  "nine hundred ninety nine thousand nine hundred ninety nine|nine nine nine nine nine nine",
		"0800":    "zero eight zero zero",
		"1234567": "one two three four five six seven",
	} {
		var got []string
		for _, r := range numberReadings(in) {
			got = append(got, strings.Join(r, " "))
		}
		if strings.Join(got, "|") != want {
			t.Errorf("numberReadings(%q) = %q, want %q", in, strings.Join(got, "|"), want)
		}
	}
}

// TestBoostReleasesModels: a boosted request leaves the base language
// model's reference count as it found it (the interpolated set and the
// boost model are freed with the temporary search).
func TestBoostReleasesModels(t *testing.T) {
	r := rec(t)
	d, err := r.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer r.release(d)
	before := d.l.refs(d.lm)
	p, err := parseBoost([]string{"hello world", "lazy"}, "high")
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := d.applyBoost(p); err != nil {
			t.Fatal(err)
		}
		d.clearBoost()
	}
	if after := d.l.refs(d.lm); after != before {
		t.Errorf("base model references: %d before, %d after three boosted requests", before, after)
	}
}

// TestWordBoostWrittenTerms: flite reads terms with digits as people say
// them ("Windows 11" as windows eleven, "k8s" as k eights, "1080p" as ten
// eighty p); boosted with the 20 realistic terms of issue 11, which crashed
// the decoder before, every one is recognized in its written form, and
// none is without the boost.
func TestWordBoostWrittenTerms(t *testing.T) {
	t.Parallel()
	r := rec(t)
	text := "We upgraded to Windows 11 last week. Convert the video to MP4 first. Our cluster runs on k8s now. " +
		"The COVID-19 report is ready. We tested GPT 4o yesterday. The camera records 1080p video. Store the backups in S3."
	want := []string{"11", "mp4", "k8s", "covid", "19", "gpt", "4o", "1080p", "s3"}
	audio := wav(t, testaudio.Speech(t, "slt", text))
	plain, err := r.Recognize(context.Background(), audio, transcribe.RecognizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	boosted, err := r.Recognize(context.Background(), audio, transcribe.RecognizeOptions{WordBoost: boostCrashCases[2].terms})
	if err != nil {
		t.Fatal(err)
	}
	inPlain, inBoosted := 0, 0
	for _, w := range want {
		if ok, _ := hasWord(plain.Words, w); ok {
			inPlain++
			t.Errorf("%q recognized without boost: the test proves nothing", w)
		}
		if ok, _ := hasWord(boosted.Words, w); ok {
			inBoosted++
		} else {
			t.Errorf("boosted %q not recognized", w)
		}
	}
	t.Logf("boosted words recognized: %d/%d without boost, %d/%d with\n  plain:   %q\n  boosted: %q",
		inPlain, len(want), inBoosted, len(want), words(plain.Words), words(boosted.Words))
}
