package ownerlog

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
)

// pending is one Append or Forget waiting for its batch.
type pending struct {
	entry  Entry
	forget bool
	done   chan error
}

// committer writes what is pending as one batch document at a time (group
// commit): while one write is in flight the next batch gathers, so the
// storage sees one durable write per batch, however many creates run at
// once, and a lone create still costs exactly one write.
type committer struct {
	log     *Log
	mu      sync.Mutex
	queue   []pending
	running bool
}

// donePool recycles the one-slot channels callers wait on.
var donePool = sync.Pool{New: func() any { return make(chan error, 1) }}

// submit queues p and waits until its batch is stored (nil) or failed.
func (c *committer) submit(p pending) error {
	p.done = donePool.Get().(chan error)
	c.mu.Lock()
	c.queue = append(c.queue, p)
	if !c.running {
		c.running = true
		go c.run()
	}
	c.mu.Unlock()
	err := <-p.done
	donePool.Put(p.done)
	return err
}

// run writes batches until nothing is pending.
func (c *committer) run() {
	var batch []pending
	for {
		c.mu.Lock()
		n := min(len(c.queue), maxBatch)
		if n == 0 {
			c.running = false
			c.mu.Unlock()
			return
		}
		batch = append(batch[:0], c.queue[:n]...)
		rest := copy(c.queue, c.queue[n:])
		clear(c.queue[rest:])
		c.queue = c.queue[:rest]
		c.mu.Unlock()

		err := c.log.writeBatch(batch)
		for _, p := range batch {
			p.done <- err
		}
		clear(batch)
	}
}

// writeBatch stores batch as one document, then puts it into memory.
func (l *Log) writeBatch(batch []pending) error {
	var doc document
	for _, p := range batch {
		if p.forget {
			doc.Forgotten = append(doc.Forgotten, p.entry.ID)
		} else {
			doc.Owners = append(doc.Owners, p.entry)
		}
	}
	var err error
	if l.appender != nil {
		err = l.appender.write(doc)
	} else {
		err = l.store(context.Background(), l.name('b'), doc)
	}
	if err != nil {
		return err
	}
	l.idx.add(doc.Owners, doc.Forgotten)
	l.maybeCompact()
	return nil
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
