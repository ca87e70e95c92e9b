package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/earshot-dev/earshot/internal/wire"
	"github.com/earshot-dev/earshot/transcribe"
)

// ListItem is one entry of a transcript list (TranscriptListItem on the
// wire).
type ListItem struct {
	ID          string            `json:"id"`
	ResourceURL string            `json:"resource_url"`
	Status      transcribe.Status `json:"status"`
	Created     string            `json:"created"`
	Completed   *string           `json:"completed"`
	AudioURL    string            `json:"audio_url"`
	Error       *string           `json:"error"`
}

// PageDetails describes a list page; its URLs are absolute, on the public
// origin (the JS SDK fetches them as they are).
type PageDetails struct {
	Limit       int     `json:"limit"`
	ResultCount int     `json:"result_count"`
	CurrentURL  string  `json:"current_url"`
	PrevURL     *string `json:"prev_url"`
	NextURL     *string `json:"next_url"`
}

// ListPage is the response of GET /v2/transcript.
type ListPage struct {
	PageDetails PageDetails `json:"page_details"`
	Transcripts []ListItem  `json:"transcripts"`
}

// TimeLayout formats list timestamps as the real API does (UTC, no zone).
const TimeLayout = wire.TimeLayout

// list serves GET /v2/transcript. Empty query values count as absent (the
// JS SDK sends after_id= for undefined); any request body is ignored (the
// Go SDK sends one).
func (a *API) list(w http.ResponseWriter, r *http.Request, project string) {
	q := r.URL.Query()
	var o transcribe.ListOptions
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n == 0 {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("limit: must be an integer between 1 and %d", transcribe.MaxListLimit))
			return
		}
		o.Limit = n
	}
	o.Status = transcribe.Status(q.Get("status"))
	createdOn := q.Get("created_on")
	if createdOn != "" {
		day, err := time.Parse("2006-01-02", createdOn)
		if err != nil {
			writeError(w, http.StatusBadRequest, "created_on: must be a date in the form YYYY-MM-DD")
			return
		}
		o.CreatedOn = day
	}
	o.BeforeID = q.Get("before_id")
	o.AfterID = q.Get("after_id")
	if v := q.Get("throttled_only"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			writeError(w, http.StatusBadRequest, "throttled_only: must be true or false")
			return
		}
		o.ThrottledOnly = b
	}
	res, err := a.svc.ReadList(r.Context(), project, o)
	if err != nil {
		a.writeErr(w, r, err)
		return
	}
	k := pageKey{res: res, o: o, createdOn: createdOn}
	body := a.pages.get(k)
	if body == nil {
		body = a.appendPage(make([]byte, 0, 512+320*len(res.Entries)), res, o, createdOn)
		a.pages.put(k, body)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// renderedPages keeps the list pages the API rendered, by the result
// they were rendered from: Service.ReadList answers with the very result
// it answered before while the Store answers with the very records (its
// cache of pages, checked against the database on every read), so a
// page of an unchanged list is rendered once. The key holds the result,
// whose address so cannot come back for another. What it holds (entries'
// audio_url and error, opened) is in memory alone.
type renderedPages struct {
	mu    sync.Mutex
	pages map[pageKey][]byte
	size  int
}

// pageKey is a rendered page's result and query.
type pageKey struct {
	res       *transcribe.ListResult
	o         transcribe.ListOptions
	createdOn string
}

// maxRenderedBytes bounds renderedPages; when it is full it starts again
// empty.
const maxRenderedBytes = 8 << 20

func (c *renderedPages) get(k pageKey) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pages[k]
}

// put keeps body, the page of k, which it owns from now on.
func (c *renderedPages) put(k pageKey, body []byte) {
	size := len(body) + 128
	if size > maxRenderedBytes/8 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pages == nil || c.size+size > maxRenderedBytes {
		c.pages, c.size = map[pageKey][]byte{}, 0
	}
	if old, ok := c.pages[k]; ok {
		c.size -= len(old) + 128
	}
	c.pages[k] = body
	c.size += size
}

