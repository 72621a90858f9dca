package agent

import "sync"

// ownerCacheSize bounds the owners kept in memory: a few MiB at most, so
// the cache never grows with the number of records.
const ownerCacheSize = 16384

// ownerCache keeps recently written or read owners, so that accepting a
// record does not read its ownership document from storage every time.
// Owners never change once written (Forget only undoes a create whose
// request failed, before any client learnt the record id), so an entry is
// never stale; storage stays the truth, and a miss reads it. Entries are
// evicted oldest first.
type ownerCache struct {
	mu   sync.Mutex
	m    map[string]Owner
	ring [ownerCacheSize]string
	next int
}

func (c *ownerCache) get(id string) (Owner, bool) {
	c.mu.Lock()
	o, ok := c.m[id]
	c.mu.Unlock()
	return o, ok
}

func (c *ownerCache) put(id string, o Owner) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]Owner, ownerCacheSize)
	}
	if _, ok := c.m[id]; ok {
		c.m[id] = o
		return
	}
	if old := c.ring[c.next]; old != "" {
		delete(c.m, old)
	}
	c.ring[c.next] = id
	c.next = (c.next + 1) % ownerCacheSize
	c.m[id] = o
}

func (c *ownerCache) forget(id string) {
	c.mu.Lock()
	delete(c.m, id)
	c.mu.Unlock()
}
