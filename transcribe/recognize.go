package transcribe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"time"

	"golang.org/x/sync/errgroup"
)

// Long audio is recognized in pieces cut at pauses, several at once on the
// engine's pooled decoders, and the words are stitched back with their
// offsets: a long job uses every core, and memory stays bounded by the
// pieces in flight rather than the media's length.
const (
	// pieceLen is the longest piece recognized in one call.
	pieceLen = 60 * time.Second
	// wholeBelow: audio no longer than this is recognized in one call, as
	// before (a minute of speech gains nothing from being cut).
	wholeBelow = 90 * time.Second
)

// piece is a stretch [from, to) of one channel of a spool.
type piece struct {
	ch       int
	from, to int64
}

// cutPieces cuts channel ch's frames [lo, hi) into pieces of at most
// maxLen, at pauses (SplitAtPauses over a window read from the spool at a
// time, so memory does not grow with the audio). With servers > 1 (an
// engine pool's capacity) the pieces are as many as maxLen needs rounded
// up to a multiple of servers, of about equal length, so that the last
// round of pieces keeps every server busy.
func cutPieces(sp *spool, ch int, lo, hi int64, maxLen, whole time.Duration, servers int) ([]piece, error) {
	rate := int64(sp.SampleRate)
	if hi-lo <= int64(whole.Seconds()*float64(rate)) {
		return []piece{{ch, lo, hi}}, nil
	}
	maxN := int64(maxLen.Seconds() * float64(rate))
	parts := int64(0)
	if servers > 1 {
		// Shares of at most 0.9 maxLen leave the cuts room to fall at
		// pauses without a share spilling into one piece more.
		share := maxN * 9 / 10
		k := (hi - lo + share - 1) / share
		parts = (k + int64(servers) - 1) / int64(servers) * int64(servers)
	}
	var out []piece
	buf := make([]int16, maxN+1)
	for p := lo; p < hi; {
		limit := maxN
		if left := parts - int64(len(out)); left > 0 {
			// An equal share of what is left: the cut falls at a pause
			// a little before it, and later shares take up the rest.
			limit = min(maxN, (hi-p+left-1)/left)
		}
		if hi-p <= limit {
			out = append(out, piece{ch, p, hi})
			break
		}
		n, err := sp.Read(ch, p, buf[:limit+1])
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		spans := SplitAtPauses(buf[:n], sp.SampleRate, time.Duration(limit)*time.Second/time.Duration(rate))
		cut := p + int64(spans[0].End)
		if len(spans) < 2 || cut <= p {
			cut = p + int64(n)
		}
		out = append(out, piece{ch, p, cut})
		p = cut
	}
	return out, nil
}

// silentSpool reports whether every channel's peak over [lo, hi) is below
// -60 dBFS, reading a second at a time.
func silentSpool(sp *spool, lo, hi int64) (bool, error) {
	buf := make([]int16, sp.SampleRate)
	for c := 0; c < sp.Channels(); c++ {
		for p := lo; p < hi; {
			want := buf[:min(int64(len(buf)), hi-p)]
			n, err := sp.Read(c, p, want)
			if err != nil && !errors.Is(err, io.EOF) {
				return false, err
			}
			for _, v := range want[:n] {
				if v > 32 || v < -32 {
					return false, nil
				}
			}
			if n == 0 {
				break
			}
			p += int64(n)
		}
	}
	return true, nil
}

// recognizePieces recognizes the channels of sp over [lo, hi), each cut
// into pieces, at most parallel pieces at once. Word times are made
// relative to the media (offset by where each piece starts), channel
// labels are set when multi, and the words come back in time order. The
// first recognition that names a language is returned beside them, and
// each piece's language and word count (for code switching).
func recognizePieces(ctx context.Context, rec Recognizer, sp *spool, lo, hi int64, multi bool, opts RecognizeOptions, parallel int) ([]Word, *Recognition, []pieceLanguage, error) {
	maxLen := pieceLen
	if m := rec.Features().MaxAudio; m > 0 && m < maxLen {
		maxLen = m
	}
	whole := max(wholeBelow, maxLen)
	if m := rec.Features().MaxAudio; m > 0 {
		whole = maxLen
	}
	var pieces []piece
	servers := 0
	if c, ok := engineOf(rec).(capacityReporter); ok {
		servers = c.Capacity()
	}
	for c := 0; c < sp.Channels(); c++ {
		ps, err := cutPieces(sp, c, lo, hi, maxLen, whole, servers)
		if err != nil {
			return nil, nil, nil, err
		}
		pieces = append(pieces, ps...)
	}
	results := make([]*Recognition, len(pieces))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(piecesAtOnce(rec, parallel), 1))
	for i, p := range pieces {
		g.Go(func() error {
			samples, err := sp.Samples(p.ch, p.from, p.to)
			if err != nil {
				return err
			}
			r, err := rec.Recognize(gctx, samples, opts)
			if err != nil {
				return err
			}
			if r == nil {
				return fmt.Errorf("transcribe: the engine returned no recognition")
			}
			results[i] = r
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, nil, err
	}
	rate := int64(sp.SampleRate)
	var words []Word
	var first *Recognition
	// What of the written form the words carry is the engine's way of
	// writing: take it from the piece with the most words (a piece of
	// near silence may come back as one bare word).
	var written Written
	most := -1
	langs := make([]pieceLanguage, 0, len(results))
	for i, r := range results {
		p := pieces[i]
		langs = append(langs, pieceLanguage{code: r.Language, words: len(r.Words)})
		if first == nil || (first.Language == "" && r.Language != "") {
			first = r
		}
		if len(r.Words) > most {
			most, written = len(r.Words), r.Written
		}
		off := p.from * 1000 / rate
		for _, w := range r.Words {
			w.Start += off
			w.End += off
			if multi {
				c := fmt.Sprint(p.ch + 1)
				w.Channel = &c
			}
			words = append(words, w)
		}
	}
	if multi {
		sort.SliceStable(words, func(i, j int) bool { return words[i].Start < words[j].Start })
	}
	if first != nil {
		f := *first
		f.Written = written
		first = &f
	}
	return words, first, langs, nil
}

// capacityReporter is a recognizer that says how many recognitions it
// serves at once: a pool of engine servers (openai.Recognizer.Capacity,
// servers × their concurrency; 0 for no known limit).
type capacityReporter interface{ Capacity() int }

// piecesAtOnce is how many pieces of one job go to rec at once: the
// engine's capacity when it reports one (fewer would leave servers idle,
// more would only wait for a slot), otherwise parallel
// (Config.PieceParallelism).
func piecesAtOnce(rec Recognizer, parallel int) int {
	if c, ok := engineOf(rec).(capacityReporter); ok && c.Capacity() > 0 {
		return c.Capacity()
	}
	return parallel
}

// engineOf is the engine's recognizer under the Service's wrapper.
func engineOf(rec Recognizer) Recognizer {
	if p, ok := rec.(patientRecognizer); ok {
		return p.Recognizer
	}
	return rec
}