// appendJSON appends p as encoding/json marshals it, byte for byte, without
// reflection: a page of 200 entries is rendered on every list request, and
// this is several times quicker (TestListPageJSON holds it to json.Marshal).
func (p *ListPage) appendJSON(b []byte) []byte {
	b = appendDetails(b, &p.PageDetails)
	if p.Transcripts == nil {
		return append(b, "null}"...)
	}
	b = append(b, '[')
	for i := range p.Transcripts {
		it := &p.Transcripts[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = appendString(b, it.ID)
		b = append(b, `,"resource_url":`...)
		b = appendString(b, it.ResourceURL)
		b = append(b, `,"status":`...)
		b = appendString(b, string(it.Status))
		b = append(b, `,"created":`...)
		b = appendString(b, it.Created)
		b = append(b, `,"completed":`...)
		b = appendStringPtr(b, it.Completed)
		b = append(b, `,"audio_url":`...)
		b = appendString(b, it.AudioURL)
		b = append(b, `,"error":`...)
		b = appendStringPtr(b, it.Error)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// appendPage appends the page of res as json.Marshal writes a.page(res,
// o, createdOn), byte for byte (TestAppendPage), rendering each entry
// straight into b: no ListItem, URL or time string per entry.
func (a *API) appendPage(b []byte, res *transcribe.ListResult, o transcribe.ListOptions, createdOn string) []byte {
	details := a.page(&transcribe.ListResult{Limit: res.Limit, Older: res.Older, Newer: res.Newer}, o, createdOn).PageDetails
	details.ResultCount = len(res.Entries)
	b = appendDetails(b, &details)
	b = append(b, '[')
	for i := range res.Entries {
		e := &res.Entries[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = appendString(b, e.ID)
		b = append(b, `,"resource_url":`...)
		b = appendConcat(b, a.urls.origin, "/v2/transcript/", e.ID)
		b = append(b, `,"status":`...)
		b = appendString(b, string(e.Status))
		b = append(b, `,"created":"`...)
		b = appendTime(b, e.Created) // digits and -T:. alone
		b = append(b, `","completed":`...)
		if e.Completed.IsZero() {
			b = append(b, "null"...)
		} else {
			b = append(b, '"')
			b = appendTime(b, e.Completed)
			b = append(b, '"')
		}
		b = append(b, `,"audio_url":`...)
		b = appendString(b, e.AudioURL)
		b = append(b, `,"error":`...)
		b = appendStringPtr(b, e.Error)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// appendTime appends t in TimeLayout, in UTC, as wire.Time formats it.
func appendTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(b, TimeLayout)
	}
	hour, min, sec := t.Clock()
	b = appendDigits(b, year, 4)
	b = append(b, '-')
	b = appendDigits(b, int(month), 2)
	b = append(b, '-')
	b = appendDigits(b, day, 2)
	b = append(b, 'T')
	b = appendDigits(b, hour, 2)
	b = append(b, ':')
	b = appendDigits(b, min, 2)
	b = append(b, ':')
	b = appendDigits(b, sec, 2)
	b = append(b, '.')
	return appendDigits(b, t.Nanosecond()/1000, 6)
}

// appendDigits appends v, 0 <= v < 10^n, in n digits.
func appendDigits(b []byte, v, n int) []byte {
	b = append(b, "000000"[:n]...)
	for i := len(b) - 1; v > 0; i-- {
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return b
}

// appendConcat is appendString of the concatenation of parts, without
// making it when no part needs escaping.
func appendConcat(b []byte, parts ...string) []byte {
	for _, s := range parts {
		if needsEscape(s) {
			var all string
			for _, p := range parts {
				all += p
			}
			return appendString(b, all)
		}
	}
	b = append(b, '"')
	for _, s := range parts {
		b = append(b, s...)
	}
	return append(b, '"')
}

// appendDetails appends `{"page_details":{...},"transcripts":`.
func appendDetails(b []byte, d *PageDetails) []byte {
	b = append(b, `{"page_details":{"limit":`...)
	b = strconv.AppendInt(b, int64(d.Limit), 10)
	b = append(b, `,"result_count":`...)
	b = strconv.AppendInt(b, int64(d.ResultCount), 10)
	b = append(b, `,"current_url":`...)
	b = appendString(b, d.CurrentURL)
	b = append(b, `,"prev_url":`...)
	b = appendStringPtr(b, d.PrevURL)
	b = append(b, `,"next_url":`...)
	b = appendStringPtr(b, d.NextURL)
	return append(b, `},"transcripts":`...)
}

func appendStringPtr(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendString(b, *s)
}

// appendString appends s as a JSON string the way encoding/json writes it:
// plain ASCII as it is, anything it would escape (quotes, backslashes,
// control characters, <, >, &, invalid UTF-8, U+2028/9) by json.Marshal
// itself.
func appendString(b []byte, s string) []byte {
	if needsEscape(s) {
		q, _ := json.Marshal(s)
		return append(b, q...)
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// needsEscape reports whether encoding/json writes s other than as it is.
func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if escaped[s[i]] {
			return true
		}
	}
	return false
}

// escaped marks the bytes encoding/json does not write as they are:
// control characters, '"', '\\', '<', '>', '&' and every byte of a
// multi-byte (or invalid) UTF-8 sequence, which it checks.
var escaped = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&'
	}
	return t
}()

// page renders a ListResult: items with their resource URLs, and
// page_details whose URLs repeat the query with the cursors.
func (a *API) page(res *transcribe.ListResult, o transcribe.ListOptions, createdOn string) *ListPage {
	page := &ListPage{Transcripts: make([]ListItem, 0, len(res.Entries))}
	for _, e := range res.Entries {
		it := ListItem{ID: e.ID, ResourceURL: a.urls.Transcript(e.ID), Status: e.Status,
			Created: wire.Time(e.Created), AudioURL: e.AudioURL, Error: e.Error}
		if !e.Completed.IsZero() {
			c := wire.Time(e.Completed)
			it.Completed = &c
		}
		page.Transcripts = append(page.Transcripts, it)
	}
	pageURL := func(extra url.Values) string {
		v := url.Values{}
		v.Set("limit", strconv.Itoa(res.Limit))
		if o.Status != "" {
			v.Set("status", string(o.Status))
		}
		if createdOn != "" {
			v.Set("created_on", createdOn)
		}
		if o.ThrottledOnly {
			v.Set("throttled_only", "true")
		}
		for k, vs := range extra {
			v[k] = vs
		}
		return a.urls.TranscriptList(v)
	}
	cur := url.Values{}
	if o.BeforeID != "" {
		cur.Set("before_id", o.BeforeID)
	}
	if o.AfterID != "" {
		cur.Set("after_id", o.AfterID)
	}
	page.PageDetails = PageDetails{Limit: res.Limit, ResultCount: len(page.Transcripts), CurrentURL: pageURL(cur)}
	if res.Older != "" {
		u := pageURL(url.Values{"before_id": {res.Older}})
		page.PageDetails.PrevURL = &u
	}
	if res.Newer != "" {
		u := pageURL(url.Values{"after_id": {res.Newer}})
		page.PageDetails.NextURL = &u
	}
	return page
}
