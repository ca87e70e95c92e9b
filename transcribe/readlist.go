package transcribe

import (
	"context"
	"slices"
	"sync"

	"github.com/earshot-dev/earshot/transcribe/driver"
)

// ReadList is List returning a result that may be shared: callers must
// not modify it. While the Store answers a page with the very records it
// answered before (a PageStore's cache of pages: storage/sqlite and
// storage/postgres keep a page while the database has not changed, which
// they check on every read), ReadList returns the very result it
// returned then, without opening the entries again; so a caller may keep
// what it derives from a result under its pointer (httpapi keeps the
// page it rendered). The Store is still read on every call, with the
// project in the query.
func (s *Service) ReadList(ctx context.Context, projectID string, o ListOptions) (*ListResult, error) {
	return s.list(ctx, projectID, o)
}

// listCache keeps the results List made of recent pages, by project and
// options, with the records they were made of: a result is used again
// only for the same records, the same slice the Store answered with
// before (a Store hands out a new slice for each page it reads, and the
// cache holds the old one, so its address cannot come back for other
// records). What it holds is the entries' list fields, opened: in memory
// alone, never written anywhere.
type listCache struct {
	mu    sync.Mutex
	pages map[listKey]*listPage
	size  int
}

type listKey struct {
	project string
	o       ListOptions
}

type listPage struct {
	recs []driver.Record
	res  *ListResult
	size int
}

// maxListCacheBytes bounds the cache (a page of 200 entries is some
// 40 KB); when it is full it starts again empty.
const maxListCacheBytes = 8 << 20

// get returns the result made of recs for project and o, if kept.
func (c *listCache) get(project string, o ListOptions, recs []driver.Record) *ListResult {
	if len(recs) == 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.pages[listKey{project, o}]
	if !ok || len(p.recs) != len(recs) || &p.recs[0] != &recs[0] {
		return nil
	}
	return p.res
}

// put keeps res, made of recs for project and o.
func (c *listCache) put(project string, o ListOptions, recs []driver.Record, res *ListResult) {
	if len(recs) == 0 {
		return
	}
	size := 256 + len(project)
	for i := range recs {
		size += 128 + len(recs[i].ID) + len(recs[i].Summary)
	}
	for i := range res.Entries {
		e := &res.Entries[i]
		size += 160 + len(e.ID) + len(e.AudioURL)
		if e.Error != nil {
			size += len(*e.Error)
		}
	}
	k := listKey{project, o}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pages == nil || c.size+size > maxListCacheBytes {
		c.pages, c.size = map[listKey]*listPage{}, 0
	}
	if old, ok := c.pages[k]; ok {
		c.size -= old.size
	}
	c.pages[k] = &listPage{recs: recs, res: res, size: size}
	c.size += size
}

// cloneList returns a copy of res its caller may modify.
func cloneList(res *ListResult) *ListResult {
	c := *res
	c.Entries = slices.Clone(res.Entries)
	return &c
}
