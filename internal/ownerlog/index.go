package ownerlog

import "sync"

// index maps every remembered record id to its org, in memory. Record ids
// are almost always canonical UUIDs (credo-controller and ACA-Py make them
// so), kept as 16 bytes; any other id is kept as a string. An org is kept
// once, as a number: about 30–40 bytes per record in all, so a million
// records cost some 40 MiB.
type index struct {
	mu    sync.RWMutex
	uuids map[[16]byte]uint32
	other map[string]uint32
	// gone holds forgotten ids, so that an entry read after its tombstone
	// (documents are read in any order) stays forgotten. Forgetting only
	// undoes a create whose request failed, so it stays small.
	gone   map[string]struct{}
	orgs   []string
	orgIDs map[string]uint32
}

func newIndex() *index {
	return &index{
		uuids:  make(map[[16]byte]uint32),
		other:  make(map[string]uint32),
		gone:   make(map[string]struct{}),
		orgIDs: make(map[string]uint32),
	}
}

// get returns the org of id.
func (x *index) get(id string) (string, bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	var n uint32
	var ok bool
	if u, isUUID := parseUUID(id); isUUID {
		n, ok = x.uuids[u]
	} else {
		n, ok = x.other[id]
	}
	if !ok {
		return "", false
	}
	return x.orgs[n], true
}

// add remembers the entries and applies the tombstones of one document.
func (x *index) add(entries []Entry, forgotten []string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, id := range forgotten {
		x.gone[id] = struct{}{}
		x.remove(id)
	}
	for i := range entries {
		if _, gone := x.gone[entries[i].ID]; gone {
			continue
		}
		x.put(entries[i].ID, entries[i].OrgID)
	}
}

// put remembers one id; the caller holds mu.
func (x *index) put(id, org string) {
	n, ok := x.orgIDs[org]
	if !ok {
		n = uint32(len(x.orgs))
		x.orgs = append(x.orgs, org)
		x.orgIDs[org] = n
	}
	if u, isUUID := parseUUID(id); isUUID {
		x.uuids[u] = n
	} else {
		x.other[id] = n
	}
}

// remove forgets one id; the caller holds mu.
func (x *index) remove(id string) {
	if u, isUUID := parseUUID(id); isUUID {
		delete(x.uuids, u)
	} else {
		delete(x.other, id)
	}
}

// adopt remembers id's org learnt elsewhere (a per-record document written
// before the log existed), unless it was forgotten.
func (x *index) adopt(id, org string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, gone := x.gone[id]; !gone {
		x.put(id, org)
	}
}

// parseUUID reads id as a UUID in canonical form only (36 characters,
// lower-case hex, dashes at 8, 13, 18 and 23), so that two spellings of
// one UUID never share an entry.
func parseUUID(id string) ([16]byte, bool) {
	var u [16]byte
	if len(id) != 36 {
		return u, false
	}
	j := 0
	for i := 0; i < 36; {
		switch i {
		case 8, 13, 18, 23:
			if id[i] != '-' {
				return u, false
			}
			i++
			continue
		}
		hi, ok1 := hexValue(id[i])
		lo, ok2 := hexValue(id[i+1])
		if !ok1 || !ok2 {
			return u, false
		}
		u[j] = hi<<4 | lo
		j++
		i += 2
	}
	return u, true
}

func hexValue(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}
