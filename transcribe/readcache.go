package transcribe

import (
	"container/list"
	"context"
	"sync"
)

// A ReadStore is a Store that can leave out the sealed transcript of a
// read when the caller already holds it (storage/sqlite and
// storage/postgres implement it). The Service reads GETs through it,
// with a bounded cache of sealed records (see Service.ReadJSON).
type ReadStore interface {
	// GetUnlessSummary is Get returning the fields a read shows alone
	// (ID, ProjectID, Status, Deleted, Created, Completed, WebhookStatus,
	// Summary and Data), except that when summary is not empty and equal
	// to the record's stored Summary, Data is nil: the caller holds the
	// Data stored with that Summary.
	GetUnlessSummary(ctx context.Context, id string, summary []byte) (*Record, error)
}

// DefaultReadCacheBytes bounds the Service's cache of sealed records.
// Records over a sixteenth of it are not cached.
const DefaultReadCacheBytes = 64 << 20

// sealedCache keeps the sealed Data and Summary of recently read records,
// least recently used out first, within a byte budget. What it holds is
// the Store's bytes as they are, encrypted: a hit still costs a
// decryption, and the project check is made on the Store's record of
// every read.
//
// A hit is only used after the Store confirmed it (GetUnlessSummary):
// the Service seals Data and Summary together, each time with a fresh
// random nonce, and the Stores write them in one statement, so an
// unchanged Summary means unchanged Data, whichever process wrote it.
// The Service's own writes forget the record here too (forget), so a
// deleted transcript's sealed content does not stay in memory.
type sealedCache struct {
	mu    sync.Mutex
	max   int
	used  int
	byID  map[string]*list.Element
	order list.List // of *sealedEntry, most recently used first
}

type sealedEntry struct {
	id            string
	summary, data []byte
}

func newSealedCache(max int) *sealedCache {
	return &sealedCache{max: max, byID: map[string]*list.Element{}}
}

func (e *sealedEntry) size() int { return len(e.id) + len(e.summary) + len(e.data) + 64 }

// get returns the entry of id, or nil. Its bytes must not be modified.
func (c *sealedCache) get(id string) *sealedEntry {
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
	return el.Value.(*sealedEntry)
}

// put keeps the sealed summary and data of id (which it must own from
// now on), replacing what was kept.
func (c *sealedCache) put(id string, summary, data []byte) {
	e := &sealedEntry{id: id, summary: summary, data: data}
	if c == nil || len(summary) == 0 || e.size() > c.max/16 {
		c.forget(id)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byID[id]; ok {
		c.used -= el.Value.(*sealedEntry).size()
		c.order.Remove(el)
	}
	c.byID[id] = c.order.PushFront(e)
	c.used += e.size()
	for c.used > c.max {
		last := c.order.Back()
		old := last.Value.(*sealedEntry)
		c.order.Remove(last)
		delete(c.byID, old.id)
		c.used -= old.size()
	}
}

// forget drops id.
func (c *sealedCache) forget(id string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byID[id]; ok {
		c.used -= el.Value.(*sealedEntry).size()
		c.order.Remove(el)
		delete(c.byID, id)
	}
}

// jsonBufs holds the buffers GETs decrypt into; buffers of records over
// maxPooledBuf are left to the collector.
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

func putBuf(p *[]byte) {
	if cap(*p) <= maxPooledBuf {
		*p = (*p)[:0]
		jsonBufs.Put(p)
	}
}
