package pii

import (
	"sort"
	"strings"

	"github.com/earshot-dev/earshot/transcribe"
)

// Span is one detected entity: its type (one of transcribe.PIIPolicies())
// over the words [From, To) of the slice it was found in.
type Span struct {
	Type     string
	From, To int
}

// Detector finds entities in formatted words (the output of the textfmt
// stages: "$25", "555-1234", "john@example.com", "Sarah" with punctuation
// attached). It combines validated patterns, curated gazetteers and context
// cues; doc.go lists the method used for each entity type.
//
// The zero value is ready to use. A Detector is safe for concurrent use.
type Detector struct {
	// Region is the ISO 3166 region used to read phone numbers written
	// without a country code. Default "US".
	Region string
	// RulesOnly leaves out the learned named-entity tagger (package
	// transcribe/pii/ner): people, places and organisations come from the
	// gazetteers and cues alone, as before the tagger (the baseline of
	// internal/nereval).
	RulesOnly bool
	// GuessedCasing says that the words' capitals were written by
	// format_text (package textfmt's casing of a recognizer's lower-case
	// words), not by the engine: the words are then read in lower case,
	// as recognizer text, by the rules and the lower-case tagger, whose
	// spans are better than the cased tagger's on such guessed capitals
	// (internal/nereval's TestCoNLLFormatted). The stages set it for each
	// job whose engine wrote no casing (transcribe.Written.Casing false).
	GuessedCasing bool
}

// ForJob returns d with GuessedCasing set when the job's engine wrote no
// casing.
func (d Detector) ForJob(job *transcribe.Job) Detector {
	d.GuessedCasing = job != nil && !job.Written.Casing
	return d
}

// Priorities decide between overlapping candidates: the higher wins, then
// the longer, then the earlier.
const (
	prioCue      = 90 // a value named by its cue ("my SSN is ...")
	prioPattern  = 80 // a self-validating pattern (e-mail, card with Luhn)
	prioInterval = 75
	prioAge      = 72
	prioNumeric  = 65 // money, dates, times, durations, statistics
	prioAddress  = 62
	prioName     = 55
	prioGaz      = 45
	prioWeak     = 30
	prioSequence = 10
)

type cand struct {
	typ      string
	from, to int
	prio     int
}

// run is the state of one detection.
type run struct {
	d     Detector
	ws    []transcribe.Word
	t     []tok
	cands []cand
	// gazFrom, gazTo delimit the gazetteers' candidates in cands.
	gazFrom, gazTo int
}

func (r *run) add(typ string, from, to, prio int) {
	if from < 0 || to > len(r.t) || from >= to {
		return
	}
	for k := from + 1; k < to; k++ {
		if r.t[k].side != r.t[from].side {
			return
		}
	}
	r.cands = append(r.cands, cand{typ, from, to, prio})
}

// k returns the key of word i, or "" outside the words.
func (r *run) k(i int) string {
	if i < 0 || i >= len(r.t) {
		return ""
	}
	return r.t[i].key
}

// phraseAt reports whether the words at i spell phrase (space separated
// keys) without a clause boundary inside, and returns its length.
func (r *run) phraseAt(i int, phrase string) int {
	if p, _, _ := strings.Cut(phrase, " "); r.k(i) != p {
		return 0 // the common case, without splitting
	}
	ps := strings.Fields(phrase)
	for n, p := range ps {
		if r.k(i+n) != p || (n < len(ps)-1 && r.t[i+n].punct) {
			return 0
		}
	}
	return len(ps)
}

// Spans returns the entities in ws as non-overlapping spans in word order.
func (d Detector) Spans(ws []transcribe.Word) []Span {
	if len(ws) == 0 {
		return nil
	}
	if d.Region == "" {
		d.Region = "US"
	}
	if d.GuessedCasing {
		lower := make([]transcribe.Word, len(ws))
		for i, w := range ws {
			lower[i] = w
			lower[i].Text = strings.ToLower(w.Text)
		}
		ws = lower
	}
	r := &run{d: d, ws: ws, t: prepare(ws)}
	r.patterns()
	r.numbers()
	r.dates()
	r.cues()
	r.names()
	r.gazFrom = len(r.cands)
	r.gazetteers()
	r.gazTo = len(r.cands)
	r.tagger()
	r.places()
	return r.resolve()
}

// Detect returns the entities in ws with their text (the words' text
// without the leading punctuation of the first word and the trailing
// punctuation of the last) and times (start of the first word, end of the
// last).
func (d Detector) Detect(ws []transcribe.Word) []transcribe.Entity {
	return Entities(ws, d.Spans(ws))
}

// Entities turns spans over ws into transcribe.Entity values.
func Entities(ws []transcribe.Word, spans []Span) []transcribe.Entity {
	out := make([]transcribe.Entity, 0, len(spans))
	for _, s := range spans {
		out = append(out, transcribe.Entity{EntityType: s.Type, Text: spanText(ws[s.From:s.To]),
			Start: ws[s.From].Start, End: ws[s.To-1].End})
	}
	return out
}

func spanText(ws []transcribe.Word) string {
	s := transcribe.JoinWords(ws)
	s = strings.TrimLeft(s, "\"'“‘¿¡[{")
	s = strings.TrimRight(s, ".,;:!?\"'”’…]}")
	if strings.HasPrefix(s, "(") && !strings.Contains(s, ")") {
		s = s[1:]
	}
	if strings.HasSuffix(s, ")") && !strings.Contains(s, "(") {
		s = s[:len(s)-1]
	}
	return s
}

// partOf reports whether location s, right after location p, is where p
// is: a region ("Chicago, Illinois"), or either is an address or ZIP code
// (has digits, "123 Main Street, Springfield"). Two places side by side
// stay two ("The Oval, London").
func (r *run) partOf(p, s Span) bool {
	for k := p.From; k < s.To; k++ {
		if hasDigit(r.t[k].core) {
			return true
		}
	}
	return regionSet[strings.Join(keysOf(r, s.From, s.To-s.From), " ")]
}

var regionSet = set(regions)

// resolve picks non-overlapping candidates and merges neighbours.
func (r *run) resolve() []Span {
	cs := r.cands
	sort.SliceStable(cs, func(a, b int) bool {
		if cs[a].prio != cs[b].prio {
			return cs[a].prio > cs[b].prio
		}
		if la, lb := cs[a].to-cs[a].from, cs[b].to-cs[b].from; la != lb {
			return la > lb
		}
		return cs[a].from < cs[b].from
	})
	used := make([]bool, len(r.t))
	var out []Span
next:
	for _, c := range cs {
		for k := c.from; k < c.to; k++ {
			if used[k] {
				continue next
			}
		}
		for k := c.from; k < c.to; k++ {
			used[k] = true
		}
		out = append(out, Span{c.typ, c.from, c.to})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].From < out[b].From })
	// Merge "Springfield, Illinois" and "Monday, January 5th" into one.
	merged := out[:0]
	for _, s := range out {
		if n := len(merged); n > 0 {
			p := &merged[n-1]
			if p.To == s.From && p.Type == s.Type && (s.Type == "date" || s.Type == "location" && r.partOf(*p, s)) && r.t[p.From].side == r.t[s.From].side {
				_, _, trail := splitPunct(r.ws[p.To-1].Text)
				if !strings.ContainsAny(trail, ".?!;") {
					p.To = s.To
					continue
				}
			}
		}
		merged = append(merged, s)
	}
	return merged
}
