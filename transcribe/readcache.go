package transcribe

import (
	"container/list"
	"sync"
)

// DefaultReadCacheBytes bounds the Service's cache of opened records.
// Records over a sixteenth of it are not cached.
const DefaultReadCacheBytes = 64 << 20

// readCache keeps, for recently read records, the wire form their sealed
// Data holds, decrypted (the public JSON of a version 2 record: what a
// GET serves, never the private part with the request's secrets), least
// recently used out first, within a byte budget. It lives in this
// process's memory alone: nothing of it is written to the Store, the
// blob store, a file or a log.
//
// An entry is keyed by the record id and the record's sealed Summary as
// the Store held it when the entry was made: its version. It is served
// only after the Store confirmed, in the read itself (GetUnlessSummary),
// that the stored Summary is still that one, and after the project check
// on the Store's record of that read. The Service seals Data and Summary
// together, each time with a fresh random nonce, and the Stores write
// them in one statement, so an unchanged Summary means unchanged Data,
// whichever process wrote it: a write by any process, this one or
// another, changes the version and the next read replaces the entry.
// What the Store changes without resealing (status, webhook status) is
// spliced in from its record on every read. The Service's own Delete and
// a read that finds the record gone forget the entry, so a deleted
// transcript's content does not stay in memory.
//
// A version 1 record (whose plaintext is the whole state, secrets
// included) is kept sealed and decoded on every read.
type readCache struct {
	mu    sync.Mutex
	max   int
	used  int
	byID  map[string]*list.Element
	order list.List // of *readEntry, most recently used first
}

// readEntry is one record's entry: immutable once made (readers use its
// bytes without the lock).
type readEntry struct {
	id, project string
	// summary is the record's sealed Summary when the entry was made.
	summary []byte
	// pub is the opened wire form of a version 2 record; sealed, the
	// sealed Data of a version 1 record. One of them is set.
	pub, sealed []byte
	// at are pub's splice points.
	at splicePoints
}

func newReadCache(max int) *readCache {
	return &readCache{max: max, byID: map[string]*list.Element{}}
}

func (e *readEntry) size() int {
	return len(e.id) + len(e.project) + len(e.summary) + len(e.pub) + len(e.sealed) + 96
}

// get returns the entry of id, or nil. Its bytes must not be modified.
func (c *readCache) get(id string) *readEntry {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byID[id]
	if !ok {
		return nil
	}
	c.order.MoveToFront(el)
	return el.Value.(*readEntry)
}

// put keeps e (whose bytes it owns from now on), replacing the entry of
// its id.
func (c *readCache) put(e *readEntry) {
	if c == nil {
		return
	}
	if len(e.summary) == 0 || e.size() > c.max/16 {
		c.forget(e.id)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byID[e.id]; ok {
		c.used -= el.Value.(*readEntry).size()
		c.order.Remove(el)
	}
	c.byID[e.id] = c.order.PushFront(e)
	c.used += e.size()
	for c.used > c.max {
		last := c.order.Back()
		old := last.Value.(*readEntry)
		c.order.Remove(last)
		delete(c.byID, old.id)
		c.used -= old.size()
	}
}

// forget drops id.
func (c *readCache) forget(id string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byID[id]; ok {
		c.used -= el.Value.(*readEntry).size()
		c.order.Remove(el)
		delete(c.byID, id)
	}
}

// bytes is what the cache holds now (for tests).
func (c *readCache) bytes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}

// jsonBufs holds the buffers GETs decrypt and splice into; buffers of
// records over maxPooledBuf are left to the collector.
var jsonBufs sync.Pool

const maxPooledBuf = 4 << 20

func getBuf(n int) *[]byte {
	if p, ok := jsonBufs.Get().(*[]byte); ok && cap(*p) >= n {
		return p
	}
	// A smaller buffer from the pool is left to the collector.
	b := make([]byte, 0, max(n, 32<<10))
	return &b
}

// putBuf returns p to the pool with what it holds (its length: callers
// leave there what they wrote) cleared: it held plaintext.
func putBuf(p *[]byte) {
	if cap(*p) <= maxPooledBuf {
		clear(*p)
		*p = (*p)[:0]
		jsonBufs.Put(p)
	}
}
