// Package storagetest has certmagic.Storage wrappers for tests that count
// or shape what reaches storage.
package storagetest

import (
	"context"
	"sync/atomic"

	"github.com/caddyserver/certmagic"
)

// CountingLoads is a storage that counts the documents read through it:
// for tests of what a lookup costs (an id that cannot exist must cost no
// read).
type CountingLoads struct {
	certmagic.Storage
	loads atomic.Int64
}

// Load implements certmagic.Storage, counting the read.
func (c *CountingLoads) Load(ctx context.Context, key string) ([]byte, error) {
	c.loads.Add(1)
	return c.Storage.Load(ctx, key)
}

// Loads returns how many documents were read.
func (c *CountingLoads) Loads() int64 { return c.loads.Load() }
