package sqlite

import (
	"context"
	"database/sql"
	"net/url"
	"sync"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
)

// maxPageCacheBytes bounds the pages ListPage keeps.
const maxPageCacheBytes = 16 << 20

// pageCache keeps the pages ListPage read (their records, summaries
// sealed as stored) while the database has not changed since.
//
// "Not changed" is SQLite's PRAGMA data_version, read on a connection
// of the cache's own that never writes: its value changes whenever any
// other connection, of this process or another, commits a change to the
// database file. It is read before a page is queried, so a page is kept
// under a version no newer than what it shows; the first commit anywhere
// afterwards drops every page. A page also holds only while the oldest
// creation time asked for (the retention window, which moves with the
// clock) excludes none of its records.
type pageCache struct {
	once    sync.Once
	db      *sql.DB
	version *sql.Stmt
	err     error

	mu    sync.Mutex
	ver   int64
	pages map[pageKey]*cachedPage
	size  int
}

// pageKey is a ListQuery but for CreatedFrom.
type pageKey struct {
	project, status, before, after string
	createdBefore                  time.Time
	limit                          int
	deleted                        bool
}

type cachedPage struct {
	createdFrom time.Time
	recs        []transcribe.Record
	size        int
}

func keyOf(q transcribe.ListQuery) pageKey {
	return pageKey{project: q.ProjectID, status: string(q.Status), before: q.BeforeID, after: q.AfterID,
		createdBefore: q.CreatedBefore, limit: q.Limit, deleted: q.IncludeDeleted}
}

// open opens the cache's connection the first time.
func (c *pageCache) open(path string) error {
	c.once.Do(func() {
		q := url.Values{}
		q.Set("_busy_timeout", "5000")
		db, err := sql.Open("sqlite", path+"?"+q.Encode())
		if err != nil {
			c.err = err
			return
		}
		db.SetMaxOpenConns(1)
		db.SetMaxIdleConns(1)
		db.SetConnMaxIdleTime(0)
		c.version, c.err = db.Prepare(`PRAGMA data_version`)
		if c.err != nil {
			db.Close()
			return
		}
		c.db = db
	})
	return c.err
}

// dataVersion reads the database's data_version.
func (c *pageCache) dataVersion(ctx context.Context, path string) (int64, error) {
	if err := c.open(path); err != nil {
		return 0, err
	}
	var v int64
	err := c.version.QueryRowContext(ctx).Scan(&v)
	return v, err
}

// get returns the page of q kept under version v, if any.
func (c *pageCache) get(v int64, q transcribe.ListQuery) ([]transcribe.Record, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ver != v || c.pages == nil {
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

// put keeps recs, the page of q read after version v was.
func (c *pageCache) put(v int64, q transcribe.ListQuery, recs []transcribe.Record) {
	size := 256
	for i := range recs {
		size += 128 + len(recs[i].ID) + len(recs[i].Status) + len(recs[i].Summary)
	}
	if size > maxPageCacheBytes/8 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ver != v || c.pages == nil || c.size+size > maxPageCacheBytes {
		// A new version (or a full cache): what was kept is stale.
		c.ver, c.pages, c.size = v, map[pageKey]*cachedPage{}, 0
	}
	k := keyOf(q)
	if old, ok := c.pages[k]; ok {
		c.size -= old.size
	}
	c.pages[k] = &cachedPage{createdFrom: q.CreatedFrom, recs: recs, size: size}
	c.size += size
}

func (c *pageCache) close() {
	c.once.Do(func() { c.err = errClosed })
	if c.db != nil {
		c.version.Close()
		c.db.Close()
	}
	c.mu.Lock()
	c.pages, c.size = nil, 0
	c.mu.Unlock()
}
