package textfmt

import (
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/textfmt/punctmodel"
)

// TestHoldGaps: the spans the punctuation model must leave whole. In each
// case "_" joins words whose gap is held and " " separates the others.
func TestHoldGaps(t *testing.T) {
	m, err := punctmodel.Default()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		spec   string
		paused bool // a pause after every word (else none)
	}{
		{"hi my_name is_sarah_johnson and_my_number is five_five_five_one_two_three_four", true},
		{"please send it to karen_white at one_two_three_elm_street", true},
		{"write to peter_jackson at nine_eight_seven_pine_avenue", true},
		{"the_card is four_one_one_one_one_one_one_one", true},
		{"the_meeting is on monday_july_tenth", true},
		{"i was born on december_twenty_fifth_nineteen_ninety", true},
		{"on saturday_august_second or the_twelfth_of_june", true},
		{"she is forty_two_years_old", true},
		{"it costs twenty_five_dollars", true},
		{"meet me at three_thirty_p_m", true},
		{"go to room_two_oh_four", true},
		{"spell it j_o_h_n please", true},
		{"she needs an_x_ray today", true},
		{"my_email is sarah_at_example_dot_com thanks", true},
		{"i bank with wells_fargo", true},
		{"ask mrs_dashwood", true},
		{"yes sir and_then", true},
		{"thank you sarah and_goodbye", true},
		{"oh well what now", true},
		{"it is_ten", false},
		{"it is ten", true},
	}
	for _, c := range cases {
		var t2 []string
		var want []bool
		for _, f := range strings.Fields(c.spec) {
			parts := strings.Split(f, "_")
			for i, p := range parts {
				t2 = append(t2, p)
				want = append(want, i+1 < len(parts))
			}
		}
		want[len(want)-1] = false
		words := make([]string, len(t2))
		for i, w := range t2 {
			words[i] = punctmodel.Normalize(w)
		}
		got := holdGaps(m, t2, words, func(int) bool { return c.paused })
		var b strings.Builder
		for i, w := range t2 {
			b.WriteString(w)
			switch {
			case i+1 == len(t2):
			case got[i]:
				b.WriteString("_")
			default:
				b.WriteString(" ")
			}
		}
		if b.String() != c.spec {
			t.Errorf("held gaps\n got %s\nwant %s", b.String(), c.spec)
		}
	}
}

// TestModelKeepsSpansWhole: a comma pause (350 ms, "/") inside a name, a
// number, a date, an address, spelled letters or a spoken e-mail address
// is strong evidence of a mark for the model, but the span stays whole.
// The first cases are the ones that broke PII redaction when the model
// was first tried ("Sarah. Johnson", "One, two, three Elm street").
func TestModelKeepsSpansWhole(t *testing.T) {
	cases := []struct{ in, whole string }{
		{"hi my name is sarah / johnson and my number is five five five / one two three four",
			"sarah johnson and my number is five five five one two three four"},
		{"please send it to karen / white at one / two / three elm / street", "karen white at one two three elm street"},
		{"the card number is four one one one / one one one one / one one one one / one one one one",
			"four one one one one one one one one one one one one one one one"},
		{"i was born on december / twenty fifth / nineteen ninety", "december twenty fifth nineteen ninety"},
		{"the meeting is on saturday / august second at three / thirty p m", "saturday august second at three thirty p m"},
		{"it cost twenty five / dollars", "twenty five dollars"},
		{"my name is j / o / h / n smith", "j o h n"},
		{"write to sarah / at example / dot com", "sarah at example dot com"},
		{"she is forty two / years / old", "forty two years old"},
	}
	for _, c := range cases {
		ws := words(c.in)
		Punctuator{}.Punctuate(ws)
		got := strings.ToLower(text(ws))
		if !strings.Contains(got, c.whole) {
			t.Errorf("Punctuate(%q) = %q: marks inside %q", c.in, got, c.whole)
		}
		// The pause rules put commas at those pauses: the spans stay
		// whole because of the constraint, not for want of pauses.
		ws = words(c.in)
		Punctuator{PauseOnly: true}.Punctuate(ws)
		if got := strings.ToLower(text(ws)); strings.Contains(got, c.whole) {
			t.Errorf("pause rules left %q whole in %q: the case does not test the constraint", c.whole, got)
		}
	}
}

// TestModelUniformGaps: an engine (or a caller) that gives every word the
// same share of the time leaves the same gap after each; such gaps say
// nothing about marks and must not read as pauses (see pauseFloor).
func TestModelUniformGaps(t *testing.T) {
	for _, say := range []string{
		"this is a single page document with three sections",
		"she was diagnosed with high blood pressure last year",
		"the patient needs a blood test and an x ray",
	} {
		var want string
		for _, gap := range []int64{0, 20, 50, 120} {
			var ws []transcribe.Word
			for i, f := range strings.Fields(say) {
				start := int64(i) * (250 + gap)
				ws = append(ws, transcribe.Word{Text: f, Start: start, End: start + 250, Confidence: 0.9})
			}
			Punctuator{}.Punctuate(ws)
			got := text(ws)
			if gap == 0 {
				want = got
			} else if got != want {
				t.Errorf("%q with %d ms after each word: %q; with none: %q", say, gap, got, want)
			}
		}
	}
	if f := pauseFloor([]int64{50, 50, 50, 400}); f != 50 {
		t.Errorf("pauseFloor of gaps of 50 ms: %d", f)
	}
	if f := pauseFloor([]int64{0, 0, 10, 300}); f != jitterMs {
		t.Errorf("pauseFloor of pocketsphinx gaps: %d, want %d", f, jitterMs)
	}
	if f := pauseFloor(nil); f != jitterMs {
		t.Errorf("pauseFloor of no gaps: %d", f)
	}
}
