package proofgate

import (
	"time"

	"github.com/proofgate/proofgate/internal/ttlcache"
)

// seenStates remembers, in this process, the state last read from or
// written to each record's observed-state document, so that reading or
// accepting a record whose state did not change costs no storage read.
// Only an equal state is answered from memory: a record's state moves
// forward, so when it equals what was stored here, storage holds it too
// (or a later state another instance saw, which this read could not
// change). Anything else goes to storage as before.
type seenStates struct {
	c *ttlcache.Cache[string]
}

// seenStatesSize bounds the records remembered (a few MiB at most);
// seenStatesTTL is far below observedRetention/2, when Last refreshes a
// stored state's SeenAt.
const (
	seenStatesSize = 16384
	seenStatesTTL  = 10 * time.Minute
)

func newSeenStates() *seenStates {
	return &seenStates{c: ttlcache.New[string](seenStatesSize, seenStatesTTL, 0)}
}

// is reports whether state is what was last seen of record id.
func (s *seenStates) is(id, state string) bool {
	if s == nil {
		return false
	}
	v, ok := s.c.Peek(id)
	return ok && v == state
}

func (s *seenStates) put(id, state string) {
	if s != nil {
		s.c.Put(id, state)
	}
}
