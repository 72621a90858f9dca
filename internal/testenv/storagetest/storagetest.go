// Package storagetest has certmagic.Storage wrappers for tests that count
// or shape what reaches storage.
package storagetest

import (
	"context"
	"errors"
	"strings"
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

// ErrStoreRefused is what FailingStores answers a write it refuses.
var ErrStoreRefused = errors.New("storagetest: store refused")

// FailingStores is a storage whose writes of keys under Prefix fail: for
// tests of what a durable write that fails leaves behind. Hiding the
// wrapped storage's type also makes the logs that append to files on a
// file_system storage write documents instead (Store).
type FailingStores struct {
	certmagic.Storage
	Prefix string
}

// Store implements certmagic.Storage, refusing keys under Prefix.
func (f *FailingStores) Store(ctx context.Context, key string, value []byte) error {
	if strings.HasPrefix(key, f.Prefix) {
		return ErrStoreRefused
	}
	return f.Storage.Store(ctx, key, value)
}
