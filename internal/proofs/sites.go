package proofs

import (
	"sync"

	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/store"
)

// liveServices are the Services of the process, by storage: several local
// backends on one storage (two sites, or a config and the one a reload
// replaces) see each other's records, and each sweeps all of them. A
// record one of them made (madeHere) follows that one's invitation_ttl
// and record_retention; the others leave it alone while it runs.
var liveServices = struct {
	sync.Mutex
	byStorage map[string]map[*Service]struct{}
}{byStorage: map[string]map[*Service]struct{}{}}

func storageKey(storage certmagic.Storage) string { return store.Identity(storage) }

// register adds s to liveServices (New); unregister removes it (Close).
func (s *Service) register() {
	liveServices.Lock()
	defer liveServices.Unlock()
	key := storageKey(s.storage)
	set := liveServices.byStorage[key]
	if set == nil {
		set = map[*Service]struct{}{}
		liveServices.byStorage[key] = set
	}
	set[s] = struct{}{}
}

func (s *Service) unregister() {
	liveServices.Lock()
	defer liveServices.Unlock()
	key := storageKey(s.storage)
	delete(liveServices.byStorage[key], s)
	if len(liveServices.byStorage[key]) == 0 {
		delete(liveServices.byStorage, key)
	}
}

// madeElsewhere reports whether another live Service on s's storage made
// doc (madeHere): then that one's settings apply to it, not s's. A record
// no live Service made (its site removed by a reload) is every sweeper's.
func (s *Service) madeElsewhere(doc *Doc) bool {
	liveServices.Lock()
	defer liveServices.Unlock()
	for o := range liveServices.byStorage[storageKey(s.storage)] {
		if o != s && o.madeHere(doc) {
			return true
		}
	}
	return false
}
