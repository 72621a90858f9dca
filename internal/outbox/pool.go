package outbox

import (
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/store"
)

// pool keeps one running deliverer per storage and namespace across config
// reloads: Caddy provisions the new config before cleaning up the old, so
// a queue is never left without workers, and the last Release stops them.
var pool = caddy.NewUsagePool()

// Acquire returns the running deliverer for key, making and starting it
// with build on first use. Each Acquire must be paired with one Release
// (in the module's Cleanup). Callers then (re)register their delivery
// functions with Handle, so the deliverer uses the newest config's.
func Acquire(key string, build func() (*Deliverer, error)) (*Deliverer, error) {
	val, _, err := pool.LoadOrNew(key, func() (caddy.Destructor, error) {
		d, err := build()
		if err != nil {
			return nil, err
		}
		d.Start()
		return d, nil
	})
	if err != nil {
		return nil, err
	}
	return val.(*Deliverer), nil
}

// Release drops one hold on key's deliverer; the last stops it.
func Release(key string) error {
	_, err := pool.Delete(key)
	return err
}

// StorageKey identifies a storage and a namespace in it, for Acquire.
func StorageKey(storage certmagic.Storage, namespace string) string {
	return "outbox:" + namespace + ":" + store.Identity(storage)
}
