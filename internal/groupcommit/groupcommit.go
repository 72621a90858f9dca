// Package groupcommit shares one durable write among concurrent callers:
// while one batch is being written the next gathers, so the disk sees one
// write (and one sync) per batch however many callers wait, and a lone
// caller still costs exactly one write. The owner log and the record
// journal both commit this way.
package groupcommit

import "sync"

// Committer writes what callers submit, a batch at a time. The zero value
// is not usable: Write must be set before the first Submit.
type Committer[T any] struct {
	// Write stores one batch durably; its error is every caller's. Batches
	// are written one at a time, in the order they were submitted.
	Write func(batch []T) error
	// Max bounds the items of one batch (0: 512).
	Max int

	mu      sync.Mutex
	queue   []waiter[T]
	running bool
}

type waiter[T any] struct {
	item T
	done chan error
}

// donePool recycles the one-slot channels callers wait on.
var donePool = sync.Pool{New: func() any { return make(chan error, 1) }}

// Submit queues item and waits until its batch is written (nil) or failed.
func (c *Committer[T]) Submit(item T) error {
	return c.Start(item).Wait()
}

// Ticket is an item queued by Start.
type Ticket struct{ done chan error }

// Wait waits until the item's batch is written (nil) or failed. It must be
// called exactly once.
func (t Ticket) Wait() error {
	err := <-t.done
	donePool.Put(t.done)
	return err
}

// Start queues item and returns at once; the ticket's Wait waits for its
// batch. Between the two the caller can do other work, such as a network
// call, while the batch is written.
func (c *Committer[T]) Start(item T) Ticket {
	w := waiter[T]{item: item, done: donePool.Get().(chan error)}
	c.mu.Lock()
	c.queue = append(c.queue, w)
	if !c.running {
		c.running = true
		go c.run()
	}
	c.mu.Unlock()
	return Ticket{done: w.done}
}

// SubmitAll queues items together and waits until all are written: the
// first error of their batches, if any. A failed batch does not stop the
// others (each item's write is all or nothing on its own).
func (c *Committer[T]) SubmitAll(items []T) error {
	if len(items) == 0 {
		return nil
	}
	done := make(chan error, len(items))
	c.mu.Lock()
	for _, it := range items {
		c.queue = append(c.queue, waiter[T]{item: it, done: done})
	}
	if !c.running {
		c.running = true
		go c.run()
	}
	c.mu.Unlock()
	var first error
	for range items {
		if err := <-done; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// run writes batches until nothing is pending.
func (c *Committer[T]) run() {
	limit := c.Max
	if limit <= 0 {
		limit = 512
	}
	var (
		batch []waiter[T]
		items []T
	)
	for {
		c.mu.Lock()
		n := min(len(c.queue), limit)
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

		items = items[:0]
		for _, w := range batch {
			items = append(items, w.item)
		}
		err := c.Write(items)
		for _, w := range batch {
			w.done <- err
		}
		clear(batch)
		clear(items)
	}
}

// Pending reports how many items wait for a batch (not counting the batch
// being written).
func (c *Committer[T]) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.queue)
}
