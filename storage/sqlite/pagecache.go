package sqlite

import (
	"context"
	"database/sql"
	"net/url"
	"strconv"
	"sync"

	"github.com/earshot-dev/earshot/storage/internal/pagecache"
)

// pageCache keeps the pages ListPage read (their records, summaries
// sealed as stored) while the database has not changed since
// (pagecache.Cache).
//
// "Not changed" is SQLite's PRAGMA data_version, read on a connection
// of the cache's own that never writes: its value changes whenever any
// other connection, of this process or another, commits a change to the
// database file. It is read before a page is queried, so a page is kept
// under a version no newer than what it shows; the first commit anywhere
// afterwards drops every page.
type pageCache struct {
	once    sync.Once
	db      *sql.DB
	version *sql.Stmt
	err     error

	pagecache.Cache
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
func (c *pageCache) dataVersion(ctx context.Context, path string) (string, error) {
	if err := c.open(path); err != nil {
		return "", err
	}
	var v int64
	if err := c.version.QueryRowContext(ctx).Scan(&v); err != nil {
		return "", err
	}
	return strconv.FormatInt(v, 10), nil
}

func (c *pageCache) close() {
	c.once.Do(func() { c.err = errClosed })
	if c.db != nil {
		c.version.Close()
		c.db.Close()
	}
	c.Clear()
}
