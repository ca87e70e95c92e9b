package transcribe

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/earshot-dev/earshot/transcribe/driver"
)

// Limits of the list operation.
const (
	DefaultListLimit = 10
	MaxListLimit     = 200
)

// ListOptions select a page of transcripts (the query of GET
// /v2/transcript).
type ListOptions struct {
	Limit     int       // 1..MaxListLimit; 0 means DefaultListLimit
	Status    Status    // "" for any
	CreatedOn time.Time // only transcripts created that UTC day; zero for any
	// BeforeID pages to older transcripts, AfterID to newer ones (the
	// cursors of ListResult).
	BeforeID      string
	AfterID       string
	ThrottledOnly bool // nothing is ever throttled here: an empty page
}

// ListEntry is one transcript of a page.
type ListEntry struct {
	ID        string
	Status    Status
	Created   time.Time
	Completed time.Time // zero until completed or error
	AudioURL  string
	Error     *string
}

// ListResult is one page, newest first, with the cursors to the pages
// around it.
type ListResult struct {
	Entries []ListEntry
	// Limit is the effective page size.
	Limit int
	// Older is the cursor (a BeforeID) of the page of older transcripts;
	// "" when there is none.
	Older string
	// Newer is the cursor (an AfterID) of the page of newer transcripts;
	// "" when this page is empty.
	Newer string
}

// List returns a page of the project's transcripts, newest first, within
// Retention. A page costs one Store query and one small decryption per
// entry, whatever the transcripts hold (none when the Store answers with
// the records it answered before: see ReadList). Errors: *ParamError for a bad
// option (limit, status, a cursor that is not one of the project's
// transcripts).
func (s *Service) List(ctx context.Context, projectID string, o ListOptions) (*ListResult, error) {
	res, err := s.list(ctx, projectID, o)
	if err != nil {
		return nil, err
	}
	return cloneList(res), nil
}

// list is List, its result shared (ReadList, readlist.go).
func (s *Service) list(ctx context.Context, projectID string, o ListOptions) (*ListResult, error) {
	if o.Limit == 0 {
		o.Limit = DefaultListLimit
	}
	if o.Limit < 1 || o.Limit > MaxListLimit {
		return nil, paramErr("limit", "must be between 1 and %d", MaxListLimit)
	}
	if o.Status != "" && !o.Status.Valid() {
		return nil, paramErr("status", "must be one of queued, processing, completed, error")
	}
	for _, c := range []struct{ field, id string }{{"before_id", o.BeforeID}, {"after_id", o.AfterID}} {
		if c.id != "" && uuid.Validate(c.id) != nil {
			return nil, paramErr(c.field, "must be a transcript id (uuid)")
		}
	}
	res := &ListResult{Limit: o.Limit, Entries: []ListEntry{}}
	if o.ThrottledOnly {
		return res, nil
	}
	q := driver.ListQuery{ProjectID: projectID, Limit: o.Limit + 1, Status: o.Status, CreatedFrom: s.utcNow().Add(-s.cfg.Retention),
		BeforeID: o.BeforeID, AfterID: o.AfterID}
	if !o.CreatedOn.IsZero() {
		day := o.CreatedOn.UTC().Truncate(24 * time.Hour)
		if day.After(q.CreatedFrom) {
			q.CreatedFrom = day
		}
		q.CreatedBefore = day.Add(24 * time.Hour)
	}
	recs, err := s.listPage(ctx, q)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			field, id := "before_id", o.BeforeID
			if o.AfterID != "" {
				field, id = "after_id", o.AfterID
			}
			return nil, paramErr(field, "transcript %s does not exist", id)
		}
		return nil, err
	}
	if res := s.lists.get(projectID, o, recs); res != nil {
		return res, nil // the very page the Store answered before
	}
	page := recs
	more := len(recs) > o.Limit
	if more {
		if o.AfterID != "" {
			recs = recs[1:] // the newest extra one belongs to the next newer page
		} else {
			recs = recs[:o.Limit]
		}
	}
	res.Entries = make([]ListEntry, 0, len(recs))
	var bufs summaryBufs
	for i := range recs {
		r := &recs[i]
		sum, err := s.unsealSummaryTo(&bufs, r)
		if err != nil {
			// One unreadable record (say, sealed under a lost key) must not
			// hide the rest of the project's list.
			s.log.Error("listing: skipping unreadable transcript", "id", r.ID, "err", err)
			continue
		}
		res.Entries = append(res.Entries, ListEntry{ID: r.ID, Status: r.Status, Created: r.Created, Completed: r.Completed,
			AudioURL: sum.AudioURL, Error: sum.Error})
	}
	if n := len(res.Entries); n > 0 {
		// The page right after after_id always has older transcripts.
		if more || o.AfterID != "" {
			res.Older = res.Entries[n-1].ID
		}
		res.Newer = res.Entries[0].ID
	}
	s.lists.put(projectID, o, page, res)
	return res, nil
}

// listPage reads the records of a page through the Store's ListPage, or
// its List.
func (s *Service) listPage(ctx context.Context, q driver.ListQuery) ([]driver.Record, error) {
	if ps, ok := s.cfg.Store.(driver.PageStore); ok {
		return ps.ListPage(ctx, q)
	}
	full, err := s.cfg.Store.List(ctx, q)
	if err != nil {
		return nil, err
	}
	recs := make([]driver.Record, len(full))
	for i, r := range full {
		recs[i] = *r
	}
	return recs, nil
}
