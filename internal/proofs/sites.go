package proofs

import (
	"github.com/proofgate/proofgate/internal/liveset"
	"github.com/proofgate/proofgate/internal/store"
)

// liveServices are the Services of the process, by storage: several local
// backends on one storage (two sites, or a config and the one a reload
// replaces) see each other's records, and each sweeps all of them. A
// record one of them made (madeHere) follows that one's invitation_ttl
// and record_retention; the others leave it alone while it runs.
var liveServices = liveset.New[*Service]()

// register adds s to liveServices (New); unregister removes it (Close).
func (s *Service) register()   { liveServices.Add(store.Identity(s.storage), s) }
func (s *Service) unregister() { liveServices.Remove(store.Identity(s.storage), s) }

// madeElsewhere reports whether another live Service on s's storage made
// doc (madeHere): then that one's settings apply to it, not s's. A record
// no live Service made (its site removed by a reload) is every sweeper's.
func (s *Service) madeElsewhere(doc *Doc) bool {
	for _, o := range liveServices.Members(store.Identity(s.storage)) {
		if o != s && o.madeHere(doc) {
			return true
		}
	}
	return false
}
