// Package pagecache keeps list pages (driver.PageStore results) under
// a version of the database they were read at: a store reads its
// database's version before it queries a page, keeps the page under that
// version, and serves it again while the version it reads is the same.
// The stores define the version (storage/sqlite: PRAGMA data_version on
// a connection of its own; storage/postgres: the current snapshot).
package pagecache

import (
	"sync"
	"time"

	"github.com/earshot-dev/earshot/transcribe/driver"
)

// MaxBytes bounds the pages a Cache keeps.
const MaxBytes = 16 << 20

// Cache keeps the pages read at one version: the first page put at
// another version drops the rest. A page also holds only while the oldest
// creation time asked for (the retention window, which moves with the
// clock) excludes none of its records. Safe for concurrent use; the zero
// Cache is empty and ready.
type Cache struct {
	mu    sync.Mutex
	ver   string
	pages map[key]*page
	size  int
}

// key is a ListQuery but for CreatedFrom.
type key struct {
	project, status, before, after string
	createdBefore                  time.Time
	limit                          int
	deleted                        bool
}

type page struct {
	createdFrom time.Time
	recs        []driver.Record
	size        int
}

func keyOf(q driver.ListQuery) key {
	return key{project: q.ProjectID, status: string(q.Status), before: q.BeforeID, after: q.AfterID,
		createdBefore: q.CreatedBefore, limit: q.Limit, deleted: q.IncludeDeleted}
}

// Get returns the page of q kept at version ver, if any. Its records are
// shared: they must not be modified.
func (c *Cache) Get(ver string, q driver.ListQuery) ([]driver.Record, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ver != ver || c.pages == nil {
		return nil, false
	}
	p, ok := c.pages[keyOf(q)]
	if !ok || q.CreatedFrom.Before(p.createdFrom) {
		return nil, false
	}
	for i := range p.recs {
		if p.recs[i].Created.Before(q.CreatedFrom) {
			// The window moved past one of its records: what lies beyond
			// the page may belong in it now.
			return nil, false
		}
	}
	return p.recs, true
}

// Put keeps recs, the page of q read after version ver was read.
func (c *Cache) Put(ver string, q driver.ListQuery, recs []driver.Record) {
	size := 256
	for i := range recs {
		size += 128 + len(recs[i].ID) + len(recs[i].Status) + len(recs[i].Summary)
	}
	if size > MaxBytes/8 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ver != ver || c.pages == nil || c.size+size > MaxBytes {
		// A new version (or a full cache): what was kept is stale.
		c.ver, c.pages, c.size = ver, map[key]*page{}, 0
	}
	k := keyOf(q)
	if old, ok := c.pages[k]; ok {
		c.size -= old.size
	}
	c.pages[k] = &page{createdFrom: q.CreatedFrom, recs: recs, size: size}
	c.size += size
}

// Clear drops every page.
func (c *Cache) Clear() {
	c.mu.Lock()
	c.pages, c.size = nil, 0
	c.mu.Unlock()
}
